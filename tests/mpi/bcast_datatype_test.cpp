// Derived datatypes: packed piece by piece, unpacked into exactly the bytes of the type
// map, with root and receivers free to use different datatypes of the same signature.
// Under LEANCAST_TEST_PIECE_BYTES (the *.bcast_pieces tests) a piece holds a few elements.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include <leancast/leancast.hpp>

#include "mpi/run/byte_buffer.hpp"
#include "schedule/byte_size.hpp"
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
  char tag;  // 7 bytes of padding follow
  double value;
  short small;  // 6 bytes of padding follow
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
        for (int i = 0; i < count; ++i)
          records[i] = {char('a' + i % 26), i * 0.25, short(i % 1000)};
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
        const int rc = contiguous ? bcast(data.data(), n, MPI_INT, root, MPI_COMM_WORLD, algorithm)
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

// Type maps that start below the buffer's address or run backwards: a negative lower bound,
// a negative stride, a struct with a negative displacement, a subarray, and a type of size
// 0. Every algorithm leaves the buffer byte for byte as the library's own broadcast does,
// bytes outside the type map untouched.
TEST(BcastDatatype, OddTypeMapsMatchTheLibraryByteForByte) {
  const int procs = world_size(), rank = world_rank();
  std::vector<std::pair<const char*, MPI_Datatype>> types;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  MPI_Type_create_resized(MPI_INT, -8, 16, &t);
  types.emplace_back("negative lower bound", t);
  MPI_Type_vector(3, 2, -4, MPI_INT, &t);
  types.emplace_back("negative stride", t);
  const int lengths[2] = {1, 1};
  const MPI_Aint offsets[2] = {-40, 24};
  const MPI_Datatype members[2] = {MPI_DOUBLE, MPI_SHORT};
  MPI_Type_create_struct(2, lengths, offsets, members, &t);
  types.emplace_back("negative displacement", t);
  const int sizes[2] = {7, 9}, sub[2] = {3, 4}, start[2] = {2, 3};
  MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_FORTRAN, MPI_FLOAT, &t);
  types.emplace_back("subarray", t);
  MPI_Type_contiguous(0, MPI_INT, &t);
  types.emplace_back("size 0", t);
  std::vector<Algorithm> algorithms(concrete_algorithms().begin(), concrete_algorithms().end());
  algorithms.push_back(Algorithm::mpi);
  for (auto& [what, raw] : types) {
    OwnedType type(raw);
    MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &true_lb, &true_extent);
    for (int count : {1, 5, 3000}) {
      // The buffer's address sits `margin` bytes into the memory, which reaches past both
      // ends of every element's bytes.
      const std::size_t margin = count * std::abs(extent) + true_extent + std::abs(true_lb) + 64;
      std::vector<unsigned char> expected(3 * margin), got(3 * margin);
      for (Algorithm algorithm : algorithms) {
        const int root = (count + static_cast<int>(algorithm)) % procs;
        for (std::size_t i = 0; i < expected.size(); ++i) {
          expected[i] = got[i] = rank == root ? static_cast<unsigned char>(i * 31 + 7) : 0;
        }
        ASSERT_EQ(PMPI_Bcast(expected.data() + margin, count, type, root, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        ASSERT_EQ(bcast(got.data() + margin, count, type, root, MPI_COMM_WORLD, algorithm),
                  MPI_SUCCESS);
        EXPECT_TRUE(expected == got) << what << ", " << to_string(algorithm) << ", count " << count;
      }
    }
  }
}

// The packed bytes per piece leancast uses: LEANCAST_TEST_PIECE_BYTES or its 64 KiB.
std::uint64_t piece_target() {
  const char* text = std::getenv("LEANCAST_TEST_PIECE_BYTES");
  const auto bytes = text != nullptr ? detail::parse_byte_size(text) : std::nullopt;
  return bytes && *bytes > 0 ? *bytes : std::uint64_t{64} << 10;
}

// Two ints with holes around them: ints 1 and 3 of every 5 (bytes 4-7 and 12-15 of 20).
// Size 8, extent 20: a piece of k elements starts 20k bytes, not 8k, after the previous.
constexpr int kHoledSlots = 5;
constexpr bool in_holed_map(int slot) { return slot % 5 == 1 || slot % 5 == 3; }

MPI_Datatype holed_pair() {
  const int lengths[2] = {1, 1};
  const MPI_Aint offsets[2] = {4, 12};
  const MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  MPI_Datatype raw = MPI_DATATYPE_NULL, sized = MPI_DATATYPE_NULL;
  MPI_Type_create_struct(2, lengths, offsets, types, &raw);
  MPI_Type_create_resized(raw, 0, kHoledSlots * sizeof(int), &sized);
  MPI_Type_free(&raw);
  return sized;
}

// One int, then a hole of two: the same signature as holed_pair at twice the count, cut
// into pieces elsewhere.
MPI_Datatype holed_single() {
  MPI_Datatype sized = MPI_DATATYPE_NULL;
  MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &sized);
  return sized;
}

