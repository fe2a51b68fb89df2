#!/bin/bash
# within-node-16core.sh: scripts/within-node-measure.sh's comparison on the device's 16-core node
# (issue 28): leancast's within-node broadcasts (shm, cma, cma-split, auto) beside MPI_Bcast under each of
# the library's configurations (Open MPI: default, coll sm, coll_tuned's pipeline; MPICH:
# default, release_gather), P = 16, 8, 4, then 2; osu method (METHOD=paper: the paper's;
# METHOD=both: the two in one call); 64 B - 64 MiB, buffers rotated beyond the last-level cache above 4 MiB, the node's
# memory bound beside each cell.
# Run on the device from the checkout that carries .devcarry (../shared/device/README.md):
#   bash scripts/within-node-16core.sh        # DEADLINE (s, default 570), PS ("16 8 4 2"), METHOD (osu, paper, both), OUT
# Per job TAG.json and TAG.log under /tmp/lcres/FOLDER (within16, within16-paper), packed
# into $OUT/RUN.tar.gz (RUN: the folder, or within16-both); the log to $OUT/RUN.log. Tags: LIB-pP-CONFIG-CLASS, CLASS small (64 B - 4 MiB) or large (16 and
# 64 MiB, rotated). Back here, unpacked under /tmp/lcres, each run joins the campaign's evidence
# as the source it has kept (docs/benchmarks/real-16core/RUN/TAG.json), e.g. for within16:
#   for f in /tmp/lcres/within16/*.json; do
#     python3 tools/tune/leancast_tune/evidence.py --add evidence/real-16core.jsonl.gz \
#       "docs/benchmarks/real-16core/within16/${f##*/}=$f"; done
# and scripts/real-16core-summary.py evidence/real-16core.jsonl.gz tabulates them (update the
# study's entry in evidence/manifest.json).
# The device takes at most 64 MiB of working tree, the bundle (23 MB) included; docs/ (80 MB
# of raw JSON at 4678cd5, none of which the device reads) puts this checkout over it, so move
# it aside for the call and back after: mv docs /tmp/docs-aside ... mv /tmp/docs-aside docs.
HERE=$(cd "$(dirname "$0")/../.devcarry" && pwd) || exit 2
METHOD=${METHOD:-osu}
# One folder per method (within16: osu, within16-paper: paper); METHOD=both runs osu at every
# P of PS, then paper at every P, all in one call's DEADLINE (P = 16, 8, 4 took 240 s a method
# with 7b935b0), into within16-both.tar.gz holding both folders.
case $METHOD in osu) RUN=within16; METHODS=osu ;; paper) RUN=within16-paper; METHODS=paper ;;
  both) RUN=within16-both; METHODS="osu paper" ;; *) echo "METHOD: osu, paper or both" >&2; exit 2 ;; esac
folder() { [ "$1" = osu ] && echo within16 || echo "within16-$1"; }
OUT=${OUT:-/tmp/out}
FOLDERS=""; for m in $METHODS; do FOLDERS="$FOLDERS $(folder "$m")"; rm -rf "/tmp/lcres/$(folder "$m")"; done
R=/tmp/lcres/$(folder "${METHODS%% *}")
mkdir -p "$R" "$OUT"
T0=$(date +%s); DEADLINE=${DEADLINE:-570}
PS=${PS:-16 8 4 2}
source "$HERE/lib.sh"
pack() {  # lib.sh's, under this script's own archive name, every method's folder
  # shellcheck disable=SC2086  # FOLDERS is a list of names
  tar -czf "$OUT/.$RUN.tar.gz" -C /tmp/lcres $FOLDERS 2>/dev/null && mv -f "$OUT/.$RUN.tar.gz" "$OUT/$RUN.tar.gz"
}

# shm: 64 KiB segments. cma-split (since 7b935b0's runs): at P = 2 the root's core copies half
# the message too, the one way below one core's copy rate (docs/benchmarks.md#the-nodes-memory-bound).
MINE=auto,shm:8K,shm:16K,shm,cma,cma-split,mpi
SMALL="--sizes 64,1K,4K,16K,64K,256K,1M,4M --iterations 100 --warmup 5 --reps 5"
LARGE="--sizes 16M,64M --iterations 5 --warmup 1 --reps 5 --rotate-above 4M"
config() {  # config LIB P NAME [LAUNCHER OPTIONS...]: the two classes of one configuration
  local lib=$1 p=$2 name=$3; shift 3
  job "$lib-p$p-$name-small" "$lib" "$p" "$MINE" "$SMALL --method $METHOD --baseline mpi" "$@"
  job "$lib-p$p-$name-large" "$lib" "$p" "$MINE" "$LARGE --method $METHOD --baseline mpi" "$@"
}

plan() {
  facts_machine >/dev/null
  bash "$HERE/setup.sh" && source "$HERE/env.sh" || { echo "setup failed"; return 3; }
  facts_mpi >/dev/null
  echo "== $RUN: METHOD=$METHOD PS=\"$PS\" DEADLINE=${DEADLINE}s $(nproc) cores; algorithms $MINE"
  local p facts=$R/facts.txt
  for METHOD in $METHODS; do
    R=/tmp/lcres/$(folder "$METHOD"); mkdir -p "$R"
    [ -e "$R/facts.txt" ] || cp "$facts" "$R/"
    for p in $PS; do  # by importance; adapt was never Open MPI's fastest here (campaign2)
      config ompi "$p" default
      config ompi "$p" sm --mca coll_sm_priority 100
      config mpich "$p" default
      config mpich "$p" release_gather -genv MPIR_CVAR_BCAST_POSIX_INTRA_ALGORITHM release_gather
      config ompi "$p" tuned-3-seg128k --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_bcast_algorithm 3 \
        --mca coll_tuned_bcast_algorithm_segmentsize 131072
    done
    echo "== $METHOD done t=$(elapsed)s; $(ls "$R"/*.json 2>/dev/null | wc -l) JSON files in $(basename "$R")"
  done
  echo "== end t=$(elapsed)s (deadline ${DEADLINE}s)"
}

plan 2>&1 | tee "$OUT/$RUN.log"
rc=${PIPESTATUS[0]}
for f in $FOLDERS; do cp "$OUT/$RUN.log" "/tmp/lcres/$f/"; done; pack
exit "$rc"
