#!/usr/bin/env bash
# Rebuilds data/auto.rules, auto's built-in table, from measurements: each section is one
# leancast-tune run whose rules and raw JSON land in docs/tuning/ (docs/auto.md explains
# them). Sections, in the table's order (the first matching rule wins):
#   ppn1     hornet model, one rank per node, P = 16, 64, 256          (ppn=1)
#   real2    real Open MPI on this machine, 2 ranks on 2 cores         (procs=2)
#   node     hornet model, one node, P = 8, 16 and 24                  (procs 3-24 on one node)
#   nodes    hornet model, 24 ranks per node, P = 33, 64, 65, 129, 256 (procs 25-511)
#   nodes1k  hornet model, 24 ranks per node, P = 1024, fewer candidates (procs 512-)
# Usage: scripts/auto-table.sh [SECTION...]   (default: all, then the table is assembled)
#        scripts/auto-table.sh rules          (no measuring: rules again from the JSONs)
# About two hours on 2 cores, most of it nodes1k (whose ranks share one buffer,
# leancast-bench --shared-buffer: 1024 x 16 MiB would not fit in memory).
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$LEANCAST_ROOT/scripts/install-deps.sh"
out="$LEANCAST_ROOT/docs/tuning"
mkdir -p "$out"
sections=("$@")
((${#sections[@]})) || sections=(ppn1 real2 node nodes nodes1k)

# At 1024 ranks, the candidates that won or came close at 64 and 256 (nodes.rules) plus
# the node-aware pairs, at every other size of the grid: the O(P^2) ring, the recursive
# doubling and the flat circulant (24 ranks of a node sharing one NIC) lost everywhere
# before, and each simulation here takes minutes.
large="binomial,knomial:8,pipeline-chain:16K,pipeline-binary-tree:16K"
large+=",pipeline-binary-tree,two-tree:16K,two-tree,node-aware:binomial/binomial"
large+=",node-aware:knomial:8/binomial,node-aware:pipeline-binary-tree:16K/binomial"
large+=",node-aware:pipeline-chain:16K/pipeline-chain:16K,node-aware:two-tree/pipeline-chain"
large+=",node-aware:circulant/pipeline-chain,node-aware:two-tree:16K/linear"

# Per section: the build that measures, what the rules claim, and how it measures. Flat
# linear is measured everywhere but chosen only within one node: the model charges no
# per-message CPU time, so its P - 1 concurrent sends win tiny sizes at any P there, which
# no machine with a few hundred ranks shares (docs/auto.md). Real runs tie within 3 %: at
# P = 2 every candidate sends the same one message, and repetitions spread by that much.
declare -A flavor rules measure
flavor[ppn1]=smpi;   rules[ppn1]="--ppn 1 --exclude linear"
measure[ppn1]="--sim hornet --ranks-per-node 1 --procs 16,64,256"
flavor[real2]=openmpi; rules[real2]="--procs-cover 2-2 --ppn 2 --tie 0.03"
measure[real2]="--procs 2 --iterations 20 --reps 7"
flavor[node]=smpi;   rules[node]="--procs-cover 3-24 --ppn 3-24"
measure[node]="--sim hornet --procs 8,16,24"
flavor[nodes]=smpi;  rules[nodes]="--procs-cover 25-511 --ppn 2- --exclude linear"
measure[nodes]="--sim hornet --procs 33,64,65,129,256"
flavor[nodes1k]=smpi; rules[nodes1k]="--procs-cover 512- --ppn 2- --exclude linear"
measure[nodes1k]="--sim hornet --procs 1024 --candidates $large --sizes 8,4K,30000,150000,1000000,3000000,16M --shared-buffer"

for section in "${sections[@]}"; do
  if [[ $section == rules ]]; then  # re-derive every section's rules from its JSON
    build_leancast openmpi
    for name in ppn1 real2 node nodes nodes1k; do
      # shellcheck disable=SC2086
      "$LEANCAST_ROOT/build/openmpi/leancast-tune" --from-json "$out/$name.json" ${rules[$name]} \
        --out "$out/$name.rules" > /dev/null
    done
    continue
  fi
  [[ -n ${flavor[$section]:-} ]] || { echo "unknown section $section" >&2; exit 2; }
  build_leancast "${flavor[$section]}"
  launcher=()
  [[ $section == real2 ]] && launcher=(--launcher "mpirun --oversubscribe -n {procs}")
  # shellcheck disable=SC2086
  "$LEANCAST_ROOT/build/${flavor[$section]}/leancast-tune" "${launcher[@]}" ${measure[$section]} \
    ${rules[$section]} --out "$out/$section.rules" --json "$out/$section.json" > "$out/$section.log" 2>&1
done

if (($# == 0)) || [[ " ${sections[*]} " == *" rules "* ]]; then
  {
    echo "# leancast's auto: which algorithm a broadcast runs, by process count (procs), ranks on"
    echo "# the most populated node (ppn) and size in bytes; the first rule that applies wins,"
    echo "# and where none does auto falls back to MPICH's selection. Made by"
    echo "# scripts/auto-table.sh from the measurements in docs/tuning/ (docs/auto.md)."
    for section in ppn1 real2 node nodes nodes1k; do
      echo
      cat "$out/$section.rules"
    done
  } > "$LEANCAST_ROOT/data/auto.rules"
  echo "wrote $LEANCAST_ROOT/data/auto.rules"
fi
