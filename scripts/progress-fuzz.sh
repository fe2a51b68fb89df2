#!/usr/bin/env bash
# Runs tests/mpi/progress_stress.cpp over many seeds in modes the suite runs once each: a
# correct MPI program (nonblocking, blocking and persistent broadcasts among the library's
# collectives and point-to-point calls) must finish with every byte right. One line per run;
# exit 1 if any run failed or hung (its watchdog names the operation). The 2026-11-30 run
# found seed 502 at P = 4 hanging through the Open MPI interposer with blocking broadcasts
# (docs/nonblocking.md#progress). Modes (several at once: "ompi-preload mpich"):
#   ompi-linked   Open MPI, LC_* calls, blocking collectives below MPI_THREAD_MULTIPLE
#   ompi-preload  Open MPI, the program unmodified under the interposer, blocking MPI_Bcast
# (even seeds of these two and of the thread modes: files, windows and intercommunicators
# among the blocking collectives, --file-window-calls)
#   ompi-other    Open MPI, LEANCAST_EXECUTOR=rounds, LEANCAST_CHECK=1, the progress thread
#   mpich         MPICH P = 2-3: under MPI_THREAD_MULTIPLE linked and preloaded, rounds and
#                 check (linked below it, a named algorithm's broadcast hangs there by design:
#                 docs/nonblocking.md#progress), and preloaded below it with blocking
#                 collectives (every seed hung before auto left there to MPICH the
#                 nonblocking broadcasts its helper thread cannot finish)
#   mpich-below   MPICH P = 2-3, that last way at every seed (files, windows and
#                 intercommunicators on even seeds)
# Usage: scripts/progress-fuzz.sh [MODES] [FIRST_SEED] [SEEDS]   (default: all modes, 1, 20)
set -uo pipefail
source "$(dirname "$0")/env.sh"
modes=${1:-ompi-linked ompi-preload ompi-other mpich}
first=${2:-1}
count=${3:-20}
failed=0
# one NAME LAUNCH... : runs one seed's program, prints its line.
one() {
  local name=$1; shift
  local out rc
  out=$(timeout 200 "$@" --deadline 150 2>&1); rc=$?
  ((rc == 0)) || failed=1
  echo "$name rc=$rc $(grep -v '^--\|^$' <<<"$out" | tail -1 | cut -c1-140)"
}
for mode in $modes; do
  flavor=openmpi; [[ $mode == mpich* ]] && flavor=mpich
  build_leancast "$flavor"
  cd "$LEANCAST_ROOT/build/$flavor" || exit 2
  for ((seed = first; seed < first + count; ++seed)); do
    p=$((2 + seed % 7)); cma=cma; ((seed % 2)) || cma=none
    common=(--seed "$seed" --ops 400 --max-bytes 2000000)
    more=(); ((seed % 2)) || more=(--file-window-calls)
    ompi=(env OMPI_MCA_btl_vader_single_copy_mechanism=$cma mpirun --oversubscribe -n "$p")
    case $mode in
      ompi-linked)
        one "$mode seed=$seed P=$p cma=$cma" "${ompi[@]}" tests/progress_stress --library-progress \
          --blocking-collectives "${more[@]}" "${common[@]}" ;;
      ompi-preload)
        one "$mode seed=$seed P=$p cma=$cma" "${ompi[@]}" -x "LD_PRELOAD=$PWD/libleancast_pmpi_openmpi.so" \
          tests/pmpi/progress_stress_plain --library-progress --blocking-bcast --blocking-collectives \
          "${more[@]}" "${common[@]}" ;;
      ompi-other)
        case $((seed % 3)) in
          0) one "$mode rounds seed=$seed P=$p" "${ompi[@]}" -x LEANCAST_EXECUTOR=rounds tests/progress_stress \
               --library-progress --blocking-collectives "${common[@]}" ;;
          1) one "$mode check seed=$seed P=$p" "${ompi[@]}" -x LEANCAST_CHECK=1 tests/progress_stress \
               --library-progress "${common[@]}" ;;
          2) one "$mode thread seed=$seed P=$p" "${ompi[@]}" -x LEANCAST_PROGRESS_THREAD=1 tests/progress_stress \
               --thread-multiple --blocking-collectives "${more[@]}" "${common[@]}" ;;
        esac ;;
      mpich)
        p=$((2 + seed % 2)); launch=(mpiexec.mpich -n "$p")
        case $((seed % 5)) in
          0) one "$mode threads seed=$seed P=$p" "${launch[@]}" tests/progress_stress --thread-multiple \
               --blocking-collectives "${more[@]}" "${common[@]}" ;;
          1) one "$mode preload-threads seed=$seed P=$p" "${launch[@]}" -genv LD_PRELOAD "$PWD/libleancast_pmpi_mpich.so" \
               tests/pmpi/progress_stress_plain --thread-multiple --blocking-collectives --blocking-bcast \
               "${more[@]}" "${common[@]}" ;;
          2) one "$mode rounds seed=$seed P=$p" "${launch[@]}" -genv LEANCAST_EXECUTOR rounds tests/progress_stress \
               --thread-multiple "${common[@]}" ;;
          3) one "$mode check seed=$seed P=$p" "${launch[@]}" -genv LEANCAST_CHECK 1 tests/progress_stress \
               --thread-multiple "${common[@]}" ;;
          4) one "$mode preload seed=$seed P=$p" "${launch[@]}" -genv LD_PRELOAD "$PWD/libleancast_pmpi_mpich.so" \
               tests/pmpi/progress_stress_plain --library-progress --blocking-collectives --blocking-bcast \
               "${common[@]}" ;;
        esac ;;
      mpich-below)
        p=$((2 + seed % 2))
        one "$mode seed=$seed P=$p" mpiexec.mpich -n "$p" -genv LD_PRELOAD "$PWD/libleancast_pmpi_mpich.so" \
          tests/pmpi/progress_stress_plain --library-progress --blocking-collectives --blocking-bcast \
          "${more[@]}" "${common[@]}" ;;
      *) echo "progress-fuzz: unknown mode $mode" >&2; exit 2 ;;
    esac
  done
done
exit "$failed"
