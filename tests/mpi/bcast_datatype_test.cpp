// Derived datatypes: packed once, unpacked into exactly the bytes of the type map, with
// root and receivers free to use different datatypes of the same signature.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>

#include <leancast/leancast.hpp>

#include "test_support.hpp"

namespace leancast::test {
namespace {

// 3 blocks of 2 ints, stride 3: ints 0,1,3,4,6,7 of every 8-int element; 2 and 5 are gaps.
constexpr int kIntsPerElement = 8;
constexpr bool in_vector_map(int i) { return i % 8 != 2 && i % 8 != 5; }

class OwnedType {
 public:
  explicit OwnedType(MPI_Datatype type) : type_(type) { MPI_Type_commit(&type_); }
  ~OwnedType() { MPI_Type_free(&type_); }
  operator MPI_Datatype() const { return type_; }

 private:
  MPI_Datatype type_;
};

MPI_Datatype strided_vector() {
  MPI_Datatype vec = MPI_DATATYPE_NULL, resized = MPI_DATATYPE_NULL;
  MPI_Type_vector(3, 2, 3, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, kIntsPerElement * sizeof(int), &resized);
  MPI_Type_free(&vec);
  return resized;
}

TEST(BcastDatatype, StridedVectorLeavesGapsUntouched) {
  const int procs = world_size(), rank = world_rank();
  OwnedType type(strided_vector());
  for (Algorithm algorithm : concrete_algorithms()) {
    for (int count : {1, 7, 5000, 30000}) {
      const int root = count % procs;
      std::vector<int> data(count * kIntsPerElement, -1);
      if (rank == root) {
        for (int i = 0; i < static_cast<int>(data.size()); ++i) data[i] = in_vector_map(i) ? i : -7;
      }
      ASSERT_EQ(bcast(data.data(), count, type, root, MPI_COMM_WORLD, algorithm), MPI_SUCCESS);
      int wrong = 0;
      for (int i = 0; i < static_cast<int>(data.size()); ++i) {
        const int expected = in_vector_map(i) ? i : (rank == root ? -7 : -1);
        wrong += data[i] != expected;
      }
      EXPECT_EQ(wrong, 0) << to_string(algorithm) << " count=" << count;
    }
  }
}

struct Record {
  char tag;      // 7 bytes of padding follow
  double value;
  short small;   // 6 bytes of padding follow
};

TEST(BcastDatatype, StructKeepsPaddingUntouched) {
  const int procs = world_size(), rank = world_rank();
  const int lengths[3] = {1, 1, 1};
  const MPI_Aint offsets[3] = {offsetof(Record, tag), offsetof(Record, value),
                               offsetof(Record, small)};
  const MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_SHORT};
  MPI_Datatype raw = MPI_DATATYPE_NULL, sized = MPI_DATATYPE_NULL;
  MPI_Type_create_struct(3, lengths, offsets, types, &raw);
  MPI_Type_create_resized(raw, 0, sizeof(Record), &sized);
  MPI_Type_free(&raw);
  OwnedType type(sized);
  for (Algorithm algorithm : concrete_algorithms()) {
    for (int count : {1, 100, 30000}) {
      const int root = procs / 2;
      std::vector<Record> records(count);
      std::memset(records.data(), rank == root ? 0x11 : 0xAB, records.size() * sizeof(Record));
      if (rank == root) {
        for (int i = 0; i < count; ++i) records[i] = {char('a' + i % 26), i * 0.25, short(i % 1000)};
      } else {
        for (Record& r : records) r.tag = 0, r.value = 0, r.small = 0;  // padding stays 0xAB
      }
      ASSERT_EQ(bcast(records.data(), count, type, root, MPI_COMM_WORLD, algorithm), MPI_SUCCESS);
      int wrong = 0;
      for (int i = 0; i < count; ++i) {
        const Record& r = records[i];
        wrong += r.tag != char('a' + i % 26) || r.value != i * 0.25 || r.small != short(i % 1000);
        if (rank != root) {
          const auto* bytes = reinterpret_cast<const unsigned char*>(&r);
          for (std::size_t b = 1; b < offsetof(Record, value); ++b) wrong += bytes[b] != 0xAB;
          for (std::size_t b = offsetof(Record, small) + sizeof(short); b < sizeof(Record); ++b) {
            wrong += bytes[b] != 0xAB;
          }
        }
      }
      EXPECT_EQ(wrong, 0) << to_string(algorithm) << " count=" << count;
    }
  }
}

// Root: `n` contiguous ints. Receivers: one vector of n ints with stride 2 (or the other
// way round): the same type signature, different layouts (cf. Open MPI issue 10523).
TEST(BcastDatatype, DifferentTypesWithTheSameSignature) {
  const int procs = world_size(), rank = world_rank();
  for (bool root_contiguous : {true, false}) {
    for (Algorithm algorithm : concrete_algorithms()) {
      for (int n : {1, procs, 40000, 200000}) {
        MPI_Datatype strided_raw = MPI_DATATYPE_NULL;
        MPI_Type_vector(n, 1, 2, MPI_INT, &strided_raw);
        OwnedType strided(strided_raw);
        const int root = 0;
        const bool contiguous = (rank == root) == root_contiguous;
        std::vector<int> data(contiguous ? n : 2 * n, -1);
        if (rank == root) {
          for (int i = 0; i < n; ++i) data[contiguous ? i : 2 * i] = i + 1;
        }
        const int rc = contiguous
                           ? bcast(data.data(), n, MPI_INT, root, MPI_COMM_WORLD, algorithm)
                           : bcast(data.data(), 1, strided, root, MPI_COMM_WORLD, algorithm);
        ASSERT_EQ(rc, MPI_SUCCESS);
        int wrong = 0;
        for (int i = 0; i < n; ++i) {
          if (contiguous) {
            wrong += data[i] != i + 1;
          } else {
            wrong += data[2 * i] != i + 1 || (rank != root && data[2 * i + 1] != -1);
          }
        }
        EXPECT_EQ(wrong, 0) << to_string(algorithm) << " n=" << n
                            << " root_contiguous=" << root_contiguous;
      }
    }
  }
}

// MPI_BOTTOM with a struct of absolute addresses over two separate arrays (MPICH's
// MPI_Pack refuses a NULL buffer, which leancast works around).
TEST(BcastDatatype, BottomWithAbsoluteAddresses) {
  const int procs = world_size(), rank = world_rank();
  std::vector<Algorithm> algorithms(concrete_algorithms().begin(), concrete_algorithms().end());
  algorithms.push_back(Algorithm::mpi);
  for (Algorithm algorithm : algorithms) {
    for (int n : {1, 3000, 70000}) {
      const int root = n % procs;
      std::vector<int> ints(n, rank == root ? 0 : -1);
      std::vector<double> doubles(n / 2 + 1, rank == root ? 0 : -1);
      if (rank == root) {
        for (int i = 0; i < n; ++i) ints[i] = 5 * i + 1;
        for (std::size_t i = 0; i < doubles.size(); ++i) doubles[i] = i * 0.125;
      }
      const int lengths[2] = {n, static_cast<int>(doubles.size())};
      MPI_Aint addresses[2];
      MPI_Get_address(ints.data(), &addresses[0]);
      MPI_Get_address(doubles.data(), &addresses[1]);
      const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
      MPI_Datatype absolute = MPI_DATATYPE_NULL;
      MPI_Type_create_struct(2, lengths, addresses, types, &absolute);
      OwnedType type(absolute);
      ASSERT_EQ(bcast(MPI_BOTTOM, 1, type, root, MPI_COMM_WORLD, algorithm), MPI_SUCCESS);
      int wrong = 0;
      for (int i = 0; i < n; ++i) wrong += ints[i] != 5 * i + 1;
      for (std::size_t i = 0; i < doubles.size(); ++i) wrong += doubles[i] != i * 0.125;
      EXPECT_EQ(wrong, 0) << to_string(algorithm) << " n=" << n;
    }
  }
}

}  // namespace
}  // namespace leancast::test
