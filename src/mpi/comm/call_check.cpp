#include "mpi/comm/call_check.hpp"

#include <array>
#include <climits>
#include <cstring>
#include <limits>
#include <vector>

namespace leancast::detail {

namespace {

bool is_predefined(MPI_Datatype type) {
  int integers = 0, addresses = 0, types = 0, combiner = 0;
  MPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
  return combiner == MPI_COMBINER_NAMED;
}

constexpr std::uint64_t kUnknown = std::numeric_limits<std::uint64_t>::max();

enum Field {
  problem,
  root,
  bytes,
  algorithm,
  parameter,
  between,
  between_parameter,
  within,
  within_parameter,
  kFields
};

using Values = std::array<std::uint64_t, kFields>;

Values values_of(const CallSignature& call) {
  Values v{};
  v.fill(kUnknown);
  v[problem] = static_cast<std::uint64_t>(call.problem);
  v[root] = static_cast<std::uint64_t>(static_cast<std::int64_t>(call.root));
  if (call.bytes) v[bytes] = *call.bytes;
  if (call.algorithm) {
    const AlgorithmSpec& spec = *call.algorithm;
    v[algorithm] = static_cast<std::uint64_t>(spec.algorithm);
    v[parameter] = spec.parameter;
    v[between] = static_cast<std::uint64_t>(spec.between_nodes.algorithm);
    v[between_parameter] = spec.between_nodes.parameter;
    v[within] = static_cast<std::uint64_t>(spec.within_nodes.algorithm);
    v[within_parameter] = spec.within_nodes.parameter;
  }
  return v;
}

// One rank's part of the second collective.
struct Entry {
  Values values;
  char spec[112];
};

// "rank 3", "ranks 0-2", "ranks 0, 2, 4-6".
std::string ranks_text(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (i > 0) text += ",";
    text += std::to_string(ranks[i]);
    if (j > i) text += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return text;
}

// "ranks 0-2 root 0, rank 3 root 1" for the ranks whose value is known, or "" if those
// agree. `show` writes one rank's value.
template <typename Show>
std::string groups(const std::vector<Entry>& all, Field field, Show show) {
  std::vector<std::pair<std::string, std::vector<int>>> seen;  // in order of first rank
  for (int r = 0; r < static_cast<int>(all.size()); ++r) {
    if (all[r].values[field] == kUnknown) continue;
    std::string value = show(all[r]);
    auto it = seen.begin();
    while (it != seen.end() && it->first != value) ++it;
    if (it == seen.end()) {
      seen.emplace_back(std::move(value), std::vector<int>{r});
    } else {
      it->second.push_back(r);
    }
  }
  if (seen.size() < 2) return "";
  std::string text;
  for (const auto& [value, ranks] : seen) {
    if (!text.empty()) text += ", ";
    text += ranks_text(ranks) + " " + value;
  }
  return text;
}

std::string class_text(int error_class) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(error_class, text, &length) != MPI_SUCCESS) return "an error";
  return std::string(text, static_cast<std::size_t>(length));
}

