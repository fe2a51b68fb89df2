#!/usr/bin/env bash
# Online tuning over a whole job (issue 14, point 5): leancast-job-bench runs, per size from
# 1 KiB to 16 MiB, jobs of 1000 broadcasts on fresh communicators with MPI_Bcast, the
# built-in auto and online tuning (trials included), and each single candidate, side by
# side: Open MPI at P = 2 and 4 and MPICH at P = 2 here (5 repetitions), SMPI's hornet at
# P = 16 (one rank per node) and P = 64 (24 ranks per node; about 20 minutes to simulate).
# Raw JSON, the trials each run tried (NAME-trials.txt) and summary.md go to
# docs/benchmarks/online-tuning/.
# Usage: scripts/online-tuning.sh [real|sim|all]   (default all)
set -euo pipefail
source "$(dirname "$0")/env.sh"
# MPI_Bcast as Open MPI runs it by default (env.sh).
library_defaults
what="${1:-all}"
out="$LEANCAST_ROOT/docs/benchmarks/online-tuning"
mkdir -p "$out"
run() { echo "+ $*"; "$@"; }
# trials NAME LAUNCH...: what online tuning tries per size and the trial times, from a short
# separate run with LEANCAST_VERBOSE=1 (kept out of the measurement: printing takes time).
trials() {
  local name="$1"; shift
  echo "+ LEANCAST_VERBOSE=1 $* --calls 100 --fixed none --reps 1 > $name-trials.txt"
  LEANCAST_VERBOSE=1 "$@" --calls 100 --fixed none --reps 1 2>&1 | grep "online tuning P=" \
    | sed "s/^leancast: //" > "$out/$name-trials.txt" || echo "(none printed)" > "$out/$name-trials.txt"
}
# The library's defaults for the trials, no learned or site rules: every job starts untuned.
unset LEANCAST_TUNE LEANCAST_TUNE_FILE LEANCAST_TUNE_WARMUP LEANCAST_TUNE_TRIALS \
      LEANCAST_TUNE_CANDIDATES LEANCAST_BCAST_ALGORITHM LEANCAST_BCAST_RULES LEANCAST_CONFIG \
      LEANCAST_VERBOSE LEANCAST_EXECUTOR LEANCAST_WINDOW LEANCAST_SEND_WINDOW \
      LEANCAST_STREAM_ABOVE LEANCAST_RANKS_PER_NODE LEANCAST_CHECK

if [[ "$what" == real || "$what" == all ]]; then
  build_leancast openmpi
  build_leancast mpich
  cd "$LEANCAST_ROOT/build/openmpi"
  for procs in 2 4; do
    run timeout 3600 mpirun --oversubscribe -n "$procs" ./leancast-job-bench --reps 5 \
      --label "Open MPI, P = $procs on this machine" --json "$out/openmpi-p$procs.json"
    trials "openmpi-p$procs" timeout 600 mpirun --oversubscribe -n "$procs" -x LEANCAST_VERBOSE \
      ./leancast-job-bench
  done
  cd "$LEANCAST_ROOT/build/mpich"
  # MPICH busy-polls: two ranks at most on two cores.
  run timeout 3600 mpiexec.mpich -n 2 ./leancast-job-bench --reps 5 \
    --label "MPICH, P = 2 on this machine" --json "$out/mpich-p2.json"
  trials mpich-p2 timeout 600 mpiexec.mpich -n 2 ./leancast-job-bench
fi

if [[ "$what" == sim || "$what" == all ]]; then
  build_leancast smpi
  sim="$LEANCAST_ROOT/build/smpi/leancast-sim"
  bench="$LEANCAST_ROOT/build/smpi/leancast-job-bench"
  # Simulated time repeats exactly: one repetition, and 50 calls time a single candidate.
  # (smpirun splits arguments at spaces: labels without any.)
  run timeout 3600 "$sim" --platform hornet --procs 16 --ranks-per-node 1 --run "$bench" \
    --reps 1 --fixed-calls 50 --label SMPI-hornet:16-nodes-x-1-rank \
    --json "$out/smpi-hornet-p16-ppn1.json"
  trials smpi-hornet-p16-ppn1 timeout 1800 "$sim" --platform hornet --procs 16 --ranks-per-node 1 \
    --run "$bench"
  run timeout 3600 "$sim" --platform hornet --procs 64 --run "$bench" \
    --reps 1 --fixed-calls 20 --label SMPI-hornet:64-ranks-on-3-nodes-of-24-cores \
    --json "$out/smpi-hornet-p64.json"
  trials smpi-hornet-p64 timeout 1800 "$sim" --platform hornet --procs 64 --run "$bench"
fi

/usr/bin/python3 "$LEANCAST_ROOT/scripts/online-tuning-summary.py" "$out" > "$out/summary.md"
echo "summary: $out/summary.md"
