#!/usr/bin/env bash
# Rebuilds data/auto.rules, auto's built-in table, from measurements: each section is one
# leancast-tune run whose rules and raw JSON land in docs/tuning/ (docs/tuning.md explains
# them). Sections, in the table's order (the first matching rule wins):
#   ppn1     hornet model, one rank per node, P = 16, 64, 256          (ppn=1)
#   real2    real Open MPI on this machine, 2 ranks on 2 cores         (procs=2)
#   node     hornet model, one node, P = 8 and 24                      (procs 3-24 on one node)
#   nodes    hornet model, 24 ranks per node, P = 64 and 256           (procs 25-511)
#   nodes1k  hornet model, 24 ranks per node, P = 1024, fewer candidates (procs 512-)
# Usage: scripts/auto-table.sh [SECTION...]   (default: all, then the table is assembled)
# About two hours on 2 cores, most of it nodes1k; sections can run in parallel, nodes1k
# alone (16 GiB of simulated buffers).
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$LEANCAST_ROOT/scripts/install-deps.sh"
out="$LEANCAST_ROOT/docs/tuning"
mkdir -p "$out"
sections=("$@")
((${#sections[@]})) || sections=(ppn1 real2 node nodes nodes1k)

tune() {  # tune SECTION FLAVOR ARGS...
  local name=$1 flavor=$2
  shift 2
  build_leancast "$flavor"
  "$LEANCAST_ROOT/build/$flavor/leancast-tune" "$@" --out "$out/$name.rules" --json "$out/$name.json" \
    > "$out/$name.log" 2>&1
}

# The candidates that can win at 1024 ranks: the O(P^2) ring, the recursive doubling and
# the flat circulant (24 ranks of a node sharing one NIC) lose long before (nodes.rules).
large="binomial,knomial:8,pipeline-chain:8K,pipeline-chain:16K,pipeline-chain,pipeline-binary-tree:16K"
large+=",pipeline-binary-tree,two-tree:16K,two-tree,node-aware:binomial/binomial"
large+=",node-aware:knomial:8/binomial,node-aware:pipeline-binary-tree:16K/binomial"
large+=",node-aware:pipeline-chain:16K/pipeline-chain:16K,node-aware:pipeline-chain/pipeline-chain"
large+=",node-aware:two-tree/pipeline-chain,node-aware:circulant/pipeline-chain"

for section in "${sections[@]}"; do
  case $section in
    ppn1) tune ppn1 smpi --sim hornet --ranks-per-node 1 --procs 16,64,256 --ppn 1 ;;
    real2) tune real2 openmpi --launcher "mpirun --oversubscribe -n {procs}" --procs 2 \
             --procs-cover 2-2 --ppn 2 --iterations 20 --reps 7 ;;
    node) tune node smpi --sim hornet --procs 8,24 --procs-cover 3-24 --ppn 3-24 ;;
    nodes) tune nodes smpi --sim hornet --procs 64,256 --procs-cover 25-511 --ppn 2- ;;
    nodes1k) tune nodes1k smpi --sim hornet --procs 1024 --procs-cover 512- --ppn 2- \
               --candidates "$large" ;;
    *) echo "unknown section $section" >&2; exit 2 ;;
  esac
done

if (($# == 0)); then
  {
    echo "# leancast's auto: which algorithm a broadcast runs, by process count (procs), ranks on"
    echo "# the most populated node (ppn) and size in bytes; the first rule that applies wins,"
    echo "# and where none does auto falls back to MPICH's selection. Made by"
    echo "# scripts/auto-table.sh from the measurements in docs/tuning/ (docs/tuning.md)."
    for section in ppn1 real2 node nodes nodes1k; do
      echo
      cat "$out/$section.rules"
    done
  } > "$LEANCAST_ROOT/data/auto.rules"
  echo "wrote $LEANCAST_ROOT/data/auto.rules"
fi
