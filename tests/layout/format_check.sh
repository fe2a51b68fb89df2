#!/usr/bin/env bash
# Every tracked C and C++ file (.cpp .hpp .h .c; templates such as *.cpp.in aside) is as
# clang-format formats it by the repository's .clang-format: exit 1 naming each one that is
# not, with the command that fixes it.
# Usage: format_check.sh [REPOSITORY_ROOT] (default: this checkout). CLANG_FORMAT names the
# binary (default: clang-format).
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
tool=${CLANG_FORMAT:-clang-format}
cd "$root" || exit 1
if ! command -v "$tool" > /dev/null; then
  echo "format_check: $tool not found (scripts/install-deps.sh installs clang-format)" >&2
  exit 1
fi
# Tracked files and new ones git does not ignore, as in the working tree; outside a git
# checkout (an unpacked source archive) every such file under the root.
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard -- \
    '*.cpp' '*.hpp' '*.h' '*.c')
else
  mapfile -t files < <(find . -path ./build -prune -o -type f \
    \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.c' \) -print | sed 's|^\./||' | sort)
fi
bad=()
for f in "${files[@]}"; do
  [[ -f $f ]] || continue  # deleted in the working tree, not yet in the index
  "$tool" --style=file --dry-run --Werror "$f" > /dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  printf 'format_check: not formatted: %s\n' "${bad[@]}"
  echo "format_check: ${#bad[@]} of ${#files[@]} files; fix with: $tool -i ${bad[*]}"
  exit 1
fi
echo "format_check: ok (${#files[@]} files, $("$tool" --version | grep -o 'version [0-9.]*'))"