Outcome describe(const std::vector<Entry>& all) {
  std::string message = "leancast: LEANCAST_CHECK: the ranks disagree on";
  int error_class = MPI_SUCCESS;
  bool first = true;
  auto add = [&](int cls, const std::string& what, const std::string& detail) {
    if (detail.empty()) return;
    message += (first ? " " : "; on ") + what + ": " + detail;
    first = false;
    if (error_class == MPI_SUCCESS) error_class = cls;
  };
  add(MPI_ERR_ROOT, "the root", groups(all, root, [](const Entry& e) {
        return "root " + std::to_string(static_cast<std::int64_t>(e.values[root]));
      }));
  add(MPI_ERR_COUNT, "the byte count", groups(all, bytes, [](const Entry& e) {
        return std::to_string(e.values[bytes]) + " bytes";
      }));
  // The algorithm without its parameters, then with them.
  const std::string named = groups(all, algorithm, [](const Entry& e) {
    return std::to_string(e.values[algorithm]) + "/" + std::to_string(e.values[between]) + "/" +
           std::to_string(e.values[within]);
  });
  const auto spec = [](const Entry& e) { return std::string(e.spec); };
  if (!named.empty()) {
    add(MPI_ERR_ARG, "the algorithm", groups(all, algorithm, spec));
  } else {
    add(MPI_ERR_ARG, "the algorithm's parameter", groups(all, algorithm, spec));
  }
  std::vector<int> failed;
  for (int r = 0; r < static_cast<int>(all.size()); ++r) {
    if (all[r].values[problem] != 0) failed.push_back(r);
  }
  if (!failed.empty()) {
    std::string detail;
    for (int r : failed) {
      if (!detail.empty()) detail += ", ";
      detail +=
          "rank " + std::to_string(r) + " " + class_text(static_cast<int>(all[r].values[problem]));
    }
    if (first) {
      message =
          "leancast: LEANCAST_CHECK: the arguments of some ranks failed their checks: " + detail;
    } else {
      message += "; and the arguments of some ranks failed their checks: " + detail;
    }
    if (error_class == MPI_SUCCESS) error_class = MPI_ERR_OTHER;
  }
  if (error_class == MPI_SUCCESS) {  // the values differ where they are unknown only
    error_class = MPI_ERR_OTHER;
    message += " what they know about this broadcast";
  }
  return {error_class, message};
}

}  // namespace

Outcome agree_on_call(PrivateComm& state, const CallSignature& mine) {
  const Values values = values_of(mine);
  std::array<std::uint64_t, 2 * kFields> send{}, most{};
  for (int i = 0; i < kFields; ++i) {
    send[i] = values[i];
    send[kFields + i] = ~values[i];  // max of the complements: the complement of the min
  }
  if (int rc = own_collective(state,
                              [&](MPI_Comm comm, MPI_Request* request) {
                                return PMPI_Iallreduce(send.data(), most.data(), 2 * kFields,
                                                       MPI_UINT64_T, MPI_MAX, comm, request);
                              });
      rc != MPI_SUCCESS) {
    return {rc, {}};
  }
  bool same = true;
  for (int i = 0; i < kFields; ++i) same = same && most[i] == ~most[kFields + i];
  if (same) return {};
  Entry entry{};
  entry.values = values;
  const std::string spec = mine.algorithm ? to_string(*mine.algorithm) : "?";
  std::strncpy(entry.spec, spec.c_str(), sizeof entry.spec - 1);
  std::vector<Entry> all(static_cast<std::size_t>(state.size()));
  if (int rc = own_collective(state,
                              [&](MPI_Comm comm, MPI_Request* request) {
                                return PMPI_Iallgather(&entry, sizeof entry, MPI_BYTE, all.data(),
                                                       sizeof entry, MPI_BYTE, comm, request);
                              });
      rc != MPI_SUCCESS) {
    return {rc, {}};
  }
  return describe(all);
}

std::optional<Problem> check_arguments(const BcastCall& call, int size, bool& predefined) {
  if (call.count < 0) return Problem::negative_count;
  if (call.type == MPI_DATATYPE_NULL) return Problem::null_datatype;
  predefined = is_predefined(call.type);
  if (!predefined) {
    // Packing zero elements checks the datatype, commit included, in both MPI libraries.
    char scratch = 0;
    int position = 0;
    const int rc = MPI_Pack(call.buf, 0, call.type, &scratch, 0, &position, local_check_comm());
    int error_class = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &error_class);
    if (error_class == MPI_ERR_TYPE) return Problem::uncommitted_datatype;
    MPI_Count element = 0;
    MPI_Type_size_x(call.type, &element);
    if (packs_with_int_sizes_only() && element > INT_MAX) return Problem::element_too_large;
  }
  if (auto problem = check_buffer(call, predefined)) return problem;
  if (call.root < 0 || call.root >= size) return Problem::invalid_root;
  return std::nullopt;
}

int fail_checked(const BcastCall& call, PrivateComm* state, int code) {
  if (state != nullptr) {
    int error_class = MPI_ERR_OTHER;
    MPI_Error_class(code, &error_class);
    agree_on_call(*state, {error_class, call.root, std::nullopt, std::nullopt});
  }
  return raise_code(call.comm, code);
}

}  // namespace leancast::detail
