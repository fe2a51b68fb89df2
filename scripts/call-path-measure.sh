#!/usr/bin/env bash
# A small broadcast's per-call path (issue 28): leancast-call-path-bench at P = 1 and 2, and
# at P = 2 with the interposer preloaded (its MPI_Bcast is then leancast's auto), from one
# build directory. Raw JSON goes to OUT (default docs/benchmarks/call-path/) as
# FLAVOR-LABEL-pN.json and FLAVOR-LABEL-p2-interposer.json; scripts/call-path-summary.py
# tabulates them.
# Usage: scripts/call-path-measure.sh FLAVOR BUILD_DIR LABEL [OUT]
#   e.g. scripts/call-path-measure.sh openmpi build/openmpi after
set -euo pipefail
source "$(dirname "$0")/env.sh"
flavor="$1" build="$(cd "$2" && pwd)" label="$3"
out="${4:-$LEANCAST_ROOT/docs/benchmarks/call-path}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"  # the runs start in the build directory
case "$flavor" in
  openmpi) launch=(mpirun --oversubscribe -n) ;;
  mpich) launch=(mpiexec.mpich -n) ;;
  *) echo "call-path-measure.sh: FLAVOR is openmpi or mpich" >&2; exit 2 ;;
esac
run() { echo "+ $*" >&2; "$@"; }
bench=(./leancast-call-path-bench --sizes 8,64,1K --reps 31 --iterations 2000 --step-iterations 20000)
cd "$build"
[[ -x leancast-call-path-bench ]] || {
  echo "call-path-measure.sh: no leancast-call-path-bench in $build: build it with" \
       "-DLEANCAST_CALL_COST_BENCHES=ON (scripts/env.sh's build_leancast does)" >&2
  exit 2
}
for procs in 1 2; do
  run timeout 300 "${launch[@]}" "$procs" "${bench[@]}" --json "$out/$flavor-$label-p$procs.json"
done
if [[ "$flavor" == mpich ]]; then
  env=(-genv LD_PRELOAD "$build/libleancast_pmpi_$flavor.so")
else
  env=(-x LD_PRELOAD="$build/libleancast_pmpi_$flavor.so")
fi
run timeout 300 "${launch[@]}" 2 "${env[@]}" "${bench[@]}" --no-steps \
  --json "$out/$flavor-$label-p2-interposer.json"
