#include "byte_buffer.hpp"

#include <algorithm>
#include <cstring>

namespace leancast::detail {

namespace {

// MPI_Pack and MPI_Unpack take int sizes: pack in pieces of whole elements of at most
// about 1 GiB, so buffers beyond 2 GiB work too.
constexpr std::uint64_t kPieceBytes = std::uint64_t{1} << 30;

struct Pieces {
  MPI_Aint extent = 0;
  std::uint64_t element_bytes = 0;
  int per_piece = 1;
};

int pieces_of(MPI_Datatype type, Pieces& pieces) {
  MPI_Aint lb = 0;
  MPI_Count size = 0;
  if (int rc = MPI_Type_get_extent(type, &lb, &pieces.extent); rc != MPI_SUCCESS) return rc;
  if (int rc = MPI_Type_size_x(type, &size); rc != MPI_SUCCESS) return rc;
  pieces.element_bytes = static_cast<std::uint64_t>(size);
  pieces.per_piece = static_cast<int>(
      std::max<std::uint64_t>(1, kPieceBytes / std::max<std::uint64_t>(1, pieces.element_bytes)));
  return MPI_SUCCESS;
}

// Address of element `index` of a buffer that may be MPI_BOTTOM (absolute addresses).
void* element(void* base, MPI_Aint extent, int index) {
  return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(base) +
                                 static_cast<std::uintptr_t>(extent * index));
}

// Calls fn(first element, elements, byte offset, bytes) for each piece of `count` elements.
template <class Fn>
int for_each_piece(int count, const Pieces& pieces, Fn fn) {
  std::uint64_t offset = 0;
  for (int first = 0; first < count; first += pieces.per_piece) {
    const int n = std::min(pieces.per_piece, count - first);
    const auto bytes = static_cast<int>(pieces.element_bytes * static_cast<std::uint64_t>(n));
    if (int rc = fn(first, n, offset, bytes); rc != MPI_SUCCESS) return rc;
    offset += static_cast<std::uint64_t>(bytes);
  }
  return MPI_SUCCESS;
}

}  // namespace

int describe_type(int count, MPI_Datatype type, TypeInfo& info) {
  MPI_Count size = 0;
  MPI_Count lb = 0, extent = 0;
  if (int rc = MPI_Type_size_x(type, &size); rc != MPI_SUCCESS) return rc;
  if (int rc = MPI_Type_get_extent_x(type, &lb, &extent); rc != MPI_SUCCESS) return rc;
  int integers = 0, addresses = 0, types = 0, combiner = 0;
  if (int rc = MPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
      rc != MPI_SUCCESS) {
    return rc;
  }
  info.bytes = static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
  // Only predefined types: a derived type may list its bytes in another order than memory.
  info.in_place = combiner == MPI_COMBINER_NAMED && lb == 0 && extent == size;
  return MPI_SUCCESS;
}

int ByteBuffer::open(void* buf, int count, MPI_Datatype type, const TypeInfo& info,
                     bool is_root, MPI_Comm comm) {
  user_ = buf;
  count_ = count;
  type_ = type;
  comm_ = comm;
  if (info.in_place) {
    data_ = static_cast<std::byte*>(buf);
    return MPI_SUCCESS;
  }
  packed_.resize(info.bytes);
  data_ = packed_.data();
  unpack_ = !is_root;
  if (!is_root) return MPI_SUCCESS;
  Pieces pieces;
  if (int rc = pieces_of(type, pieces); rc != MPI_SUCCESS) return rc;
  return for_each_piece(count, pieces, [&](int first, int n, std::uint64_t offset, int bytes) -> int {
    int position = 0;
    const int rc = MPI_Pack(element(buf, pieces.extent, first), n, type, data_ + offset, bytes,
                            &position, comm);
    if (rc != MPI_SUCCESS) return rc;
    return position == bytes ? MPI_SUCCESS : MPI_ERR_INTERN;  // a heterogeneous packed format
  });
}

int ByteBuffer::close() {
  if (!unpack_) return MPI_SUCCESS;
  Pieces pieces;
  if (int rc = pieces_of(type_, pieces); rc != MPI_SUCCESS) return rc;
  return for_each_piece(count_, pieces, [&](int first, int n, std::uint64_t offset, int bytes) {
    int position = 0;
    return MPI_Unpack(data_ + offset, bytes, &position, element(user_, pieces.extent, first), n,
                      type_, comm_);
  });
}

}  // namespace leancast::detail
