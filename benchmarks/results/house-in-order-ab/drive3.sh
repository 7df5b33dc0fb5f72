#!/usr/bin/env bash
# round 2's after-run of overhead-interleaved again (the first was lost when the driver was stopped by hand)
set -u
source <(sed -n '/^run_one()/,/^}/p' /work/bench-results/drive.sh)
out=/work/bench-results
run_one 2 after overhead-interleaved 20 ours,noop 60 3
