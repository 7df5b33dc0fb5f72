#!/usr/bin/env bash
# Measures the node on this machine: cold start to ready (broker healthy, store green), RSS of the node and of the
# embedded store idle and after a short load, and the time from SIGTERM to exit. Usage:
#   benchmarks/node-lifecycle.sh [rate PI/s, default 50] [load seconds, default 20] [data directory]
# Needs a built project (./mvnw -B -DskipTests install) and the default ports free. Without a data directory it uses a
# fresh one under /tmp (a first start); given an existing one it measures a restart on that data.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rate=${1:-50}
seconds=${2:-20}
JAVA_HOME=$("$root/bin/java-home"); export JAVA_HOME
work=$(mktemp -d /tmp/flowpipe-lifecycle.XXXXXX)
data=${3:-$work/data}
if [ ! -d "$root/benchmarks/target/lib" ] || [ ! -d "$root/engine-broker/target/lib" ]; then
  "$root/mvnw" -B -q -DskipTests install
fi

rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

cd "$work"
start=$(date +%s%N)
"$root/start-node" --flowpipe.data-directory="$data" > "$work/node.log" 2>&1 &
node=$!
until curl -sf http://127.0.0.1:8080/actuator/health/readiness 2>/dev/null | grep -q '"status":"UP"'; do
  kill -0 $node 2>/dev/null || { echo "node exited; see $work/node.log"; exit 1; }
  sleep 0.1
done
ready_ms=$(( ($(date +%s%N) - start) / 1000000 ))
java_pid=$(pgrep -f "dev.flowpipe.node.NodeApplication.*$data" | head -1)
store_pid=$(pgrep -f "EmbeddedOpenSearchMain.*$data" | head -1)
sleep 5
node_idle=$(rss_kb "$java_pid"); store_idle=$(rss_kb "$store_pid")
"$JAVA_HOME/bin/java" -cp "$root/benchmarks/target/classes:$root/benchmarks/target/lib/*" \
  dev.flowpipe.benchmarks.LoadBurst 26500 "$rate" "$seconds" | tee "$work/load.txt"
node_load=$(rss_kb "$java_pid"); store_load=$(rss_kb "$store_pid")
stop=$(date +%s%N)
kill -TERM "$java_pid"
while kill -0 "$java_pid" 2>/dev/null; do sleep 0.05; done
stop_ms=$(( ($(date +%s%N) - stop) / 1000000 ))
orphan=$(kill -0 "$store_pid" 2>/dev/null && echo "STILL RUNNING" || echo "stopped")
cat <<REPORT
cold start to ready:        ${ready_ms} ms
RSS idle:                   node $((node_idle / 1024)) MB, store $((store_idle / 1024)) MB
RSS after load:             node $((node_load / 1024)) MB, store $((store_load / 1024)) MB  ($(cat "$work/load.txt"))
SIGTERM to exit:            ${stop_ms} ms
embedded store after exit:  ${orphan}
REPORT
