#include "mpi/run/byte_buffer.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <utility>

#include "schedule/byte_size.hpp"

namespace leancast::detail {

namespace {

// Packed bytes per piece (whole elements, at least one). A piece is packed when a send
// first needs it and unpacked when its last byte arrives, so a piece larger than the
// pipelines' default segment (64 KiB) holds back the first send and the unpacking. Measured
// at P = 2 (Open MPI 4.1, 1-256 MiB of resized, vector and indexed types of doubles):
// pieces of 64-256 KiB within noise of each other; 1 MiB up to 1.7x and one whole piece
// 1.3-2x slower at 256 MiB. MPI_Pack itself runs at 8.5-14 GB/s from 64 KiB pieces up
// (Open MPI and MPICH), about as fast as with one call for everything.
constexpr std::uint64_t kPieceBytes = std::uint64_t{64} << 10;
// A piece's int element count and (but for one element) its int byte size must suffice
// for MPI_Pack.
constexpr std::uint64_t kMaxPieceBytes = std::uint64_t{1} << 30;

// Test hook: LEANCAST_TEST_PIECE_BYTES (bytes, K/M/G suffixes) sets the piece size, so that
// tests cut small data into many pieces. Read once; not a tuning setting.
std::uint64_t piece_target() {
  static const std::uint64_t bytes = [] {
    const char* text = std::getenv("LEANCAST_TEST_PIECE_BYTES");
    const auto parsed = text != nullptr ? parse_byte_size(text) : std::nullopt;
    return parsed && *parsed > 0 ? std::min(*parsed, kMaxPieceBytes) : kPieceBytes;
  }();
  return bytes;
}

// An element of more than INT_MAX bytes needs MPI_Pack_c (MPI 4), used only then; MPI 3
// libraries have none, and bcast refuses such elements there before communicating.
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
  const int rc =
      MPI_Pack(in, static_cast<int>(n), type, out, static_cast<int>(bytes), &position, comm);
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

// Address of element `index` of a buffer that may be MPI_BOTTOM (absolute addresses):
// elements lie an extent apart, whatever their size.
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
  if (int rc = MPI_Type_create_hindexed(1, &block, &displacement, type, &shifted);
      rc != MPI_SUCCESS) {
    return rc;
  }
  int rc = MPI_Type_commit(&shifted);
  if (rc == MPI_SUCCESS) rc = fn(&anchor, 1, shifted);
  MPI_Type_free(&shifted);
  return rc;
}

// The packed buffer of this thread's last broadcast, kept for the next one: a fresh
// allocation costs the kernel's page faults and zeroing on first touch (here 0.36 s per
// GiB, slower than the transfer itself), which MPI_Bcast, packing into its own small
// fragments, never pays. A broadcast takes the kept buffer if it fits and is at most twice
// its need, else frees it; so each thread keeps at most one packed buffer, of at most
// twice its last packed broadcast.
struct KeptBuffer {
  std::unique_ptr<std::byte[]> bytes;
  std::uint64_t capacity = 0;
};
thread_local KeptBuffer kept;

// new T[] leaves the bytes uninitialised: no pass over a buffer of up to gigabytes before
// the first byte moves.
KeptBuffer take_buffer(std::uint64_t bytes) {
  if (kept.bytes && kept.capacity >= bytes && kept.capacity / 2 <= bytes) {
    return std::exchange(kept, {});
  }
  kept = {};  // freed before the new one is allocated
  return {std::unique_ptr<std::byte[]>(new std::byte[bytes]), bytes};
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
  // Only predefined types: a derived type may list its bytes in another order than memory
  // (a struct of an int at 4, then an int at 0, has no gaps and is still no plain copy).
  info.in_place = combiner == MPI_COMBINER_NAMED && lb == 0 && extent == size;
  return MPI_SUCCESS;
}

int ByteBuffer::open(void* buf, MPI_Count count, MPI_Datatype type, const TypeInfo& info,
                     bool is_root, MPI_Comm comm) {
  user_ = buf;
  type_ = type;
  comm_ = comm;
  total_bytes_ = info.bytes;
  unpack_at_close_ = false;
  if (info.in_place) {
    data_ = static_cast<std::byte*>(buf);
    return MPI_SUCCESS;
  }
  MPI_Aint lb = 0;
  MPI_Count size = 0;
  if (int rc = MPI_Type_get_extent(type, &lb, &extent_); rc != MPI_SUCCESS) return rc;
  if (int rc = MPI_Type_size_x(type, &size); rc != MPI_SUCCESS) return rc;
  element_bytes_ = static_cast<std::uint64_t>(size);  // > 0: bcast moves no empty types
  per_piece_ = static_cast<MPI_Count>(std::max<std::uint64_t>(1, piece_target() / element_bytes_));
  piece_bytes_ = element_bytes_ * static_cast<std::uint64_t>(per_piece_);
  const auto elements = static_cast<std::uint64_t>(count);
  const auto per_piece = static_cast<std::uint64_t>(per_piece_);
  const std::uint64_t pieces = (elements + per_piece - 1) / per_piece;
  done_.assign(pieces, false);
  pieces_left_ = pieces;
  held_.clear();
  KeptBuffer buffer = take_buffer(total_bytes_);
  packed_ = std::move(buffer.bytes);
  capacity_ = buffer.capacity;
  data_ = packed_.get();
  packs_ = is_root;
  unpacks_ = !is_root;
  return MPI_SUCCESS;
}

ByteBuffer::~ByteBuffer() {
  if (packed_) kept = {std::move(packed_), capacity_};
}

ByteRange ByteBuffer::piece(std::uint64_t index) const {
  const std::uint64_t offset = index * piece_bytes_;
  return {offset, std::min(piece_bytes_, total_bytes_ - offset)};
}

int ByteBuffer::pack_piece(std::uint64_t index) { return move_piece(index, true); }

int ByteBuffer::unpack_piece(std::uint64_t index) { return move_piece(index, false); }

// Packs (root) or unpacks (receiver) the elements of piece `index`.
int ByteBuffer::move_piece(std::uint64_t index, bool packing) {
  const ByteRange bytes = piece(index);
  const MPI_Count first = static_cast<MPI_Count>(index) * per_piece_;
  const MPI_Count n = static_cast<MPI_Count>(bytes.length / element_bytes_);
  std::byte* packed = data_ + bytes.offset;
  const int rc =
      at_real_address(element(user_, extent_, first), n, type_,
                      [&](void* user, MPI_Count elements, MPI_Datatype as) {
                        return packing ? pack(user, elements, as, packed, bytes.length, comm_)
                                       : unpack(packed, bytes.length, user, elements, as, comm_);
                      });
  if (rc == MPI_SUCCESS) done_[index] = true, --pieces_left_;
  return rc;
}

int ByteBuffer::prepare(ByteRange bytes) {
  if (!packs_ || pieces_left_ == 0 || bytes.length == 0) return MPI_SUCCESS;
  const std::uint64_t last = (bytes.offset + bytes.length - 1) / piece_bytes_;
  for (std::uint64_t i = bytes.offset / piece_bytes_; i <= last; ++i) {
    if (done_[i]) continue;
    if (int rc = pack_piece(i); rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int ByteBuffer::received(ByteRange bytes) {
  if (!unpacks_ || unpack_at_close_ || pieces_left_ == 0 || bytes.length == 0) return MPI_SUCCESS;
  held_.add(bytes);
  // Only a piece that `bytes` overlaps can have become complete now.
  const std::uint64_t last = (bytes.offset + bytes.length - 1) / piece_bytes_;
  for (std::uint64_t i = bytes.offset / piece_bytes_; i <= last; ++i) {
    if (done_[i] || !held_.holds(piece(i))) continue;
    if (int rc = unpack_piece(i); rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int ByteBuffer::close() {
  if (!unpacks_) return MPI_SUCCESS;
  for (std::uint64_t i = 0; pieces_left_ > 0 && i < done_.size(); ++i) {
    if (done_[i]) continue;
    if (int rc = unpack_piece(i); rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace leancast::detail
