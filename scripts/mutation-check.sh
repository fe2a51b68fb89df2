#!/usr/bin/env bash
# Shows that a test can fail: copies the working tree, applies one deliberate mistake
# (a Python regular-expression substitution in one file), builds the targets the test
# needs against Open MPI, and runs the test, which must fail (or time out). Prints
# "KILLED" when it does, "SURVIVED" when the mistake passes unnoticed (exit 1).
#
#   scripts/mutation-check.sh FILE PATTERN REPLACEMENT 'CTEST-REGEX' [TARGET...]
# Example (Open MPI's progress engine would never step leancast's broadcasts):
#   scripts/mutation-check.sh src/mpi/requests/tasks.cpp \
#     'register_callback\(&step_in_library_progress\);' '' \
#     'openmpi\.progress_stress\.P3' progress_stress
set -euo pipefail
source "$(dirname "$0")/env.sh"
file=$1 pattern=$2 replacement=$3 tests=$4
shift 4
targets=("$@")
work=$(mktemp -d /tmp/leancast-mutant.XXXXXX)
trap 'rm -rf "$work"' EXIT
(cd "$LEANCAST_ROOT" && git ls-files -co --exclude-standard | tar -cf - -T -) | tar -xf - -C "$work"
python3 - "$work/$file" "$pattern" "$replacement" <<'EOF'
import re, sys
path, pattern, replacement = sys.argv[1:]
text = open(path).read()
mutated, count = re.subn(pattern, replacement, text)
if count == 0:
    sys.exit(f"mutation-check: {pattern!r} is not in {path}")
open(path, "w").write(mutated)
print(f"mutation-check: {count} substitution(s) in {path}")
EOF
cmake -S "$work" -B "$work/build" -DLEANCAST_MPI=openmpi >/dev/null
if ((${#targets[@]})); then
  cmake --build "$work/build" -j "$JOBS" --target "${targets[@]}" >/dev/null
else
  cmake --build "$work/build" -j "$JOBS" >/dev/null
fi
if (cd "$work/build" && timeout 600 ctest -R "$tests" --timeout 120 >"$work/ctest.log" 2>&1); then
  tail -5 "$work/ctest.log"
  echo "SURVIVED: $file: $pattern -> $replacement passes $tests"
  exit 1
fi
grep -E "Failed|Timeout|\*\*\*" "$work/ctest.log" | head -5
echo "KILLED: $file: $pattern -> $replacement fails $tests"
