#!/usr/bin/env bash
# One alternating run: for each round and scenario, before then after. Logs uptime at each run's start and end.
set -u
out=/work/bench-results
rounds=${ROUNDS:-2}
run_one() { # round side scenario args...
  local round=$1 side=$2 scenario=$3; shift 3
  local dir=/work/bench-$side tag="r$round-$scenario-$side"
  echo "$tag start $(date -u +%H:%M:%S) $(uptime | sed 's/.*load average: //')" | tee -a $out/timeline.txt
  local t0=$(date +%s)
  (cd $dir && timeout 1500 benchmarks/run "$scenario" "$@") > $out/$tag.txt 2>&1
  local rc=$?
  echo "$tag end $(date -u +%H:%M:%S) $(uptime | sed 's/.*load average: //') rc=$rc wall=$(( $(date +%s)-t0 ))s" | tee -a $out/timeline.txt
  cp $dir/benchmarks/results/$scenario.json $out/$tag.json 2>/dev/null
  rm -f $dir/benchmarks/results/$scenario.json
}
for round in $(seq 1 $rounds); do
  if [[ " ${ONLY:-availability overhead-interleaved import-drain} " == *" availability "* ]]; then
    for side in before after; do run_one $round $side availability 100 100ms 60; done
  fi
  if [[ " ${ONLY:-availability overhead-interleaved import-drain} " == *" overhead-interleaved "* ]]; then
    for side in before after; do run_one $round $side overhead-interleaved 20 ours,noop 60 3; done
  fi
  if [[ " ${ONLY:-availability overhead-interleaved import-drain} " == *" import-drain "* ]]; then
    for side in before after; do run_one $round $side import-drain 200000 10; done
  fi
done
echo "all done $(date -u +%H:%M:%S)" | tee -a $out/timeline.txt
