#!/usr/bin/env bash
# Starts a three-node cluster on this machine from node-0.yaml, node-1.yaml and node-2.yaml beside this script, each
# node's output in data/cluster/node-N.log. Node 0 goes first: its embedded store is the one all three write to, and
# a node given a store URL checks it at start. Returns once all three are ready; stop them with
#   kill $(cat data/cluster/node-*.pid)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$(cd "$(dirname "$0")" && pwd)
cd "$root"
mkdir -p data/cluster
start() {
  nohup ./start-node "--spring.config.additional-location=$here/node-$1.yaml" > "data/cluster/node-$1.log" 2>&1 &
  echo $! > "data/cluster/node-$1.pid"
  echo "node $1 starting, pid $(cat "data/cluster/node-$1.pid"), log data/cluster/node-$1.log"
}
wait_for() { # url, what, seconds
  for _ in $(seq 1 "$3"); do
    if curl -sf "$1" > /dev/null; then return 0; fi
    sleep 1
  done
  echo "$2 not up after $3 s; see data/cluster/node-*.log" >&2
  return 1
}
start 0
wait_for http://127.0.0.1:9200 "node 0's store (127.0.0.1:9200)" 180
start 1
start 2
for i in 0 1 2; do
  wait_for "http://127.0.0.1:808$i/actuator/health/readiness" "node $i (127.0.0.1:808$i)" 180
  echo "node $i ready: gateway 127.0.0.1:265${i}0, web app http://127.0.0.1:808$i"
done
