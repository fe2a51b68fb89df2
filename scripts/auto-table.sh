#!/usr/bin/env bash
# Rebuilds data/auto.rules, auto's built-in table, from measurements: each section is one
# leancast-tune run (or several) whose runs are the section's evidence in evidence/ (docs/auto.md
# explains them). Every candidate is measured beside the MPI library's own broadcast (mpi; in SMPI also
# SMPI's copies of Open MPI's and MPICH's selections, smpi:ompi and smpi:mpich), under both
# timing methods (back-to-back and barrier before each); a rule names a leancast algorithm
# only where it beat all of them by more than the margin under both, else mpi. Where no rule
# applies, auto runs mpi. Sections, in the table's order (the first matching rule wins):
#   real-openmpi-sm  real Open MPI with coll sm forced (OMPI_MCA_coll_sm_priority=100), this
#                 machine, 2 ranks: what auto runs where the user configured that broadcast
#                 (library=openmpi configured=OMPI_MCA_coll_sm_priority=100, P = 2)
#   real-openmpi  real Open MPI on this machine, 2 ranks on 2 cores     (library=openmpi, P = 2)
#   real-mpich-rg  real MPICH with its release_gather broadcast forced
#                 (MPIR_CVAR_BCAST_POSIX_INTRA_ALGORITHM=release_gather), this machine, 2 ranks
#                 (library=mpich configured=MPIR_CVAR_BCAST_POSIX_INTRA_ALGORITHM=release_gather)
#   real-mpich    real MPICH on this machine, 2 ranks on 2 cores        (library=mpich, P = 2)
#                 (each real section: two tuning runs per machine, each a tuning of its own
#                 in the evidence, and a rule only where a candidate won in every one)
#   real16-openmpi  real Open MPI on a 16-core node, P = 4, 8, 16: the device's campaign1
#                 (../shared/device/README.md) and, for the osu method at P = 4 and 8,
#                 scripts/within-node-16core.sh's default-configuration runs; evidence in
#                 evidence/real-16core.jsonl.gz                    (library=openmpi, P = 3-16)
#   real16-mpich  the same, MPICH (campaign1 at P = 16; the within-node runs, osu, at 4 and 8)
#                                                                   (library=mpich, P = 3-16)
#   node          one-node model (docs/benchmarks.md#the-one-node-model-against-the-real-node), P = 8, 16, 24    (P = 6-24 on one node)
#   nodes         the same nodes of 24 on hornet's network, P = 33, 64, 129  (P = 25-181, ppn 24)
#   ppn1          hornet's network, one rank per node, P = 16, 64        (P = 8-91, ppn = 1)
#   large         hornet, 24 ranks per node, P = 256-4096 (scripts/large-scale-tune.py, --method
#                 sync, the registry's candidates; docs/benchmarks.md#beyond-181-ranks)   (P = 182-5793, ppn 24)
#   large-ppn12, large-ppn17  hornet, 12 and 17 ranks a node, P = 182-512, 64 KiB-16 MiB
#                 every 4x, --method sync, --predict with 8 of the 20 cells measured
#                 (docs/auto.md#a-machine-too-large-to-measure)   (P = 182-724, ppn 12 and 17)
# Simulated sections measure every leancast candidate under three executors (leancast's
# default dataflow:1, unbounded dataflow and dataflow:0, docs/algorithms.md#executors), so
# that a rule names the one that won (NAME@EXECUTOR); they demand a 10 % lead (--tie 0.1):
# the validated model still misses sizes by that much (docs/benchmarks.md#the-one-node-model-against-the-real-node). The
# leancast re-implementations of MPICH's algorithms (--reference) are candidates that win
# ties, never a veto over what the library (mpi, smpi:ompi, smpi:mpich) ran. Real sections demand 15 % (--tie 0.15): on this
# 2-core machine a second run of the same contenders moved shm's large-message ratios by up
# to 2x (16 MiB under Open MPI: 1.05x in the tuning run, 0.52x and 0.78x in
# `auto-table.sh vs-mpi`), far beyond one run's spread.
# The evidence: evidence/auto-SECTION.jsonl.gz per section (the compact form of leancast-tune's
# --json, tools/tune/leancast_tune/evidence.py; each run of a real section a tuning of its
# own), the real16 sections' in evidence/real-16core.jsonl.gz, each listed in
# evidence/manifest.json. A measurement's raw JSON, logs and rules go to out/tuning/ (not
# kept), its runs into the section's evidence file, its rules into the section's block of
# data/auto.rules (a block: the lines from one blank line to the next, in the order below).
# Usage: scripts/auto-table.sh [SECTION...]   (measure; default: every section)
#        KEEP_RUNS=1 scripts/auto-table.sh real-openmpi real-mpich   (this machine's runs
#            added to the section's evidence; without it they replace it)
#        KEEP_RUNS=1 METHODS=fresh scripts/auto-table.sh real-openmpi   (runs under these
#            timing methods, leancast-tune --methods, instead of paper,osu; a rule must then
#            win under every method of the section's evidence)
#        scripts/auto-table.sh rules          (no measuring: every section's rules again from
#            evidence/, into data/auto.rules; with LEANCAST_TUNE_TOOL=PATH by that tool,
#            nothing built)
#        scripts/auto-table.sh vs-mpi [real] [sim]   (auto beside MPI_Bcast, no rules: vs_mpi)
#        LEANCAST_TUNE_TOOL=PATH scripts/auto-table.sh check   (test openmpi.tune_auto_rules:
#            data/auto.rules is the preamble and, block by block, what every section
#            derives from evidence/, comments included; nothing is built or written)
# Real sections want an otherwise idle machine.
set -euo pipefail
source "$(dirname "$0")/env.sh"
[[ ${1:-} == check ]] || "$LEANCAST_ROOT/scripts/install-deps.sh"
cd "$LEANCAST_ROOT"  # records name paths relative to here
raw=out/tuning  # a measurement's leancast-tune --json, logs and rules, before compacting
made=$raw/rules  # the rules a run of this script derives, before data/auto.rules holds them
all=(real-openmpi-sm real-openmpi real-mpich-rg real-mpich real16-openmpi real16-mpich node nodes ppn1 large
     large-ppn12 large-ppn17)