// Element counts of holed_pair (8 packed bytes): one piece, a piece short of one element,
// several pieces with a short last one, and many (up to 1 MiB of user buffer).
std::vector<int> counts_across_pieces() {
  const int per_piece = static_cast<int>(std::max<std::uint64_t>(1, piece_target() / 8));
  const int many = std::min(per_piece * 401 + 3, 50000);
  std::vector<int> counts{1, std::max(1, per_piece - 1), per_piece * 3 + 1};
  if (many > counts.back()) counts.push_back(many);
  return counts;
}

// The data ints are numbered 0, 1, 2, ... in packed order; holes hold a sentinel.
// Every algorithm, and pipelines whose segments (1000 bytes) cut pieces anywhere.
std::vector<AlgorithmSpec> algorithms_cutting_pieces() {
  std::vector<AlgorithmSpec> specs(concrete_algorithms().begin(), concrete_algorithms().end());
  for (const char* name : {"pipeline-chain:1000", "pipeline-binary-tree:1000", "two-tree:1000"}) {
    specs.push_back(*parse_algorithm_spec(name));
  }
  return specs;
}

TEST(BcastDatatype, PiecesFollowTheExtent) {
  const int procs = world_size(), rank = world_rank();
  OwnedType pair(holed_pair()), single(holed_single());
  for (bool receivers_differ : {false, true}) {
    for (const AlgorithmSpec& algorithm : algorithms_cutting_pieces()) {
      for (int count : counts_across_pieces()) {
        const int root = count % procs;
        const bool as_single = receivers_differ && rank != root;
        const int slots = as_single ? 3 : kHoledSlots;
        const int elements = as_single ? 2 * count : count;
        const auto in_map = [&](int slot) {
          return as_single ? slot % 3 == 0 : in_holed_map(slot);
        };
        const int hole = rank == root ? -7 : -1;
        std::vector<int> data(static_cast<std::size_t>(elements) * slots, hole);
        if (rank == root) {
          for (int i = 0, value = 0; i < static_cast<int>(data.size()); ++i) {
            if (in_map(i)) data[i] = value++;
          }
        }
        ASSERT_EQ(bcast(data.data(), elements, as_single ? single : pair, root, MPI_COMM_WORLD,
                        algorithm),
                  MPI_SUCCESS);
        int wrong = 0, value = 0;
        for (int i = 0; i < static_cast<int>(data.size()); ++i) {
          wrong += data[i] != (in_map(i) ? value++ : hole);
        }
        EXPECT_EQ(wrong, 0) << to_string(algorithm) << " count=" << count
                            << " receivers_differ=" << receivers_differ;
      }
    }
  }
}

// No gaps, but the type map is not in memory order: the int at 4 comes first. Packed (and
// broadcast) bytes follow the type map, so a receiver of plain ints sees each pair
// swapped; sending the memory as it lies would not swap them. MPI_Bcast (mpi) agrees.
TEST(BcastDatatype, GaplessTypeOutOfMemoryOrderIsPacked) {
  const int procs = world_size(), rank = world_rank();
  const int lengths[2] = {1, 1};
  const MPI_Aint offsets[2] = {sizeof(int), 0};
  const MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  MPI_Datatype raw = MPI_DATATYPE_NULL;
  MPI_Type_create_struct(2, lengths, offsets, types, &raw);
  OwnedType swapped(raw);
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(swapped, &lb, &extent);
  ASSERT_EQ(lb, 0);
  ASSERT_EQ(extent, 2 * static_cast<MPI_Aint>(sizeof(int)));
  std::vector<Algorithm> algorithms(concrete_algorithms().begin(), concrete_algorithms().end());
  algorithms.push_back(Algorithm::mpi);
  for (int swapped_ranks : {0, 1, 2}) {  // 0: root swapped, 1: receivers, 2: both
    for (Algorithm algorithm : algorithms) {
      for (int pairs : {1, 1000, 100000}) {
        const int root = pairs % procs;
        const bool is_swapped = rank == root ? swapped_ranks != 1 : swapped_ranks != 0;
        std::vector<int> data(2 * pairs, -1);
        if (rank == root) {
          for (int i = 0; i < 2 * pairs; ++i) data[i] = i;
        }
        const int rc =
            is_swapped ? bcast(data.data(), pairs, swapped, root, MPI_COMM_WORLD, algorithm)
                       : bcast(data.data(), 2 * pairs, MPI_INT, root, MPI_COMM_WORLD, algorithm);
        ASSERT_EQ(rc, MPI_SUCCESS);
        // Receivers see the pair swapped where exactly one side swaps.
        const bool flip = rank != root && swapped_ranks != 2;
        int wrong = 0;
        for (int i = 0; i < 2 * pairs; ++i) wrong += data[i] != (flip ? i ^ 1 : i);
        EXPECT_EQ(wrong, 0) << to_string(algorithm) << " pairs=" << pairs
                            << " swapped_ranks=" << swapped_ranks;
      }
    }
  }
}

