#include "mpi/base/errors.hpp"

#include <array>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include <leancast/algorithm.hpp>

namespace leancast::detail {

namespace {

struct ProblemInfo {
  int error_class;
  const char* message;
};

// Indexed by Problem; unknown_algorithm's message gets the list of names appended.
constexpr std::array<ProblemInfo, 10> kProblems{{
    {MPI_ERR_COMM, "leancast: MPI_COMM_NULL is not a valid communicator"},
    {MPI_ERR_COUNT, "leancast: negative count"},
    {MPI_ERR_TYPE, "leancast: MPI_DATATYPE_NULL is not a valid datatype"},
    {MPI_ERR_TYPE, "leancast: datatype is not committed (MPI_Type_commit)"},
    {MPI_ERR_BUFFER, "leancast: NULL buffer with count > 0"},
    {MPI_ERR_BUFFER, "leancast: MPI_IN_PLACE is not a valid broadcast buffer"},
    {MPI_ERR_ROOT, "leancast: root is not a rank of the communicator"},
    {MPI_ERR_ARG, "leancast: unknown algorithm name or bad parameter"},
    {MPI_ERR_TYPE,
     "leancast: a datatype element of more than INT_MAX bytes cannot be packed with this MPI "
     "library (MPI_Pack takes int sizes before MPI 4)"},
    {MPI_ERR_ARG, "leancast: the request argument is NULL"},
}};

std::string message_of(Problem problem) {
  std::string message = kProblems[static_cast<std::size_t>(problem)].message;
  if (problem == Problem::unknown_algorithm) message += " (" + leancast::algorithm_names() + ")";
  // MPI_Add_error_string refuses (through MPI_COMM_WORLD's handler, fatal by default) text
  // that does not fit MPI_MAX_ERROR_STRING (256 in Open MPI); the list of names may not.
  const std::size_t room = MPI_MAX_ERROR_STRING - 1;
  if (message.size() > room) message = message.substr(0, room - 4) + "...)";
  return message;
}

std::once_flag codes_once;
std::array<int, kProblems.size()> codes{};

// True if MPI_Error_string gives back exactly `message` for `code`.
bool reads_back(int code, std::string_view message) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  return MPI_Error_string(code, text, &length) == MPI_SUCCESS &&
         std::string_view(text, static_cast<std::size_t>(length)) == message;
}

// Error codes with leancast's messages; plain class codes if the MPI library refuses or
// garbles them (MPICH 4.0 encodes a code added to a predefined class without its dynamic
// bit, so MPI_Error_string then prints an unrelated error stack).
void make_codes() {
  for (std::size_t i = 0; i < kProblems.size(); ++i) {
    const int error_class = kProblems[i].error_class;
    const std::string message = message_of(static_cast<Problem>(i));
    int code = error_class;
    if (MPI_Add_error_code(error_class, &code) != MPI_SUCCESS ||
        MPI_Add_error_string(code, const_cast<char*>(message.c_str())) != MPI_SUCCESS ||
        !reads_back(code, message)) {
      code = error_class;
    }
    codes[i] = code;
  }
}

}  // namespace

int raise_problem(MPI_Comm comm, Problem problem) {
  std::call_once(codes_once, make_codes);
  return raise_code(comm, codes[static_cast<std::size_t>(problem)]);
}

int problem_code(Problem problem) {
  std::call_once(codes_once, make_codes);
  return codes[static_cast<std::size_t>(problem)];
}

std::string error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "code " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

int raise_message(MPI_Comm comm, int code, const std::string& message) {
  if (code == MPI_SUCCESS || message.empty()) return raise_code(comm, code);
  int error_class = MPI_ERR_OTHER;
  MPI_Error_class(code, &error_class);
  // One code per class, made on first use; its string is the latest message.
  static std::mutex lock;
  static std::map<int, int> message_codes;
  std::string text = message.substr(0, MPI_MAX_ERROR_STRING - 1);
  int raised = error_class;
  {
    const std::lock_guard<std::mutex> guard(lock);
    auto it = message_codes.find(error_class);
    if (it == message_codes.end()) {
      int made = error_class;
      if (MPI_Add_error_code(error_class, &made) != MPI_SUCCESS) made = error_class;
      it = message_codes.emplace(error_class, made).first;
    }
    if (it->second != error_class &&
        MPI_Add_error_string(it->second, const_cast<char*>(text.c_str())) == MPI_SUCCESS &&
        reads_back(it->second, text)) {
      raised = it->second;
    }
  }
  if (raised == error_class) std::fprintf(stderr, "%s\n", text.c_str());
  return raise_code(comm, raised);
}

int raise_code(MPI_Comm comm, int code) {
  if (code == MPI_SUCCESS) return code;
  MPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, code);
  return code;
}

}  // namespace leancast::detail
