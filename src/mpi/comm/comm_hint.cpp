#include "mpi/comm/comm_hint.hpp"

#include <optional>
#include <string>
#include <vector>

#include "mpi/base/rank0_log.hpp"

namespace leancast::detail {

namespace {

// The attribute: a valid hint (copied to duplicates), or a record that the communicator
// has none, with the last bad value warned about (neither is copied).
struct CommHint {
  std::optional<AlgorithmSpec> algorithm;
  std::string rejected;
};

int copy_hint(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  const auto* hint = static_cast<const CommHint*>(in);
  *flag = 0;
  if (hint == nullptr || !hint->algorithm) return MPI_SUCCESS;
  try {
    *static_cast<void**>(out) = new CommHint{hint->algorithm, {}};
    *flag = 1;
  } catch (...) {
    return MPI_ERR_NO_MEM;
  }
  return MPI_SUCCESS;
}

int delete_hint(MPI_Comm, int, void* hint, void*) {
  delete static_cast<CommHint*>(hint);
  return MPI_SUCCESS;
}

int hint_keyval() {
  static const int key = [] {
    int made = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(copy_hint, delete_hint, &made, nullptr) != MPI_SUCCESS) {
      made = MPI_KEYVAL_INVALID;
    }
    return made;
  }();
  return key;
}

CommHint* attached(MPI_Comm comm) {
  void* value = nullptr;
  int found = 0;
  if (hint_keyval() == MPI_KEYVAL_INVALID ||
      MPI_Comm_get_attr(comm, hint_keyval(), &value, &found) != MPI_SUCCESS || !found) {
    return nullptr;
  }
  return static_cast<CommHint*>(value);
}

// Gives `comm` the attribute `hint` (replacing one it had).
void attach(MPI_Comm comm, CommHint hint) {
  auto* made = new CommHint(std::move(hint));
  if (MPI_Comm_set_attr(comm, hint_keyval(), made) != MPI_SUCCESS) delete made;
}

}  // namespace

std::optional<std::string> algorithm_info_value(MPI_Info info) {
  if (info == MPI_INFO_NULL) return std::nullopt;
  int length = 0, found = 0;
  if (MPI_Info_get_valuelen(info, kAlgorithmInfoKey, &length, &found) != MPI_SUCCESS || !found) {
    return std::nullopt;
  }
  std::vector<char> text(static_cast<std::size_t>(length) + 1, '\0');
  if (MPI_Info_get(info, kAlgorithmInfoKey, length, text.data(), &found) != MPI_SUCCESS || !found) {
    return std::nullopt;
  }
  return std::string(text.data());
}

std::optional<std::optional<AlgorithmSpec>> take_hint(MPI_Comm comm, MPI_Info info, bool replace) {
  if (comm == MPI_COMM_NULL || hint_keyval() == MPI_KEYVAL_INVALID) return std::nullopt;
  int inter = 0;
  if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return std::nullopt;
  const std::optional<std::string> value = algorithm_info_value(info);
  if (!value && !replace) return std::nullopt;
  CommHint hint;
  if (CommHint* old = attached(comm)) hint.rejected = old->rejected;
  if (value) {
    std::string error;
    auto spec = parse_algorithm_spec(*value, &error);
    if (spec && error.empty()) error = parameter_problem(*spec);
    if (spec && error.empty()) {
      hint.algorithm = spec;
    } else if (hint.rejected != *value) {
      hint.rejected = *value;
      int rank = 0, size = 0;
      MPI_Comm_rank(comm, &rank);
      MPI_Comm_size(comm, &size);
      if (rank == 0) {
        log_print(std::string("info ") + kAlgorithmInfoKey + "=" + *value +
                  " on a communicator of " + std::to_string(size) + " ranks: " + error +
                  "; the hint is ignored");
      }
    }
  }
  std::optional<AlgorithmSpec> algorithm = hint.algorithm;
  attach(comm, std::move(hint));
  return algorithm;
}

void set_comm_hint(MPI_Comm comm, const std::optional<AlgorithmSpec>& algorithm) {
  if (hint_keyval() != MPI_KEYVAL_INVALID) attach(comm, {algorithm, {}});
}

std::optional<AlgorithmSpec> comm_hint(MPI_Comm comm) {
#ifdef LEANCAST_SMPI
  (void)comm;
  return std::nullopt;
#else
  if (const CommHint* hint = attached(comm)) return hint->algorithm;
  if (hint_keyval() == MPI_KEYVAL_INVALID) return std::nullopt;
  // Never told: what the MPI library kept, once (then the attribute answers).
  MPI_Info info = MPI_INFO_NULL;
  if (MPI_Comm_get_info(comm, &info) != MPI_SUCCESS) info = MPI_INFO_NULL;
  take_hint(comm, info, true);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  const CommHint* hint = attached(comm);
  return hint != nullptr ? hint->algorithm : std::nullopt;
#endif
}

}  // namespace leancast::detail
