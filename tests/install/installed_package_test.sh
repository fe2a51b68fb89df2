#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds examples/bcast_check.c two ways
# an outside user would (mpicc + pkg-config, and a CMake project with find_package), and
# runs each with every algorithm on 3 ranks. First, the installed interposer alone
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

interposer="$prefix/lib/libleancast_pmpi_$flavor.so"
if ldd "$interposer" | grep -q leancast; then echo "WRONG: $interposer needs another leancast library"; exit 1; fi
"$mpicc" "$source/tests/pmpi/programs/bcast_semantics.c" -o "$prefix/bcast_semantics"
launcher_flags=()
for flag in "$@"; do launcher_flags+=("--launcher-flag=$flag"); done
driver=("$python" "$source/tests/pmpi/run_preloaded.py" --launcher "$mpiexec" "${launcher_flags[@]}"
        --flavor "$flavor" --procs 2 --plan "$build/leancast-plan")
"${driver[@]}" --preload "$interposer" -- "$prefix/bcast_semantics"
# Or linked before the MPI library instead of preloaded.
"$mpicc" "$source/tests/pmpi/programs/bcast_semantics.c" -L"$prefix/lib" -lleancast_pmpi_"$flavor" \
  -Wl,-rpath,"$prefix/lib" -o "$prefix/bcast_semantics_linked"
"${driver[@]}" -- "$prefix/bcast_semantics_linked"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
flags=$(pkg-config --cflags --libs leancast)
echo "pkg-config --cflags --libs leancast: $flags"
"$mpicc" "$source/examples/bcast_check.c" $flags -o "$prefix/bcast_check"
export LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
algorithms=(linear binomial hypercube scatter-doubling scatter-ring scatter-ring-tuned native opt
            knomial:3 pipeline-chain:4K pipeline-binary-tree auto)
timeout 120 "$mpiexec" "$@" -n 3 "$prefix/bcast_check" 100003 "${algorithms[@]}"

cmake -S "$source/tests/install/cmake_consumer" -B "$prefix/consumer" \
  -DCMAKE_PREFIX_PATH="$prefix" -DMPI_C_COMPILER="$mpicc" >/dev/null
cmake --build "$prefix/consumer" >/dev/null
timeout 120 "$mpiexec" "$@" -n 2 "$prefix/consumer/consumer" 4099 "${algorithms[@]}"
echo "installed package: pkg-config and find_package builds both broadcast correctly"