sections=("$@")
((${#sections[@]})) || sections=("${all[@]}")

flat="linear,binomial,knomial:8,scatter-doubling,scatter-ring-tuned,pipeline-chain:16K"
flat+=",pipeline-chain,pipeline-binary-tree:16K,pipeline-binary-tree,two-tree:16K,two-tree,circulant"
aware="node-aware:binomial/binomial,node-aware:knomial:8/binomial"
aware+=",node-aware:pipeline-binary-tree:16K/binomial,node-aware:pipeline-chain:16K/pipeline-chain:16K"
aware+=",node-aware:two-tree/pipeline-chain,node-aware:two-tree:16K/two-tree:16K"
aware+=",node-aware:scatter-ring-tuned/pipeline-chain:16K"
library="smpi:ompi,smpi:mpich"
sim_sizes="1000,4K,12288,30000,64K,150000,512K,1000000,2M,16M"
# From 64 B: a rule starts at the smallest size measured (issue 28 asks 64 B-64 MiB). Above
# 4 MiB on buffers rotated beyond the cache, as scripts/within-node-measure.sh times them: this
# VM reports its host's 508 MiB last-level cache, under which the bench rotates nothing, and
# unrotated (a discarded pair of runs at f89bf8a) shm:64K led at 16 MiB, 2.7x MPI_Bcast, where
# the rotated within-node runs have cma-split fastest.
real_grid=(--sizes 64,256,1K,4K,16K,64K,256K,1M,4M,16M,64M --rotate-above 4M)
executors="--executors dataflow,dataflow:0"

# Per section: the build that measures (flavor), how it measures (measure: sets args) and
# what its rules claim (rules).
declare -A flavor=([real-openmpi-sm]=openmpi [real-openmpi]=openmpi [real-mpich-rg]=mpich [real-mpich]=mpich [real16-openmpi]=openmpi
                   [real16-mpich]=mpich [node]=smpi [nodes]=smpi [ppn1]=smpi
                   [large]=smpi [large-ppn12]=smpi [large-ppn17]=smpi)
# In simulation the library's broadcast is SMPI's default (mpi), SMPI's copies of Open MPI's
# and MPICH's selections (smpi:ompi, smpi:mpich) and, as --reference, what MPICH runs, in
# leancast's algorithms: SMPI's mpich runs its SMP trees on every communicator, and with one
# simulated host per core it sees no nodes. linear is never chosen on one node: the real node
# measured it below MPI_Bcast at P = 4, 8 and 16 (auto ran it there). Below 6 ranks the model
# is not used: at P = 4 it gives leancast's best 1.11-1.42x the library's broadcast where the
# real node measured at most 1.09x, and it misses the tuned ring's gain there (F10).
mpich_flat="binomial,scatter-doubling,scatter-ring"
mpich_smp="$mpich_flat,node-aware:binomial/binomial,node-aware:scatter-doubling/binomial"
mpich_smp+=",node-aware:scatter-ring/scatter-ring"
# Across nodes the rules claim the 24 ranks a node simulated, no more: at 12 and 17 a node
# MPICH's ring beat auto's choice at 16 MiB (docs/auto.md).
# The layouts beyond 181 ranks other than 24 a node: --predict's grid (--budget-cells 8).
large_grid="--predict --procs 182,256,362,512 --sizes 64K,256K,1M,4M,16M"
declare -A rules=(
  [real-openmpi-sm]="--procs-cover 2-2 --tie 0.15"
  [real-openmpi]="--procs-cover 2-2 --tie 0.15"
  [real-mpich-rg]="--procs-cover 2-2 --tie 0.15"
  [real-mpich]="--procs-cover 2-2 --tie 0.15"
  [real16-openmpi]="--procs-cover 3-16 --tie 0.15 --exclude auto"
  [real16-mpich]="--procs-cover 3-16 --tie 0.15 --exclude auto"
  [node]="--procs-cover 6-24 --tie 0.1 --library any --exclude linear --reference $mpich_flat"
  [nodes]="--procs-cover 25-181 --ppn 24-24 --tie 0.1 --library any --reference $mpich_smp"
  [ppn1]="--procs-cover 8-91 --ppn 1 --tie 0.1 --library any --reference $mpich_flat"
  [large-ppn12]="$large_grid --procs-cover 182-724 --ppn 12-12 --tie 0.1 --tie-break 0.05 --library any"
  [large-ppn17]="$large_grid --procs-cover 182-724 --ppn 17-17 --tie 0.1 --tie-break 0.05 --library any"
)
# The other layouts beyond 181 ranks: the large section's winners at 24 a node against the
# library's broadcasts, MPICH's ring among them (it beat two-tree at 16 MiB with 12 and 17 a
# node), measured at 182 too: there the node-aware two-tree was 1.24x two-tree:16K at 1 MiB
# with 12 a node, which at 256 ranks it tied (smpi.auto_table); ties as the large section's.
layouts="two-tree:16K,two-tree,node-aware:two-tree:16K/two-tree:16K,smpi:ompi"
layouts+=",smpi:scatter_LR_allgather,smpi:scatter_rdb_allgather"
measure() {
  case $1 in
    # Open MPI as it runs by default where cross-memory attach is allowed: vader's single
    # copy on (env.sh turns it off for the tests, for machines that forbid it).
    real-openmpi) args=(--site --launcher "env OMPI_MCA_btl_vader_single_copy_mechanism=cma mpirun --oversubscribe -n {procs}"
                        --procs 2 --budget-minutes 6 "${real_grid[@]}") ;;
    # The same with coll sm forced: the rules carry that configuration (configured=), and
    # auto follows them only under it; rules without it only under the library's defaults.
    real-openmpi-sm) args=(--site --launcher "env OMPI_MCA_coll_sm_priority=100 OMPI_MCA_btl_vader_single_copy_mechanism=cma mpirun --oversubscribe -n {procs}"
                           --procs 2 --budget-minutes 6 "${real_grid[@]}") ;;
    # Bound to cores, as Open MPI binds by default (scripts/within-node-measure.sh says why).
    real-mpich-rg) args=(--site --launcher "env MPIR_CVAR_BCAST_POSIX_INTRA_ALGORITHM=release_gather mpiexec.mpich -bind-to core -n {procs}"
                         --procs 2 --budget-minutes 6 "${real_grid[@]}") ;;
    real-mpich) args=(--site --launcher "mpiexec.mpich -bind-to core -n {procs}" --procs 2 --budget-minutes 6
                      "${real_grid[@]}") ;;
    node) args=(--sim hornet --procs 8,16,24 --candidates "$flat,$library" --sizes "$sim_sizes"
                --iterations 10 $executors) ;;
    nodes) args=(--sim hornet --procs 33,64,129 --candidates "$flat,$aware,$library"
                 --sizes "$sim_sizes" --iterations 3 $executors) ;;
    ppn1) args=(--sim hornet --ranks-per-node 1 --procs 16,64 --candidates "$flat,$library"
                --sizes "$sim_sizes" --iterations 3 $executors) ;;
    large-ppn*) args=(--sim hornet --ranks-per-node "${1#large-ppn}" --budget-cells 8
                      --methods sync --candidates "$layouts") ;;
    real16-*) echo "$1 is measured on the 16-core machine (../shared/device/README.md," \
                  "campaign1); 'rules' derives it from evidence/real-16core.jsonl.gz" >&2; exit 2 ;;
    *) echo "unknown section $1" >&2; exit 2 ;;
  esac
}
# The 16-core sections' leancast-tune input: of evidence/real-16core.jsonl.gz, the device's
# leancast-bench runs (paper and osu, the library's default broadcast as mpi), which
# leancast-tune --from-json reads as one --site measurement (tools/tune/leancast_tune/bench_runs.py):
# campaign1 (every algorithm), and the within-node runs' default configuration where campaign1
# has no run of that count and method (osu at P = 4 and 8). A count and method comes from one
# run only: the tuner keeps the last cell it reads, and ratios must stay within one run.
# (--select: shell patterns over the runs' source, the path each was first written to.)
device_runs() {
  local lib=${1#real16-} tag dir=docs/benchmarks/real-16core
  [[ $lib == openmpi ]] && tag=ompi || tag=mpich
  echo "$dir/campaign1/$tag-p*-*.json,$dir/campaign1/$tag-osu-p*-*.json,$dir/within16/$tag-p[48]-default-*.json"
}

# derive NAME DIR TUNE: the section's rules from its evidence, by the leancast-tune TUNE,
# into DIR/NAME.rules (large: scripts/large-scale-tune.py --rules, which knows its counts).
derive() {
  local name=$1 dir=$2 tune=$3
  case $name in
    large) python3 scripts/large-scale-tune.py --rules --tune "$tune" --out "$dir/large.rules" \
             > /dev/null ;;
    # shellcheck disable=SC2086
    real16-*) "$tune" --from-json evidence/real-16core.jsonl.gz --select "$(device_runs "$name")" \
                ${rules[$name]} --out "$dir/$name.rules" > /dev/null ;;
    # shellcheck disable=SC2086
    *) "$tune" --from-json "evidence/auto-$name.jsonl.gz" ${rules[$name]} \
         --out "$dir/$name.rules" > /dev/null ;;
  esac
}
block() {  # block NAME: the section's block of data/auto.rules
  local i
  for i in "${!all[@]}"; do
    [[ ${all[$i]} == "$1" ]] && awk -v n=$((i + 2)) 'BEGIN { RS = "" } NR == n' data/auto.rules
  done
}
preamble() {
  echo "# leancast's auto: which algorithm a broadcast runs, by process count (procs), ranks on"
  echo "# the most populated node (ppn), size in bytes and, for real measurements, the MPI"
  echo "# library (library=) and its configuration (configured=: rules measured with the"
  echo "# library's broadcast configured apply under that configuration only, the others only"
  echo "# under its defaults); the first rule that applies wins. Where none applies, auto runs"
  echo "# the MPI library's own MPI_Bcast (mpi): leancast leaves the library's broadcast only"
  echo "# where a measurement says a leancast algorithm is faster there. Made by"
  echo "# scripts/auto-table.sh from the measurements in evidence/ (docs/auto.md); each"
  echo "# section's header says where its evidence comes from."
}
assemble() {  # assemble DIR: data/auto.rules, each section's block DIR/NAME.rules where made
  local section text
  text=$(preamble
         for section in "${all[@]}"; do
           echo
           if [[ -e $1/$section.rules ]]; then cat "$1/$section.rules"; else block "$section"; fi
         done)
  echo "$text" > data/auto.rules
  echo "wrote data/auto.rules"
}

