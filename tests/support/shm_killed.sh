#!/usr/bin/env bash
# shm_killed.sh MODE... -- <launch command...>: runs the launch command (an MPI launcher
# running tests/mpi/shm_killed, wrapped in timeout) once per MODE with a fresh directory and
# the mode appended, and fails if a job left a shared-memory object in /dev/shm: a
# leancast-PID-* name of one of the PIDs its ranks wrote. The job must end neither with
# status 0 (its last rank was killed) nor by the timeout (124: it hung), and the last rank
# must have reached the point where it kills itself (DIR/dying), or the test proved nothing.
modes=()
while [[ $# -gt 0 && $1 != -- ]]; do modes+=("$1"); shift; done
shift
failed=0
for mode in "${modes[@]}"; do
  dir=$(mktemp -d)
  "$@" "$dir" "$mode"
  status=$?
  pids=$(cat "$dir"/pid.* 2>/dev/null)
  # The launcher returns once the ranks are gone; a straggler still dying is given time to
  # go, then ended, so that what it leaves is counted.
  for pid in $pids; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  left=""
  for pid in $pids; do
    left+=$(cd /dev/shm && ls -d "leancast-$pid-"* 2>/dev/null | tr '\n' ' ')
  done
  if [[ $status -eq 0 ]]; then echo "FAILED ($mode): the job exited 0"; failed=1; fi
  if [[ $status -eq 124 ]]; then echo "FAILED ($mode): the job hung"; failed=1; fi
  if [[ ! -e $dir/dying ]]; then echo "FAILED ($mode): the last rank did not reach its death"; failed=1; fi
  if [[ -z $pids ]]; then echo "FAILED ($mode): no rank wrote its PID"; failed=1; fi
  if [[ -n $left ]]; then
    echo "FAILED ($mode): left in /dev/shm: $left"
    (cd /dev/shm && rm -f $left)
    failed=1
  fi
  [[ $failed -eq 0 ]] && echo "$mode: nothing left in /dev/shm by PIDs" $pids "(job status $status)"
  rm -rf "$dir"
done
exit $failed
