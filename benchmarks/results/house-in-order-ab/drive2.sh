#!/usr/bin/env bash
# The rest of the alternating run, after the harnesses' ready wait was raised to 300 s in both clones.
set -u
source <(sed -n '/^run_one()/,/^}/p' /work/bench-results/drive.sh)
out=/work/bench-results
run_one 2 before availability 100 100ms 60
run_one 2 after availability 100 100ms 60
run_one 3 before availability 100 100ms 60
run_one 3 after availability 100 100ms 60
run_one 2 before overhead-interleaved 20 ours,noop 60 3
run_one 2 after overhead-interleaved 20 ours,noop 60 3
run_one 2 before import-drain 200000 10
run_one 2 after import-drain 200000 10
echo "all done $(date -u +%H:%M:%S)" | tee -a $out/timeline.txt
