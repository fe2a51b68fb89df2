#!/usr/bin/env bash
# expect_abort.sh <launch command...>: passes when the launched MPI job aborts (exit status
# neither 0 nor timeout's 124) without printing "not reached". The abort message itself
# is not required: Open MPI's launcher sometimes drops the help text of an aborting rank
# under load ("Data unpack would read past end of buffer"), so only the exit is asserted.
"$@"
status=$?
if [[ $status -eq 0 ]]; then echo "FAILED: the job exited 0 instead of aborting"; exit 1; fi
if [[ $status -eq 124 ]]; then echo "FAILED: the job hung instead of aborting"; exit 1; fi
echo "aborted as expected (exit status $status)"
