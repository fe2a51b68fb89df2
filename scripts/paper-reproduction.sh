#!/usr/bin/env bash
# Regenerates evidence/paper-reproduction.jsonl: the paper's Figures 6-8 simulated with SMPI
# on the hornet model (and Fig. 6 on laki), the barrier variant and the rendezvous variant,
# one compact line per run (scripts/paper-figures.py, which also prints the page's tables
# and draws its figures into docs/figures/). The runs' full JSON stays in
# build/smpi/paper-reproduction/. Every command is printed first, with the simulation's
# wall-clock cost. About 70 minutes on 2 cores of the VM that copies memory at 10 GB/s.
# Usage: scripts/paper-reproduction.sh [--resume] [--beyond]
#   --resume  skips a run whose JSON is newer than the build's leancast-bench
#   --beyond  adds P = 256 under the barrier, on laki and by rendezvous, and P = 1024 at
#             1 MiB: hours on that VM (P = 256 alone took 32 minutes there)
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$LEANCAST_ROOT/scripts/install-deps.sh"
build_leancast smpi
# One simulated host per core (leancast-sim's default, named in case it changes), the layout
# these runs were made with, and the paper's method (back to back after one barrier) where a
# run names no other: leancast-sim's default is now sync.
sim() { "$LEANCAST_ROOT/build/smpi/leancast-sim" --core-hosts "$@"; }
out="$LEANCAST_ROOT/build/smpi/paper-reproduction"
mkdir -p "$out"
resume=0 beyond=0
for arg in "$@"; do
  case $arg in --resume) resume=1 ;; --beyond) beyond=1 ;; *) echo "unknown option $arg" >&2; exit 2 ;; esac
done
bench="$LEANCAST_ROOT/build/smpi/leancast-bench"
run() {
  local json="${*: -1}"
  if ((resume)) && [[ ${*: -2:1} == --json && $json -nt $bench ]]; then echo "= $json (kept)"; return; fi
  echo "+ $*"; local start=$SECONDS; "$@" >/dev/null; echo "  ($((SECONDS - start)) s)"
}
# P = 256's extras and P = 1024 only with --beyond.
extra() { ((beyond)) || [[ $1 != 256 ]]; }
# Both rings under leancast's default executor (dataflow:1) and under rounds (one round of
# transfers at a time, what MPICH's ring does): the tuned ring's gain must come from the
# algorithm, not from one executor slowing the native ring (docs/algorithms.md#executors).
pair=scatter-ring,scatter-ring-tuned,scatter-ring@rounds,scatter-ring-tuned@rounds

# Figure 6: long messages, power-of-two P; back-to-back (the paper's method) and with a
# barrier before every broadcast (--method osu).
for procs in 16 64 256; do
  run sim --method paper --platform hornet --procs $procs --algorithms $pair --preset fig6 --iterations 4 \
    --json "$out/fig6-hornet-p$procs.json"
  extra $procs || continue
  run sim --platform hornet --procs $procs --algorithms $pair --preset fig6 --iterations 4 \
    --method osu --json "$out/fig6-hornet-barrier-p$procs.json"
  run sim --method paper --platform laki --procs $procs --algorithms $pair --preset fig6 --iterations 4 \
    --json "$out/fig6-laki-p$procs.json"
done
# The issue's check: scatter-ring against SMPI's own scatter_LR_allgather, P = 64.
run sim --method paper --platform hornet --procs 64 \
  --algorithms scatter-ring,scatter-ring-tuned,smpi:scatter_LR_allgather,smpi:ompi,smpi:mpich \
  --sizes 512K,3M --json "$out/hornet-p64-vs-smpi.json"
# Figure 7: speedup at three sizes, P = 2^k + 1.
for procs in 9 17 33 65 129; do
  run sim --method paper --platform hornet --procs $procs --algorithms $pair --preset fig7 --iterations 4 \
    --json "$out/fig7-hornet-p$procs.json"
done
# Figure 8: P = 129 over medium and long sizes.
run sim --method paper --platform hornet --procs 129 --algorithms $pair --preset fig8 --iterations 4 \
  --json "$out/fig8-hornet-p129.json"
# The same with every message sent by rendezvous (SMPI's eager limit 0), to separate the
# eager protocol's effect from the traffic the tuned ring saves.
rendezvous=(--smpi-config smpi/send-is-detached-thresh:0)
for procs in 9 17 33 65 129; do
  run sim --method paper --platform hornet --procs $procs --algorithms $pair --preset fig7 --iterations 4 \
    "${rendezvous[@]}" --json "$out/fig7-hornet-rendezvous-p$procs.json"
done
run sim --method paper --platform hornet --procs 129 --algorithms $pair --preset fig8 --iterations 4 \
  "${rendezvous[@]}" --json "$out/fig8-hornet-rendezvous-p129.json"
if ((beyond)); then
  run sim --method paper --platform hornet --procs 256 --algorithms $pair --preset fig6 --iterations 4 \
    "${rendezvous[@]}" --json "$out/fig6-hornet-rendezvous-p256.json"
  # Beyond the paper: P = 1024 at 1 MiB.
  run sim --method paper --platform hornet --procs 1024 --algorithms $pair --sizes 1M --iterations 2 \
    --json "$out/hornet-p1024.json"
fi

# The compact evidence from the runs' JSON, and the figures the page shows.
python3 "$LEANCAST_ROOT/scripts/paper-figures.py" compact "$out"/*.json \
  --out "$LEANCAST_ROOT/evidence/paper-reproduction.jsonl"
/usr/bin/python3 "$LEANCAST_ROOT/scripts/paper-figures.py" plots