// The packed buffer itself, on one rank: the root packs only what prepare asked for, in
// any order; a receiver unpacks each piece once all its bytes arrived, in any order and
// with overlaps, and close() the rest.
TEST(BcastDatatype, ByteBufferPacksAndUnpacksPieceByPiece) {
  OwnedType pair(holed_pair());
  const int per_piece = static_cast<int>(std::max<std::uint64_t>(1, piece_target() / 8));
  const int count = std::min(per_piece * 5 + 3, 200000);
  const std::size_t slots = static_cast<std::size_t>(count) * kHoledSlots;
  std::vector<int> source(slots, -7);
  for (std::size_t i = 0, value = 0; i < slots; ++i) {
    if (in_holed_map(static_cast<int>(i))) source[i] = static_cast<int>(value++);
  }
  const std::uint64_t bytes = static_cast<std::uint64_t>(count) * 8;
  std::vector<std::byte> reference(bytes);
  int position = 0;
  ASSERT_EQ(MPI_Pack(source.data(), count, pair, reference.data(), static_cast<int>(bytes),
                     &position, MPI_COMM_SELF),
            MPI_SUCCESS);
  detail::TypeInfo info;
  ASSERT_EQ(detail::describe_type(count, pair, info), MPI_SUCCESS);
  ASSERT_EQ(info.bytes, bytes);
  ASSERT_FALSE(info.in_place);

  // Ranges of up to 3 pieces' bytes, cut at odd places, in shuffled order; each byte is
  // covered once, then a few ranges again.
  std::mt19937 random(7);
  std::vector<ByteRange> ranges;
  for (std::uint64_t at = 0; at < bytes;) {
    const std::uint64_t length =
        std::min<std::uint64_t>(bytes - at, 1 + random() % (24 * per_piece + 5));
    ranges.push_back({at, length});
    at += length;
  }
  std::shuffle(ranges.begin(), ranges.end(), random);
  for (std::size_t i = 0, n = ranges.size(); i < std::min<std::size_t>(n, 3); ++i) {
    ranges.push_back(ranges[i]);
  }

  detail::ByteBuffer root;
  ASSERT_EQ(root.open(source.data(), count, pair, info, true, MPI_COMM_SELF), MPI_SUCCESS);
  for (const ByteRange& r : ranges) {
    ASSERT_EQ(root.prepare(r), MPI_SUCCESS);
    ASSERT_EQ(std::memcmp(root.data() + r.offset, reference.data() + r.offset, r.length), 0)
        << "offset=" << r.offset << " length=" << r.length;
  }
  ASSERT_EQ(root.close(), MPI_SUCCESS);

  // A receiver given all but the last byte unpacks every piece but the last one there,
  // before close(); nothing outside the type map is written.
  std::vector<int> target(slots, -1);
  detail::ByteBuffer receiver;
  ASSERT_EQ(receiver.open(target.data(), count, pair, info, false, MPI_COMM_SELF), MPI_SUCCESS);
  for (ByteRange r : ranges) {
    if (r.offset + r.length == bytes) --r.length;  // the last byte comes last
    std::memcpy(receiver.data() + r.offset, reference.data() + r.offset, r.length);
    ASSERT_EQ(receiver.received(r), MPI_SUCCESS);
  }
  const std::size_t last_piece_slot =
      static_cast<std::size_t>((count - 1) / per_piece * per_piece) * kHoledSlots;
  int wrong = 0;
  for (std::size_t i = 0; i < slots; ++i) {
    wrong += target[i] != (i < last_piece_slot ? (source[i] == -7 ? -1 : source[i]) : -1);
  }
  EXPECT_EQ(wrong, 0) << "before the last byte";
  std::memcpy(receiver.data() + bytes - 1, reference.data() + bytes - 1, 1);
  ASSERT_EQ(receiver.received({bytes - 1, 1}), MPI_SUCCESS);
  wrong = 0;
  for (std::size_t i = 0; i < slots; ++i) wrong += target[i] != (source[i] == -7 ? -1 : source[i]);
  EXPECT_EQ(wrong, 0) << "after the last byte, before close()";
  ASSERT_EQ(receiver.close(), MPI_SUCCESS);

  // Nothing received: close() unpacks everything.
  std::vector<int> late(slots, -1);
  detail::ByteBuffer closer;
  ASSERT_EQ(closer.open(late.data(), count, pair, info, false, MPI_COMM_SELF), MPI_SUCCESS);
  std::memcpy(closer.data(), reference.data(), bytes);
  ASSERT_EQ(closer.close(), MPI_SUCCESS);
  wrong = 0;
  for (std::size_t i = 0; i < slots; ++i) wrong += late[i] != (source[i] == -7 ? -1 : source[i]);
  EXPECT_EQ(wrong, 0) << "close() alone";
}

}  // namespace
}  // namespace leancast::test
