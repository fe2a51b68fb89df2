#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds examples/bcast_check.c two ways
# an outside user would (mpicc + pkg-config leancast-FLAVOR, and a CMake project with
# find_package(leancast COMPONENTS FLAVOR)), and runs each with every algorithm on 3 ranks.
# Before: the installed tools (bin/TOOL.FLAVOR and the unsuffixed defaults) run without
# LD_LIBRARY_PATH (RUNPATH $ORIGIN/../../..), and the installed interposer alone
# (no LD_LIBRARY_PATH) under a plain MPI program, preloaded and linked before the MPI
# library, checked by tests/pmpi/run_preloaded.py.
# Usage: installed_package_test.sh BUILD_DIR SOURCE_DIR MPICC MPIEXEC FLAVOR PYTHON
#                                  [MPIEXEC_FLAGS...]
set -euo pipefail
build=$1 source=$2 mpicc=$3 mpiexec=$4 flavor=$5 python=$6
shift 6
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null

# The tools, from the prefix with a clean environment (no LD_LIBRARY_PATH).
for tool in leancast-plan leancast-bench leancast-tune; do
  for name in "$tool.$flavor" "$tool"; do
    env -i PATH=/usr/bin:/bin timeout 30 "$prefix/bin/$name" --help >/dev/null ||
      { echo "WRONG: $prefix/bin/$name --help fails without LD_LIBRARY_PATH"; exit 1; }
  done
done
# (Outputs captured before matching: grep -q closing a pipe early fails it under pipefail.)
dynamic=$(readelf -d "$prefix/lib/leancast/$flavor/bin/leancast-bench")
grep -q 'RUNPATH.*\[\$ORIGIN/../../..\]' <<<"$dynamic" ||
  { echo "WRONG: leancast-bench has no relocatable RUNPATH"; exit 1; }
plan=$(env -i PATH=/usr/bin:/bin timeout 30 "$prefix/bin/leancast-plan" -a scatter-ring-tuned -p 10 -b 1M)
grep -qE "^allgather +75 " <<<"$plan" || { echo "WRONG: installed leancast-plan: not 75 ring transfers at P = 10"; exit 1; }

interposer="$prefix/lib/libleancast_pmpi_$flavor.so"
if [[ $(ldd "$interposer") == *leancast* ]]; then echo "WRONG: $interposer needs another leancast library"; exit 1; fi
"$mpicc" "$source/tests/pmpi/programs/bcast_semantics.c" -o "$prefix/bcast_semantics"
launcher_flags=()
for flag in "$@"; do launcher_flags+=("--launcher-flag=$flag"); done
driver=("$python" "$source/tests/pmpi/run_preloaded.py" --launcher "$mpiexec" "${launcher_flags[@]}"
        --flavor "$flavor" --procs 2 --plan "$prefix/bin/leancast-plan.$flavor")
"${driver[@]}" --preload "$interposer" -- "$prefix/bcast_semantics"
# Or linked before the MPI library instead of preloaded.
"$mpicc" "$source/tests/pmpi/programs/bcast_semantics.c" -L"$prefix/lib" -lleancast_pmpi_"$flavor" \
  -Wl,-rpath,"$prefix/lib" -o "$prefix/bcast_semantics_linked"
"${driver[@]}" -- "$prefix/bcast_semantics_linked"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
flags=$(pkg-config --cflags --libs "leancast-$flavor")
echo "pkg-config --cflags --libs leancast-$flavor: $flags"
# A single install's default name is its own flavour.
[[ $(pkg-config --libs leancast) == "$(pkg-config --libs "leancast-$flavor")" ]] ||
  { echo "WRONG: pkg-config leancast is not leancast-$flavor"; exit 1; }
"$mpicc" "$source/examples/bcast_check.c" $flags -o "$prefix/bcast_check"
export LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
algorithms=(linear binomial hypercube scatter-doubling scatter-ring scatter-ring-tuned native opt
            knomial:3 pipeline-chain:4K pipeline-binary-tree auto)
timeout 120 "$mpiexec" "$@" -n 3 "$prefix/bcast_check" 100003 "${algorithms[@]}"

cmake -S "$source/tests/install/cmake_consumer" -B "$prefix/consumer" \
  -DCMAKE_PREFIX_PATH="$prefix" -DMPI_C_COMPILER="$mpicc" -DLEANCAST_COMPONENT="$flavor" >/dev/null
cmake --build "$prefix/consumer" >/dev/null
timeout 120 "$mpiexec" "$@" -n 2 "$prefix/consumer/consumer" 4099 "${algorithms[@]}"
echo "installed package: pkg-config and find_package builds both broadcast correctly"
