#!/usr/bin/env bash
# Builds the .deb packages of this build (cpack: leancast-common_V_all.deb and
# leancast-FLAVOR_V_ARCH.deb), checks their names, Depends and that every file of the
# flavour's package names its flavour (so both flavours install side by side), installs
# them and uses them:
#  - as root with dpkg, and neither package installed yet: dpkg -i into the system, then
#    dpkg --purge (dpkg -r and its configuration; also when a check fails); the unsuffixed names come from update-alternatives;
#  - otherwise: dpkg-deb -x into a temporary root.
# Then, with no LD_LIBRARY_PATH: leancast-plan.FLAVOR and leancast-bench.FLAVOR run, the
# interposer serves a plain MPI program under LD_PRELOAD (tests/pmpi/run_preloaded.py), and
# examples/bcast_check.c builds with pkg-config leancast-FLAVOR and broadcasts correctly.
# Exit 77 (skipped) without dpkg-deb.
# Usage: deb_package_test.sh BUILD_DIR SOURCE_DIR MPICC MPIEXEC FLAVOR PYTHON [MPIEXEC_FLAGS...]
set -euo pipefail
build=$1 source=$2 mpicc=$3 mpiexec=$4 flavor=$5 python=$6
shift 6
if ! command -v dpkg-deb >/dev/null || ! command -v cpack >/dev/null; then
  echo "SKIPPED: no dpkg-deb or cpack here: the .deb packages cannot be built (Debian: apt-get install dpkg-dev)"
  exit 77
fi
work=$(mktemp -d)
installed_system=0
cleanup() {
  if ((installed_system)); then
    dpkg --purge "leancast-$flavor" leancast-common >/dev/null || echo "WRONG: dpkg --purge failed"
  fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "WRONG: $*"; exit 1; }

cpack --config "$build/CPackConfig.cmake" -B "$work" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack failed"; }
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
arch=$(dpkg --print-architecture)
common_deb="$work/leancast-common_${version}_all.deb"
flavor_deb="$work/leancast-${flavor}_${version}_${arch}.deb"
[[ -f $common_deb && -f $flavor_deb ]] || { ls "$work"; fail "expected $common_deb and $flavor_deb"; }
echo "built $(basename "$common_deb") $(basename "$flavor_deb")"
depends=$(dpkg-deb -f "$flavor_deb" Depends)
echo "leancast-$flavor Depends: $depends"
case $flavor in
  openmpi) mpi_runtime=libopenmpi3 ;;
  mpich) mpi_runtime=libmpich12 ;;
esac
[[ $depends == *"$mpi_runtime"* ]] || fail "leancast-$flavor does not depend on $mpi_runtime"
[[ $depends == *"leancast-common (= $version)"* ]] || fail "leancast-$flavor does not depend on leancast-common"
# Side by side: each file (not directory) of the flavour's package names the flavour.
foreign=$(dpkg-deb -c "$flavor_deb" | awk '$1 !~ /^d/ {print $6}' | grep -v -- "$flavor" || true)
[[ -z $foreign ]] || fail "files of leancast-$flavor that another flavour would collide with: $foreign"

present=installed
if [[ $(id -u) == 0 ]] && command -v dpkg >/dev/null; then
  # One such test at a time (the other flavour's build may run it too).
  exec 9>/tmp/leancast-deb-test.lock
  flock -w 90 9 || fail "another leancast .deb test holds /tmp/leancast-deb-test.lock"
  present=$(dpkg-query -W -f '${Status}\n' leancast-common "leancast-$flavor" 2>/dev/null || true)
fi
if [[ $present != *"ok installed"* && $present != installed ]]; then
  installed_system=1
  dpkg -i "$common_deb" "$flavor_deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i failed"; }
  echo "installed into the system with dpkg -i (removed again at the end)"
  root=""
  [[ $(readlink -f /usr/bin/leancast-plan) == */lib/leancast/*/bin/leancast-plan ]] ||
    fail "update-alternatives did not provide /usr/bin/leancast-plan"
  pkg-config --exists leancast || fail "pkg-config leancast (the alternative) not found"
else
  root="$work/root"
  dpkg-deb -x "$common_deb" "$root"
  dpkg-deb -x "$flavor_deb" "$root"
  echo "extracted into $root with dpkg-deb -x (not root, no dpkg, or leancast already installed)"
fi
prefix="$root/usr"

clean_env=(env -u LD_LIBRARY_PATH -u LD_PRELOAD)
for tool in plan bench packing-bench job-bench overlap-bench; do
  exe="$prefix/bin/leancast-$tool.$flavor"
  [[ -x $exe ]] || { [[ $tool == *-bench && $tool != bench ]] && continue; fail "no $exe"; }
  real=$(readlink -f "$exe")  # ldd takes $ORIGIN from the path it is given
  libs=$(ldd "$real")
  [[ $libs != *"not found"* ]] || { echo "$libs"; fail "$real: libraries not found"; }
  "${clean_env[@]}" timeout 30 "$exe" --help >/dev/null || fail "$exe --help failed"
done
"${clean_env[@]}" timeout 30 "$prefix/bin/leancast-plan.$flavor" -a scatter-ring-tuned -p 8 -b 8M |
  grep -E "^allgather +44 " >/dev/null || fail "leancast-plan.$flavor: not the paper's 44 ring transfers at P = 8"
"${clean_env[@]}" timeout 30 "$prefix/bin/leancast-tune.$flavor" --help >/dev/null ||
  fail "leancast-tune.$flavor --help failed"

# The interposer, preloaded under a plain MPI program.
interposer="$prefix/lib/libleancast_pmpi_$flavor.so"
"$mpicc" "$source/tests/pmpi/programs/bcast_semantics.c" -o "$work/bcast_semantics"
launcher_flags=()
for flag in "$@"; do launcher_flags+=("--launcher-flag=$flag"); done
"${clean_env[@]}" "$python" "$source/tests/pmpi/run_preloaded.py" --launcher "$mpiexec" \
  "${launcher_flags[@]}" --flavor "$flavor" --procs 2 --plan "$prefix/bin/leancast-plan.$flavor" \
  --preload "$interposer" -- "$work/bcast_semantics"

# A consumer built with pkg-config leancast-FLAVOR (run path to the extracted root, if any).
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
flags=$(pkg-config --cflags --libs "leancast-$flavor")
echo "pkg-config --cflags --libs leancast-$flavor: $flags"
rpath=()
[[ -n $root ]] && rpath=(-Wl,-rpath,"$prefix/lib")
"$mpicc" "$source/examples/bcast_check.c" $flags "${rpath[@]}" -o "$work/bcast_check"
linked=$(ldd "$work/bcast_check" | awk -v lib="libleancast-$flavor.so.0" '$1 == lib {print $3}')
[[ -n $linked && $(readlink -f "$linked") == $(readlink -f "$prefix/lib/libleancast-$flavor.so.0") ]] ||
  { ldd "$work/bcast_check"; fail "bcast_check does not use the package's libleancast-$flavor"; }
"${clean_env[@]}" timeout 60 "$mpiexec" "$@" -n 2 "$work/bcast_check" 100003 \
  scatter-ring-tuned pipeline-chain:4K auto mpi
echo "deb package: leancast-$flavor installs, its tools run, the interposer and pkg-config work"
