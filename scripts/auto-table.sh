#!/usr/bin/env bash
# Rebuilds data/auto.rules, auto's built-in table, from measurements: each section is one
# leancast-tune run whose rules, raw JSON and log land in docs/tuning/ (docs/auto.md explains
# them). Every candidate is measured beside the MPI library's own broadcast (mpi; in SMPI also
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
#                 (each real section: two tuning runs per machine, SECTION.json, SECTION-2.json
#                 and on, and a rule only where a candidate won in every one)
#   real16-openmpi  real Open MPI on a 16-core node, P = 4, 8, 16: the device's campaign1
#                 (../shared/device/README.md) and, for the osu method at P = 4 and 8,
#                 scripts/within-node-16core.sh's default-configuration runs; raw JSON in
#                 docs/benchmarks/real-16core/                     (library=openmpi, P = 3-16)
#   real16-mpich  the same, MPICH (campaign1 at P = 16; the within-node runs, osu, at 4 and 8)
#                                                                   (library=mpich, P = 3-16)
#   node          one-node model (docs/one-node-model.md), P = 8, 16, 24    (P = 6-24 on one node)
#   nodes         the same nodes of 24 on hornet's network, P = 33, 64, 129  (P = 25-181, ppn 24)
#   ppn1          hornet's network, one rank per node, P = 16, 64        (P = 8-91, ppn = 1)
#   large         hornet, 24 ranks per node, P = 256-4096 (scripts/large-scale-tune.py, --method
#                 sync, the registry's candidates; docs/large-scale.md)   (P = 182-5793, ppn 24)
# Simulated sections measure every leancast candidate under three executors (leancast's
# default dataflow:1, unbounded dataflow and dataflow:0, docs/algorithms.md#executors), so
# that a rule names the one that won (NAME@EXECUTOR); they demand a 10 % lead (--tie 0.1):
# the validated model still misses sizes by that much (docs/one-node-model.md). The
# leancast re-implementations of MPICH's algorithms (--reference) are candidates that win
# ties, never a veto over what the library (mpi, smpi:ompi, smpi:mpich) ran. Real sections demand 15 % (--tie 0.15): on this
# 2-core machine a second run of the same contenders moved shm's large-message ratios by up
# to 2x (16 MiB under Open MPI: 1.05x in the tuning run, 0.52x and 0.78x in
# scripts/auto-vs-mpi.sh), far beyond one run's spread.
# Usage: scripts/auto-table.sh [SECTION...]   (default: all, then the table is assembled)
#        KEEP_RUNS=1 scripts/auto-table.sh real-openmpi real-mpich   (this machine's runs
#            added to the sections' runs so far; without it they replace them)
#        scripts/auto-table.sh rules          (no measuring: rules again from the JSONs)
#        scripts/auto-table.sh assemble       (only the table, from the sections' rules files)
#        LEANCAST_TUNE_TOOL=PATH scripts/auto-table.sh check   (test openmpi.tune_auto_rules: every
#            section but large derives from its JSON the rules its .rules file has, and
#            data/auto.rules is the sections' files together; nothing is built or written)
# Real sections want an otherwise idle machine.
set -euo pipefail
source "$(dirname "$0")/env.sh"
[[ ${1:-} == check ]] || "$LEANCAST_ROOT/scripts/install-deps.sh"
cd "$LEANCAST_ROOT"  # records name paths relative to here
out=docs/tuning
mkdir -p "$out"
all=(real-openmpi-sm real-openmpi real-mpich-rg real-mpich real16-openmpi real16-mpich node nodes ppn1 large)
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
                   [large]=smpi)
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
)
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
    real16-*) echo "$1 is measured on the 16-core machine (../shared/device/README.md," \
                  "campaign1); 'rules' derives it from docs/benchmarks/real-16core/" >&2; exit 2 ;;
    *) echo "unknown section $1" >&2; exit 2 ;;
  esac
}
# The 16-core sections' leancast-tune input, comma-separated: the device's leancast-bench
# files (paper and osu, the library's default broadcast as mpi), which leancast-tune
# --from-json reads as one --site measurement (tools/tune/leancast_tune/bench_runs.py):
# campaign1 (every algorithm), and the within-node runs' default configuration where campaign1
# has no run of that count and method (osu at P = 4 and 8). A count and method comes from one
# run only: the tuner keeps the last cell it reads, and ratios must stay within one run.
device_runs() {
  local lib=${1#real16-} tag dir=docs/benchmarks/real-16core
  [[ $lib == openmpi ]] && tag=ompi || tag=mpich
  local files=("$dir/campaign1/$tag"-p*-*.json "$dir/campaign1/$tag"-osu-p*-*.json
               "$dir/within16/$tag"-p[48]-default-*.json)
  (IFS=,; echo "${files[*]}")
}

# derive NAME DIR TUNE: the section's rules from its JSON (the real16 ones from the device's
# leancast-bench files), by the leancast-tune TUNE, into DIR/NAME.rules.
derive() {
  local name=$1 dir=$2 tune=$3 json=$out/$1.json
  [[ $name == real16-* ]] && json=$(device_runs "$name")
  # A real section's runs together (SECTION.json, SECTION-2.json, ...), each a timing of its
  # own: a rule only where a candidate won in every one, on every machine they measured.
  local n=2
  if [[ $name == real-* ]]; then
    while [[ -e $out/$name-$n.json ]]; do json+=",$out/$name-$n.json"; n=$((n + 1)); done
  fi
  # shellcheck disable=SC2086
  "$tune" --from-json "$json" ${rules[$name]} --out "$dir/$name.rules" > /dev/null
}
assembled() {  # data/auto.rules: the sections' rules files in the table's order
  echo "# leancast's auto: which algorithm a broadcast runs, by process count (procs), ranks on"
  echo "# the most populated node (ppn), size in bytes and, for real measurements, the MPI"
  echo "# library (library=) and its configuration (configured=: rules measured with the"
  echo "# library's broadcast configured apply under that configuration only, the others only"
  echo "# under its defaults); the first rule that applies wins. Where none applies, auto runs"
  echo "# the MPI library's own MPI_Bcast (mpi): leancast leaves the library's broadcast only"
  echo "# where a measurement says a leancast algorithm is faster there. Made by"
  echo "# scripts/auto-table.sh from the measurements in docs/tuning/ (docs/auto.md); each"
  echo "# section's header says where its evidence comes from."
  for section in "${all[@]}"; do
    echo
    cat "$out/$section.rules"
  done
}

if [[ ${sections[0]} == check ]]; then
  check=$(mktemp -d)
  trap 'rm -rf "$check"' EXIT
  failed=0
  for name in "${all[@]}"; do
    [[ $name == large ]] && continue  # simulated anew by the test smpi.auto_table
    derive "$name" "$check" "${LEANCAST_TUNE_TOOL:?LEANCAST_TUNE_TOOL=path of leancast-tune}"
    if ! diff <(grep -v '^#' "$out/$name.rules") <(grep -v '^#' "$check/$name.rules") > "$check/diff"; then
      echo "FAILED: $out/$name.rules is not what its JSON gives (< the file, > derived now):"
      cat "$check/diff"
      failed=1
    else
      echo "ok: $out/$name.rules follows from its JSON ($(grep -vc '^#' "$out/$name.rules") rules)"
    fi
  done
  if ! diff <(assembled) data/auto.rules > "$check/diff"; then
    echo "FAILED: data/auto.rules is not docs/tuning's rules files together (scripts/auto-table.sh assemble):"
    head -20 "$check/diff"
    failed=1
  fi
  exit "$failed"
fi

for section in "${sections[@]}"; do
  [[ $section == assemble ]] && continue
  if [[ $section == rules ]]; then  # re-derive every section's rules from its JSON
    for name in "${all[@]}"; do
      build_leancast "${flavor[$name]}"
      if [[ $name == large ]]; then
        python3 scripts/large-scale-tune.py --rules
        continue
      fi
      derive "$name" "$out" "$LEANCAST_ROOT/build/${flavor[$name]}/leancast-tune"
    done
    continue
  fi
  if [[ $section == large ]]; then  # one leancast-tune run per count and size group
    build_leancast smpi
    python3 scripts/large-scale-tune.py
    continue
  fi
  if [[ $section == real16-* && $# -eq 0 ]]; then
    # Measured on the 16-core machine only: in a run of every section, derived from its runs.
    build_leancast "${flavor[$section]}"
    derive "$section" "$out" "$LEANCAST_ROOT/build/${flavor[$section]}/leancast-tune"
    continue
  fi
  measure "$section"
  build_leancast "${flavor[$section]}"
  tune="$LEANCAST_ROOT/build/${flavor[$section]}/leancast-tune"
  first=$out/$section second=
  if [[ $section == real-* ]]; then
    # Measured twice at once, and the rules derived from both runs: a candidate wins a size
    # only where it won in each. On one VM here shm's times came in two modes minutes apart,
    # and a rule from one run (MPICH's shm:64K at 32 KiB-8 MiB at 35b898f) was 0.50-0.88x
    # MPI_Bcast in auto-vs-mpi.sh's run right after (docs/auto.md). The machines under this
    # project change between sessions (VMs of one CPU name, an 8 MiB last-level cache on
    # one, 508 MiB and system calls twice as dear on another): KEEP_RUNS=1 adds this
    # machine's two runs to the section's (as SECTION-N.json) instead of replacing them, so
    # that a rule holds on each machine measured.
    n=1
    if [[ ${KEEP_RUNS:-0} == 1 && -e $out/$section.json ]]; then
      n=2; while [[ -e $out/$section-$n.json ]]; do n=$((n + 1)); done
      first=$out/$section-$n
    else
      rm -f "$out/$section"-[0-9]*.json "$out/$section"-[0-9]*.log
    fi
    second=$out/$section-$((n + 1))
  fi
  echo "== $section: leancast-tune ${args[*]} ${rules[$section]}"
  # shellcheck disable=SC2086
  "$tune" "${args[@]}" ${rules[$section]} \
    --out "$first.rules" --json "$first.json" > "$first.log" 2>&1
  if [[ -n $second ]]; then
    echo "== $section again"
    # shellcheck disable=SC2086
    "$tune" "${args[@]}" ${rules[$section]} --out "$second.rules" \
      --json "$second.json" > "$second.log" 2>&1
    rm -f "$out/$section"-[0-9]*.rules
    derive "$section" "$out" "$tune"
  fi
done

if ((${#sections[@]} == ${#all[@]})) || [[ " ${sections[*]} " == *" rules "* ]] ||
   [[ " ${sections[*]} " == *" assemble "* ]]; then
  assembled > "$LEANCAST_ROOT/data/auto.rules"
  echo "wrote data/auto.rules"
fi
