#include "byte_buffer.hpp"

#include <algorithm>
#include <climits>

namespace leancast::detail {

namespace {

// Packing goes in pieces of whole elements of at most about 1 GiB (or one element, if an
// element is larger), so that the int sizes of MPI_Pack suffice. A single element of more
// than INT_MAX bytes needs MPI_Pack_c (MPI 4), used only then; MPI 3 libraries have none,
// and bcast refuses such elements there before communicating.
constexpr std::uint64_t kPieceBytes = std::uint64_t{1} << 30;

int pack(const void* in, MPI_Count n, MPI_Datatype type, void* out, std::uint64_t bytes,
         MPI_Comm comm) {
#if MPI_VERSION >= 4
  if (bytes > INT_MAX) {
    MPI_Count position = 0;
    const int rc = MPI_Pack_c(in, n, type, out, static_cast<MPI_Count>(bytes), &position, comm);
    return rc != MPI_SUCCESS || static_cast<std::uint64_t>(position) == bytes ? rc : MPI_ERR_INTERN;
  }
#endif
  int position = 0;
  const int rc = MPI_Pack(in, static_cast<int>(n), type, out, static_cast<int>(bytes), &position,
                          comm);
  // A different count means a heterogeneous packed format, which leancast cannot cut.
  return rc != MPI_SUCCESS || static_cast<std::uint64_t>(position) == bytes ? rc : MPI_ERR_INTERN;
}

int unpack(const void* in, std::uint64_t bytes, void* out, MPI_Count n, MPI_Datatype type,
           MPI_Comm comm) {
#if MPI_VERSION >= 4
  if (bytes > INT_MAX) {
    MPI_Count position = 0;
    return MPI_Unpack_c(in, static_cast<MPI_Count>(bytes), &position, out, n, type, comm);
  }
#endif
  int position = 0;
  return MPI_Unpack(in, static_cast<int>(bytes), &position, out, static_cast<int>(n), type, comm);
}

struct Pieces {
  MPI_Aint extent = 0;
  std::uint64_t element_bytes = 0;
  MPI_Count per_piece = 1;
};

int pieces_of(MPI_Datatype type, Pieces& pieces) {
  MPI_Aint lb = 0;
  MPI_Count size = 0;
  if (int rc = MPI_Type_get_extent(type, &lb, &pieces.extent); rc != MPI_SUCCESS) return rc;
  if (int rc = MPI_Type_size_x(type, &size); rc != MPI_SUCCESS) return rc;
  pieces.element_bytes = static_cast<std::uint64_t>(size);
  pieces.per_piece = static_cast<MPI_Count>(
      std::max<std::uint64_t>(1, kPieceBytes / std::max<std::uint64_t>(1, pieces.element_bytes)));
  return MPI_SUCCESS;
}

// Address of element `index` of a buffer that may be MPI_BOTTOM (absolute addresses).
void* element(void* base, MPI_Aint extent, MPI_Count index) {
  return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(base) +
                                 static_cast<std::uintptr_t>(extent * index));
}

// Calls fn(address, n, type) for n elements of `type` at `address`. MPICH's MPI_Pack and
// MPI_Unpack refuse a NULL buffer with a nonzero count, although MPI_BOTTOM (NULL) with
// absolute addresses is valid MPI; for MPI_BOTTOM fn gets instead one element of a type
// that reaches the same bytes from a real address (same type signature, same packed bytes).
template <class Fn>
int at_real_address(void* address, MPI_Count n, MPI_Datatype type, Fn fn) {
  if (address != MPI_BOTTOM) return fn(address, n, type);
  static char anchor;
  MPI_Aint anchor_address = 0;
  MPI_Get_address(&anchor, &anchor_address);
  const MPI_Aint displacement = -anchor_address;
  const int block = static_cast<int>(n);  // n <= elements of one piece, far below INT_MAX
  MPI_Datatype shifted = MPI_DATATYPE_NULL;
  if (int rc = MPI_Type_create_hindexed(1, &block, &displacement, type, &shifted); rc != MPI_SUCCESS) {
    return rc;
  }
  int rc = MPI_Type_commit(&shifted);
  if (rc == MPI_SUCCESS) rc = fn(&anchor, 1, shifted);
  MPI_Type_free(&shifted);
  return rc;
}

// Calls fn(address, elements, type, packed offset, packed bytes) for each piece of `count`
// elements of `type` at `user` (which may be MPI_BOTTOM).
template <class Fn>
int for_each_piece(void* user, MPI_Count count, MPI_Datatype type, Fn fn) {
  Pieces pieces;
  if (int rc = pieces_of(type, pieces); rc != MPI_SUCCESS) return rc;
  std::uint64_t offset = 0;
  for (MPI_Count first = 0; first < count; first += pieces.per_piece) {
    const MPI_Count n = std::min(pieces.per_piece, count - first);
    const std::uint64_t bytes = pieces.element_bytes * static_cast<std::uint64_t>(n);
    const int rc = at_real_address(element(user, pieces.extent, first), n, type,
                                   [&](void* address, MPI_Count elements, MPI_Datatype as) {
                                     return fn(address, elements, as, offset, bytes);
                                   });
    if (rc != MPI_SUCCESS) return rc;
    offset += bytes;
  }
  return MPI_SUCCESS;
}

}  // namespace

bool packs_with_int_sizes_only() { return MPI_VERSION < 4; }

int describe_type(MPI_Count count, MPI_Datatype type, TypeInfo& info) {
  MPI_Count size = 0;
  MPI_Count lb = 0, extent = 0;
  if (int rc = MPI_Type_size_x(type, &size); rc != MPI_SUCCESS) return rc;
  if (int rc = MPI_Type_get_extent_x(type, &lb, &extent); rc != MPI_SUCCESS) return rc;
  int integers = 0, addresses = 0, types = 0, combiner = 0;
  if (int rc = MPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
      rc != MPI_SUCCESS) {
    return rc;
  }
  const auto elements = static_cast<std::uint64_t>(count);
  const auto element_bytes = static_cast<std::uint64_t>(size);
  if (element_bytes != 0 && elements > UINT64_MAX / element_bytes) return MPI_ERR_COUNT;
  info.bytes = elements * element_bytes;
  // Only predefined types: a derived type may list its bytes in another order than memory.
  info.in_place = combiner == MPI_COMBINER_NAMED && lb == 0 && extent == size;
  return MPI_SUCCESS;
}

int ByteBuffer::open(void* buf, MPI_Count count, MPI_Datatype type, const TypeInfo& info,
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
  return for_each_piece(buf, count, type, [&](void* in, MPI_Count n, MPI_Datatype as,
                                              std::uint64_t offset, std::uint64_t bytes) {
    return pack(in, n, as, data_ + offset, bytes, comm);
  });
}

int ByteBuffer::close() {
  if (!unpack_) return MPI_SUCCESS;
  return for_each_piece(user_, count_, type_, [&](void* out, MPI_Count n, MPI_Datatype as,
                                                  std::uint64_t offset, std::uint64_t bytes) {
    return unpack(data_ + offset, bytes, out, n, as, comm_);
  });
}

}  // namespace leancast::detail
