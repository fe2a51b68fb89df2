#!/usr/bin/env bash
# Regenerates docs/paper-reproduction/: the paper's Figures 6-8 simulated with SMPI on the
# hornet model (and Fig. 6 on laki), the barrier variant, and P = 1024. Every command is
# printed first, with the simulation's wall-clock cost (also in each JSON under
# "simulation"). About 40 minutes on 2 cores.
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$LEANCAST_ROOT/scripts/install-deps.sh"
build_leancast smpi
# One simulated host per core, the layout these runs were made with (leancast-sim's default
# is now one host per node; flat broadcasts ran within 1.5 % of each other in the two layouts
# at P = 64, 64 KiB and 4 MiB).
sim() { "$LEANCAST_ROOT/build/smpi/leancast-sim" --core-hosts "$@"; }
report="$LEANCAST_ROOT/tools/report/leancast-report"
out="$LEANCAST_ROOT/docs/paper-reproduction"
mkdir -p "$out"
run() { echo "+ $*"; local start=$SECONDS; "$@" >/dev/null; echo "  ($((SECONDS - start)) s)"; }
pair=scatter-ring,scatter-ring-tuned

# Figure 6: long messages, power-of-two P; back-to-back (the paper's method) and with a
# barrier before every broadcast (--method osu).
for procs in 16 64 256; do
  run sim --platform hornet --procs $procs --algorithms $pair --preset fig6 --iterations 4 \
    --json "$out/fig6-hornet-p$procs.json"
  run sim --platform hornet --procs $procs --algorithms $pair --preset fig6 --iterations 4 \
    --method osu --json "$out/fig6-hornet-barrier-p$procs.json"
  run sim --platform laki --procs $procs --algorithms $pair --preset fig6 --iterations 4 \
    --json "$out/fig6-laki-p$procs.json"
done
# The issue's check: scatter-ring against SMPI's own scatter_LR_allgather, P = 64.
run sim --platform hornet --procs 64 \
  --algorithms scatter-ring,scatter-ring-tuned,smpi:scatter_LR_allgather,smpi:ompi,smpi:mpich \
  --sizes 512K,3M --json "$out/hornet-p64-vs-smpi.json"
# Figure 7: speedup at three sizes, P = 2^k + 1.
for procs in 9 17 33 65 129; do
  run sim --platform hornet --procs $procs --algorithms $pair --preset fig7 --iterations 4 \
    --json "$out/fig7-hornet-p$procs.json"
done
# Figure 8: P = 129 over medium and long sizes.
run sim --platform hornet --procs 129 --algorithms $pair --preset fig8 --iterations 4 \
  --json "$out/fig8-hornet-p129.json"
# The same with every message sent by rendezvous (SMPI's eager limit 0), to separate the
# eager protocol's effect from the traffic the tuned ring saves.
rendezvous=(--smpi-config smpi/send-is-detached-thresh:0)
for procs in 9 17 33 65 129; do
  run sim --platform hornet --procs $procs --algorithms $pair --preset fig7 --iterations 4 \
    "${rendezvous[@]}" --json "$out/fig7-hornet-rendezvous-p$procs.json"
done
run sim --platform hornet --procs 129 --algorithms $pair --preset fig8 --iterations 4 \
  "${rendezvous[@]}" --json "$out/fig8-hornet-rendezvous-p129.json"
run sim --platform hornet --procs 256 --algorithms $pair --preset fig6 --iterations 4 \
  "${rendezvous[@]}" --json "$out/fig6-hornet-rendezvous-p256.json"
# Beyond the paper: P = 1024 at 1 MiB.
run sim --platform hornet --procs 1024 --algorithms $pair --sizes 1M --iterations 2 \
  --json "$out/hornet-p1024.json"

cd "$out"
for name in fig6-hornet fig6-hornet-barrier fig6-hornet-rendezvous fig6-laki fig7-hornet-rendezvous \
  fig8-hornet-rendezvous; do
  mkdir -p "$name" && run "$report" --out-dir "$name" "$name"-p*.json
done
mkdir -p fig7-hornet && run "$report" --out-dir fig7-hornet fig7-hornet-p*.json
mkdir -p fig8-hornet && run "$report" --out-dir fig8-hornet fig8-hornet-p129.json
mkdir -p beyond && run "$report" --out-dir beyond hornet-p64-vs-smpi.json hornet-p1024.json
