#!/usr/bin/env bash
# docs/benchmarks.md#beyond-181-ranks's measurements on the hornet model, each a leancast-sim run whose JSON
# lands in out/large-scale/ and then, compacted, in the study's evidence,
# evidence/large-scale.jsonl.gz, as the line of source large-scale/NAME.json (a run the
# evidence holds is not made again: take its line out to redo it; update the study's entry
# in evidence/manifest.json after). The page's tables come from the evidence:
# python3 scripts/large-scale-summary.py --table 7330|auto-check|speed.
#   bash scripts/large-scale.sh check    # auto beside SMPI's broadcasts, P = 512, 1024, 2048
#   bash scripts/large-scale.sh 7330     # MPICH issue #7330's layout: 12 ranks a node
#   bash scripts/large-scale.sh ompi     # knomial:4@dataflow:0 beside smpi:ompi (a stand-in)
#   bash scripts/large-scale.sh executors  # the leading trees under each executor, 1-16 MiB
#   bash scripts/large-scale.sh speed    # leancast-sim's wall time, this build and fc72683's
#   bash scripts/large-scale.sh dragonfly  # hornet's network against SimGrid's dragonfly (fc72683)
#   bash scripts/large-scale.sh skew     # one broadcast behind SMPI's barrier (osu) and with sync
#   bash scripts/large-scale.sh binomial # leancast's binomial beside SMPI's, P = 256
#   bash scripts/large-scale.sh layouts  # auto at 12 and 17 ranks a node (docs/auto.md)
#   bash scripts/large-scale.sh tables   # only the tables, from the evidence
# auto's own evidence (evidence/auto-large.jsonl.gz) comes from scripts/large-scale-tune.py.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$LEANCAST_ROOT"  # records name paths relative to here
out=out/large-scale
study=evidence/large-scale.jsonl.gz
mkdir -p "$out"
sim=build/smpi/leancast-sim

# leancast-sim's cache, as scripts/large-scale-tune.py keeps it: a run stopped part-way (or
# at the limit) keeps the smpiruns it finished, for the next try.
export LEANCAST_SIM_CACHE=${LEANCAST_SIM_CACHE:-$LEANCAST_ROOT/out/tuning/large/cells}