if [[ ${sections[0]} == check ]]; then
  check=$(mktemp -d)
  trap 'rm -rf "$check"' EXIT
  failed=0
  if (($(awk 'BEGIN { RS = "" } END { print NR }' data/auto.rules) != ${#all[@]} + 1)); then
    echo "FAILED: data/auto.rules is not a preamble and ${#all[@]} blocks (one per section)"
    exit 1
  fi
  if ! diff <(awk 'BEGIN { RS = "" } NR == 1' data/auto.rules) <(preamble) > "$check/diff"; then
    echo "FAILED: data/auto.rules's preamble is not the script's (< the file, > the script's):"
    cat "$check/diff"
    failed=1
  fi
  for name in "${all[@]}"; do
    derive "$name" "$check" "${LEANCAST_TUNE_TOOL:?LEANCAST_TUNE_TOOL=path of leancast-tune}"
    # The header names the rules file the tool wrote: `rules` writes it to $made.
    if ! diff <(block "$name") <(sed "/^#   leancast-tune --from-json/s|--out '*[^ ']*/$name.rules'*|--out $made/$name.rules|" \
                                 "$check/$name.rules") \
         > "$check/diff"; then
      echo "FAILED: data/auto.rules's $name block is not what its evidence gives (< the file," \
           "> derived now; scripts/auto-table.sh rules):"
      cat "$check/diff"
      failed=1
    else
      echo "ok: data/auto.rules's $name block follows from its evidence" \
           "($(grep -vc '^#' "$check/$name.rules") rules)"
    fi
  done
  exit "$failed"
fi

# auto beside the library's own MPI_Bcast (mpi), side by side in one run, interleaved, per
# size from 1 KiB to 64 MiB (every 4x), under both methods: real Open MPI at P = 2 and 4
# (4 oversubscribed on 2 cores), MPICH at P = 2; with `sim` also SMPI (the one-node model
# at P = 8, 16, 24, hornet at P = 64 with 24 ranks a node, beside smpi:ompi and
# smpi:mpich). Raw JSON in out/vs-mpi/, compacted into evidence/auto-vs-mpi.jsonl.gz;
# scripts/auto-summary.py prints the table docs/auto.md holds.
vs_mpi() {
  library_defaults  # MPI_Bcast as Open MPI runs it by default (env.sh)
  local dir=out/vs-mpi files=() small=(--sizes 1K:256K:4 --iterations 200 --reps 9)
  local large=(--sizes 1M:64M:4 --iterations 10 --reps 9) part setup flavor procs method grid
  rm -rf "$dir"
  mkdir -p "$dir"
  for part in "$@"; do
    case $part in
      real)
        build_leancast openmpi
        build_leancast mpich
        for setup in "openmpi 2" "openmpi 4" "mpich 2"; do
          read -r flavor procs <<< "$setup"
          local launch=(mpirun --oversubscribe -n "$procs")
          [[ $flavor == mpich ]] && launch=(mpiexec.mpich -bind-to core -n "$procs")
          for method in paper osu; do
            for grid in small large; do
              local sizes=("${small[@]}") name=real-$flavor-p$procs-$method-$grid
              [[ $grid == large ]] && sizes=("${large[@]}")
              timeout 900 "${launch[@]}" "build/$flavor/leancast-bench" --algorithms auto,mpi \
                --baseline mpi --method "$method" "${sizes[@]}" --quiet --json "$dir/$name.json"
              files+=("$name=$dir/$name.json")
            done
          done
        done ;;
      sim)
        build_leancast smpi
        for setup in "8 0" "16 0" "24 0" "64 24"; do
          read -r procs per_node <<< "$setup"
          local layout=()
          ((per_node)) && layout=(--ranks-per-node "$per_node")
          for method in paper osu; do
            # A simulation repeats exactly: one repetition; large sizes need few iterations.
            for grid in "small 1K:256K:4 10" "large 1M:64M:4 2"; do
              local gname gsizes iterations
              read -r gname gsizes iterations <<< "$grid"
              local name=sim-hornet-p$procs-$method-$gname
              timeout 1800 build/smpi/leancast-sim --platform hornet --procs "$procs" \
                "${layout[@]}" --algorithms auto,mpi,smpi:ompi,smpi:mpich --baseline mpi \
                --method "$method" --sizes "$gsizes" --iterations "$iterations" \
                --json "$dir/$name.json"
              files+=("$name=$dir/$name.json")
            done
          done
        done ;;
      *) echo "unknown part $part of vs-mpi (real, sim)" >&2; exit 2 ;;
    esac
  done
  python3 tools/tune/leancast_tune/evidence.py evidence/auto-vs-mpi.jsonl.gz "${files[@]}"
  echo "wrote evidence/auto-vs-mpi.jsonl.gz: update its entry in evidence/manifest.json"
  python3 scripts/auto-summary.py evidence/auto-vs-mpi.jsonl.gz
}
if [[ ${sections[0]} == vs-mpi ]]; then
  parts=("${sections[@]:1}")
  ((${#parts[@]})) || parts=(real sim)
  vs_mpi "${parts[@]}"
  exit 0
fi

rm -rf "$made"
mkdir -p "$raw" "$made"
for section in "${sections[@]}"; do
  if [[ $section == rules ]]; then  # every section's rules again from its evidence
    for name in "${all[@]}"; do
      if [[ -n ${LEANCAST_TUNE_TOOL:-} ]]; then  # one tool derives every section
        derive "$name" "$made" "$LEANCAST_TUNE_TOOL"
        continue
      fi
      build_leancast "${flavor[$name]}"
      derive "$name" "$made" "$LEANCAST_ROOT/build/${flavor[$name]}/leancast-tune"
    done
    continue
  fi
  if [[ $section == large ]]; then  # one leancast-tune run per count and size group
    build_leancast smpi
    python3 scripts/large-scale-tune.py
    derive large "$made" "$LEANCAST_ROOT/build/smpi/leancast-tune"
    continue
  fi
  if [[ $section == real16-* ]]; then
    # Measured on the 16-core machine only: here derived from its runs.
    build_leancast "${flavor[$section]}"
    derive "$section" "$made" "$LEANCAST_ROOT/build/${flavor[$section]}/leancast-tune"
    continue
  fi
  measure "$section"
  build_leancast "${flavor[$section]}"
  tune="$LEANCAST_ROOT/build/${flavor[$section]}/leancast-tune"
  evidence=evidence/auto-$section.jsonl.gz
  runs=("$raw/$section")
  # Real sections are measured twice at once, and the rules derived from both runs: a
  # candidate wins a size only where it won in each. On one VM here shm's times came in two
  # modes minutes apart, and a rule from one run (MPICH's shm:64K at 32 KiB-8 MiB at
  # 35b898f) was 0.50-0.88x MPI_Bcast in a run right after (docs/auto.md). The machines
  # under this project change between sessions (VMs of one CPU name, an 8 MiB last-level
  # cache on one, 508 MiB and system calls twice as dear on another): KEEP_RUNS=1 adds this
  # machine's two runs to the section's evidence instead of replacing it, so that a rule
  # holds on each machine measured.
  [[ $section == real-* ]] && runs+=("$raw/$section-2")
  for run in "${runs[@]}"; do
    echo "== $section: leancast-tune ${args[*]} ${rules[$section]} (${run##*/})"
    # shellcheck disable=SC2086
    "$tune" "${args[@]}" ${METHODS:+--methods "$METHODS"} ${rules[$section]} --out "$run.rules" \
      --json "$run.json" > "$run.log" 2>&1
  done
  add=()
  [[ $section == real-* && ${KEEP_RUNS:-0} == 1 ]] && add=(--add)
  python3 tools/tune/leancast_tune/evidence.py "${add[@]}" "$evidence" \
    "${runs[@]/%/.json}"
  echo "wrote $evidence: update its entry in evidence/manifest.json (commit, date, machine)"
  derive "$section" "$made" "$tune"
done
assemble "$made"
