#!/usr/bin/env bash
# Installs the Open MPI and the MPICH build into ONE prefix (MPICH first, then Open MPI,
# then MPICH again) and checks that nothing collides: each flavour's library, interposer,
# tools, pkg-config file and CMake targets are there; the unsuffixed names (bin/leancast-plan,
# pkg-config leancast, find_package(leancast)) are Open MPI's whatever the order; the tools
# run without LD_LIBRARY_PATH (RUNPATH $ORIGIN/...). Then for each flavour a consumer
# (examples/bcast_check.c) built with pkg-config leancast-FLAVOR and one with
# find_package(leancast COMPONENTS FLAVOR) link that flavour's library only and broadcast
# correctly under its mpiexec (Open MPI 3 ranks, MPICH 2).
# Exit 77 (skipped) when one of the builds is missing or predates per-flavour names.
# Usage: both_flavours_test.sh OPENMPI_BUILD MPICH_BUILD SOURCE_DIR
set -euo pipefail
declare -A build=([openmpi]=$1 [mpich]=$2)
source=$3
for flavor in openmpi mpich; do
  if ! grep -qs "libleancast-$flavor" "${build[$flavor]}/cmake_install.cmake" ||
     [[ ! -f ${build[$flavor]}/libleancast-$flavor.so ]]; then
    echo "SKIPPED: no $flavor build with per-flavour names in ${build[$flavor]}" \
         "(build it: source scripts/env.sh && build_leancast $flavor)"
    exit 77
  fi
done
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "WRONG: $*"; exit 1; }
for flavor in mpich openmpi mpich; do
  cmake --install "${build[$flavor]}" --prefix "$prefix" >"$prefix/install-$flavor.log"
done

for flavor in openmpi mpich; do
  for file in lib/libleancast-$flavor.so.0 lib/libleancast_pmpi_$flavor.so \
              lib/pkgconfig/leancast-$flavor.pc lib/cmake/leancast/leancast-$flavor-targets.cmake \
              bin/leancast-plan.$flavor bin/leancast-bench.$flavor bin/leancast-tune.$flavor \
              lib/leancast/$flavor/bin/leancast-bench; do
    [[ -e $prefix/$file ]] || fail "$file missing after installing both flavours"
  done
  bench="$prefix/lib/leancast/$flavor/bin/leancast-bench"
  runpath=$(readelf -d "$bench" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
  [[ $runpath == '$ORIGIN/../../..' ]] || fail "$bench: RUNPATH '$runpath', not \$ORIGIN/../../.."
  libs=$(ldd "$bench")  # (captured: grep -q would close the pipe early, which pipefail reports)
  linked=$(awk -v lib="libleancast-$flavor.so.0" '$1 == lib {print $3}' <<<"$libs")
  [[ -n $linked && $(readlink -f "$linked") == $(readlink -f "$prefix/lib/libleancast-$flavor.so.0") ]] ||
    { echo "$libs"; fail "$bench does not load $prefix/lib/libleancast-$flavor.so.0"; }
  for tool in leancast-plan leancast-bench leancast-tune; do
    env -i PATH=/usr/bin:/bin timeout 30 "$prefix/bin/$tool.$flavor" --help >/dev/null ||
      fail "$tool.$flavor --help fails without LD_LIBRARY_PATH"
  done
done
[[ $(readlink "$prefix/bin/leancast-plan") == leancast-plan.openmpi ]] ||
  fail "bin/leancast-plan is $(readlink "$prefix/bin/leancast-plan"), not Open MPI's"
[[ $(readlink "$prefix/bin/leancast-bench") == leancast-bench.openmpi ]] || fail "bin/leancast-bench"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
[[ $(pkg-config --libs leancast) == *-lleancast-openmpi* ]] || fail "pkg-config leancast is not Open MPI's"
echo "one prefix, both flavours: $(cd "$prefix" && ls lib/libleancast*.so lib/pkgconfig bin | tr '\n' ' ')"

# Open MPI: what scripts/env.sh sets (run as root, no single copy in containers).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
algorithms=(scatter-ring-tuned knomial:3 pipeline-chain:4K auto mpi)
for flavor in openmpi mpich; do
  if [[ $flavor == openmpi ]]; then
    mpicc=mpicc.openmpi launch=(mpirun.openmpi --oversubscribe -n 3)
  else
    mpicc=mpicc.mpich launch=(mpiexec.mpich -n 2)
  fi
  flags=$(pkg-config --cflags --libs "leancast-$flavor")
  "$mpicc" "$source/examples/bcast_check.c" $flags -Wl,-rpath,"$prefix/lib" -o "$prefix/pc-$flavor"
  cmake -S "$source/tests/install/cmake_consumer" -B "$prefix/cmake-$flavor" \
    -DCMAKE_PREFIX_PATH="$prefix" -DLEANCAST_COMPONENT=$flavor >"$prefix/cmake-$flavor.log" ||
    { cat "$prefix/cmake-$flavor.log"; fail "find_package(leancast COMPONENTS $flavor)"; }
  grep -q "leancast_MPI_FLAVOR=$flavor, MPI .*mpicc.$flavor" "$prefix/cmake-$flavor.log" ||
    { cat "$prefix/cmake-$flavor.log"; fail "find_package(leancast COMPONENTS $flavor) chose otherwise"; }
  cmake --build "$prefix/cmake-$flavor" >/dev/null
  for consumer in "$prefix/pc-$flavor" "$prefix/cmake-$flavor/consumer"; do
    other=$([[ $flavor == openmpi ]] && echo mpich || echo openmpi)
    libs=$(ldd "$consumer")
    [[ $libs == *"libleancast-$flavor.so.0 => $prefix/lib/"* && $libs != *"libleancast-$other"* ]] ||
      { echo "$libs"; fail "$consumer does not link libleancast-$flavor alone"; }
    env -u LD_LIBRARY_PATH timeout 60 "${launch[@]}" "$consumer" 65537 "${algorithms[@]}" >"$prefix/run.log" 2>&1 ||
      { cat "$prefix/run.log"; fail "$consumer under ${launch[0]}"; }
  done
  echo "$flavor: pkg-config leancast-$flavor and find_package(leancast COMPONENTS $flavor) consumers broadcast correctly"
done
# find_package(leancast) without a component: the default flavour, Open MPI.
cmake -S "$source/tests/install/cmake_consumer" -B "$prefix/cmake-default" \
  -DCMAKE_PREFIX_PATH="$prefix" >"$prefix/cmake-default.log"
grep -q "leancast_MPI_FLAVOR=openmpi" "$prefix/cmake-default.log" ||
  { cat "$prefix/cmake-default.log"; fail "find_package(leancast) did not default to openmpi"; }
echo "both flavours in one prefix: no collisions, each consumer uses its own flavour"