# run JSON LIMIT_SECONDS ARGS...: one leancast-sim run unless the evidence holds it; then its
# run goes into the evidence and the cache forgets what the JSON holds.
run() {
  local json=$1 limit=$2
  shift 2
  local source=${json#out/}
  zcat "$study" | grep -q "\"source\":\"$source\"" && return 0
  echo "+ leancast-sim $* --json $json" >&2
  if timeout "$limit" "$sim" "$@" --json "$json" > "${json%.json}.log" 2>&1; then
    python3 scripts/large-scale-tune.py --forget "$json"
    python3 tools/tune/leancast_tune/evidence.py --add "$study" "$source=$json"
  else
    echo "  failed or timed out (see ${json%.json}.log)" >&2
  fi
}

parts=("$@")
((${#parts[@]})) || parts=(check 7330)
for part in "${parts[@]}"; do
  case $part in
    check)
      build_leancast smpi
      # The issue's points: auto, in one run per count, beside SMPI's default (its binomial
      # tree), its copies of Open MPI's and MPICH's selections and MPICH's ring and tree,
      # which auto's evidence (evidence/auto-large.jsonl.gz) simulated in one run each with the same
      # method on the same model; a count whose evidence is not complete (whose groups are
      # not all measured, the same counts the rules come from) is not checked.
      complete=" $(python3 scripts/large-scale-tune.py --complete) "
      for procs in 512 1024 2048; do
        [[ $complete == *" $procs "* ]] || continue
        run "$out/auto-p$procs.json" 7200 --platform hornet --procs "$procs" \
          --ranks-per-node 24 --algorithms auto --sizes 64K,1M,16M
        # The references the evidence left out at these sizes (pruned: far slower at the
        # count before), simulated here so that the check has all of them: each at the
        # sizes it lacks (MPICH's ring costs P^2 messages a size).
        while read -r algorithm sizes; do
          [[ -n $algorithm ]] || continue
          run "$out/references-p$procs-${algorithm#smpi:}.json" 7200 --platform hornet \
            --procs "$procs" --ranks-per-node 24 --algorithms "$algorithm" --sizes "$sizes"
        done <<< "$(python3 scripts/large-scale-summary.py --missing "$procs" 64K,1M,16M)"
      done ;;
    7330)
      build_leancast smpi
      # 512 nodes x 12 ranks as on Aurora is 6144 ranks; the largest P simulated here in
      # that layout: 2048 (171 nodes). The ring's P^2 messages set the limit. MPICH's tree
      # and ring, and leancast's two-tree: smpi:mpich runs the tree to the nanosecond at
      # these counts, recursive doubling was the slowest from 64 KiB at 256-1024 ranks, and
      # SMPI's selectors take about half an hour each to start 2048 ranks on 2 cores.
      run "$out/7330-p2048-ppn12.json" 14400 --platform hornet --procs 2048 \
        --ranks-per-node 12 --sizes 64K,1M --jobs 2 \
        --algorithms smpi:binomial_tree,smpi:scatter_LR_allgather,two-tree ;;
    ompi)
      build_leancast smpi
      # smpi:ompi below 256 KiB from 256 ranks on is MVAPICH2's 4-nomial tree, after a set-up
      # of node communicators that grows as P^2 (66 of 67 minutes at 2048 ranks): the same
      # tree as leancast runs it round by round, a stand-in beyond 2048 ranks where it takes
      # smpi:ompi's time at every count both are simulated (evidence/auto-large.jsonl.gz).
      for procs in 256 512 1024 2048; do
        sizes=1K,12288,64K
        ((procs == 2048)) && sizes=1K,64K
        run "$out/ompi-standin-p$procs.json" 3600 --platform hornet --procs "$procs" \
          --ranks-per-node 24 --algorithms knomial:4@dataflow:0 --sizes "$sizes"
      done
      # Above 512 KiB at 1024 ranks (256 KiB from 2048) smpi:ompi runs SMPI's scatter +
      # recursive doubling, which stands for it where it is not simulated
      # (large-scale-summary.py's runs_as); here at the sizes smpi:ompi was simulated.
      run "$out/ompi-standin-large-p1024.json" 3600 --platform hornet --procs 1024 \
        --ranks-per-node 24 --algorithms smpi:scatter_rdb_allgather --sizes 1M,4M,16M ;;
    executors)
      build_leancast smpi
      # auto's evidence has the large sizes under the default executor only (hours at 1024
      # ranks and up): the trees that lead there under the others, at 256 ranks.
      run "$out/executors-large-p256.json" 3600 --platform hornet --procs 256 \
        --ranks-per-node 24 --sizes 1M,16M \
        --algorithms two-tree:16K,two-tree:16K@dataflow:0,two-tree:16K@dataflow,two-tree@dataflow:0,pipeline-chain:16K@dataflow:0 ;;
    speed)
      build_leancast smpi
      # The same cells with leancast-sim as it was before issue 29 (fc72683: one smpirun of
      # all algorithms, paper method, 10 iterations, the full bench copied per rank) and as
      # it is; an idle machine wanted (wall times).
      before=${LEANCAST_BEFORE:-/tmp/leancast-before}  # a worktree of fc72683, built if absent
      if [[ ! -x $before/build/smpi/leancast-sim ]]; then
        git worktree add -f "$before" fc72683 > /dev/null
        cmake -S "$before" -B "$before/build/smpi" -DLEANCAST_MPI=smpi > /dev/null
        cmake --build "$before/build/smpi" -j "$JOBS" --target leancast-bench platform_hornet > /dev/null
      fi
      python3 scripts/large-scale-summary.py --speed "$before/build/smpi/leancast-sim" "$sim"
      python3 tools/tune/leancast_tune/evidence.py --add "$study" \
        large-scale/speed.json=out/large-scale/speed.json ;;
    dragonfly)
      build_leancast smpi
      # fc72683's hornet (SimGrid's dragonfly) beside today's (explicit routes), both loaded
      # as platform files with the same host file and placement, P = 129 and 256.
      old=$(mktemp -d)
      for f in hornet.cpp node.cpp node.hpp smpi_settings.cpp smpi_settings.hpp; do
        git show "fc72683:tools/sim/platforms/$f" > "$old/$f"
      done
      g++ -O2 -shared -fPIC -std=c++17 -o "$old/hornet.so" "$old"/*.cpp -lsimgrid
      for procs in 129 256; do
        python3 -c "print('\n'.join(f'node-{r // 24}-core-{r % 24}' for r in range($procs)))" > "$old/hosts"
        for which in dragonfly routes; do
          platform=$old/hornet.so
          [[ $which == routes ]] && platform=build/smpi/platforms/hornet.so
          LEANCAST_RANKS_PER_NODE=24 LEANCAST_SIM_NODES=$(( (procs + 23) / 24 )) \
            run "$out/network-$which-p$procs.json" 3600 --platform "$platform" --hosts "$old/hosts" \
            --procs "$procs" --sizes 4K,1M,16M --no-cache \
            --algorithms mpi,two-tree:16K,scatter-ring,node-aware:two-tree:16K/two-tree:16K,pipeline-chain,circulant,pipeline-binary-tree:16K
        done
      done
      rm -rf "$old" ;;
    skew)
      build_leancast smpi
      # SMPI's binomial tree of 1 KiB, timed behind its default (linear) barrier and from a
      # common start.
      for procs in 256 1024; do
        for method in osu sync; do
          run "$out/skew-p$procs-$method.json" 3600 --platform hornet --procs "$procs" \
            --algorithms smpi:binomial_tree --sizes 1K --method "$method" --iterations 1
        done
      done ;;
    binomial)
      build_leancast smpi
      # leancast's binomial tree alone at 256 ranks (SMPI's, in the check's references).
      run "$out/binomial-p256.json" 3600 --platform hornet --procs 256 --ranks-per-node 24 \
        --algorithms binomial --sizes 64K,1M ;;
    layouts)
      build_leancast smpi
      # The simulated sections claim 24 ranks a node: auto beside the library's broadcasts
      # at other layouts (docs/auto.md, "Across nodes the simulated sections claim 24 ranks").
      mkdir -p "$out/layouts"
      for ppn in 12 17; do
        for procs in 129 256; do
          run "$out/layouts/ppn$ppn-p$procs.json" 3600 --platform hornet --procs "$procs" \
            --ranks-per-node "$ppn" --sizes 64K,1M,16M \
            --algorithms auto,mpi,smpi:ompi,smpi:mpich,smpi:binomial_tree,smpi:scatter_LR_allgather
        done
      done ;;
    tables)
      for table in 7330 auto-check speed; do
        echo "== python3 scripts/large-scale-summary.py --table $table"
        python3 scripts/large-scale-summary.py --table "$table"
      done ;;
    *) echo "unknown part $part (check, 7330, ompi, executors, speed, dragonfly, skew, binomial," \
            "layouts, tables)" >&2; exit 2 ;;
  esac
done
