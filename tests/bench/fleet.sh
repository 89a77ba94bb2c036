#!/usr/bin/env bash
# Issue 33's benchmark (figures, never a timed test), in one command:
#
#   bash tests/bench/fleet.sh [LABEL=PLUGIN ...]
#
# Each LABEL=PLUGIN is a plugin binary measured side by side with the
# others on the same server (default: `current=` a release build of this
# tree, built first). It starts the project's API-server harness through
# tests/bench/cluster.rs (etcd and kube-apiserver on 127.0.0.1) and loads,
# through the API, the bench's realistic objects (objects.rs: a roll in
# flight in every cluster, a third rolled, one holder, the rest asking):
#   - FLEET (default 100x100): 100 clusters of 100 nodes, all in ONE
#     namespace (10,000 nodes), named cache-000 ... cache-099;
#   - BIG (default 10000): one cluster of 10,000 nodes in its own namespace.
# Then, for each plugin:
#   (a) the exporter over BIG (`-n`): resident memory once ready and its
#       peak (VmHWM) after CHANGES changes to one pod (each one judged
#       again), and CPU per change;
#   (b) `status -o json` over FLEET: CPU time (user + system) and peak RSS,
#       RUNS runs; beside `kubectl get` of the six kinds `-o json` and the
#       six raw LISTs with curl (once, they do not depend on the plugin);
#   (c) `status --watch CLUSTER` of cache-042 among FLEET's 10,000 nodes:
#       CPU per change of one of its pods, and per change of another
#       cluster's ValkeyNode in the same namespace (the watch stores every
#       node of the namespace: nodes are not selected by label);
#   (d) the exporter over FLEET: CPU per change of one pod of cache-042,
#       and its peak RSS.
# A change is `kubectl label --overwrite` of the object, one every
# GAP seconds; CPU per change is the process's CPU ticks (utime + stime,
# /proc/PID/stat) over the changes, less its ticks over an idle window of
# the same length just before, divided by CHANGES.
# Figures go to tests/bench/fleet-LABELS.tsv and are printed.
#
# Knobs: FLEET=100x100 BIG=10000 CHANGES=20 GAP=1.5 RUNS=5 WORK=dir.
# A smoke run (a few seconds of figures on tiny sizes):
#   FLEET=3x4 BIG=6 CHANGES=2 GAP=0.5 RUNS=1 bash tests/bench/fleet.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
FLEET=${FLEET:-100x100}
BIG=${BIG:-10000}
CHANGES=${CHANGES:-20}
GAP=${GAP:-1.5}
RUNS=${RUNS:-5}
work=${WORK:-$root/target/bench-fleet}
mkdir -p "$work"
say() { printf 'bench: %s\n' "$*" >&2; }

eval "$(bash testbin/build.sh kube etcd)"
export KUBE_APISERVER ETCD KUBECTL

plugins=("$@")
if [ ${#plugins[@]} -eq 0 ]; then
  say "building the plugin (release)"
  cargo build --release --bin kubectl-valkey-roll >&2
  target=$(cargo metadata --format-version 1 --no-deps | jq -r .target_directory)
  plugins=("current=$target/release/kubectl-valkey-roll")
fi
labels=$(printf '%s\n' "${plugins[@]}" | cut -d= -f1 | paste -sd-)
results=$root/tests/bench/fleet-$labels.tsv
say "building tests/bench/cluster.rs"
cluster=$(cargo build --bench cluster --message-format=json-render-diagnostics |
  jq -r 'select(.executable != null and .target.name == "cluster") | .executable' | tail -1)

: >"$results"
row() { printf '%s\t%s\t%s\t%s\n' "$@" | tee -a "$results" >&2; }
median_min_max() { sort -g | awk '{v[NR]=$1} END {m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%s (%s-%s)", m, v[1], v[NR]}'; }
row - machine.nproc "$(nproc)" ""
row - machine.cpu "$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)" ""
row - machine.mem "$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)" ""
row - machine.date "$(date -u +%Y-%m-%dT%H:%MZ)" ""
row - machine.tree "$(git rev-parse --short HEAD)$(git diff --quiet || echo +dirty)" ""
for p in "${plugins[@]}"; do row "${p%%=*}" plugin "${p#*=}" ""; done

# The server, loaded; it stops when $work/stop appears (or this shell goes).
rm -f "$work/stop" "$work/env.sh"
fleet_spec="$FLEET@one"
"$cluster" serve "$work" "$fleet_spec" "$BIG" >"$work/serve.log" 2>&1 &
server_pid=$!
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  touch "$work/stop"
  wait "$server_pid" 2>/dev/null || true
}
trap cleanup EXIT
say "loading $fleet_spec and $BIG (log: $work/serve.log)"
t0=$EPOCHREALTIME
while [ ! -f "$work/env.sh" ]; do
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 1
done
row - load.s "$(echo "$EPOCHREALTIME - $t0" | bc)" s
grep '^cluster: ' "$work/serve.log" >&2 || true
# shellcheck source=/dev/null
source "$work/env.sh"
kc=$BENCH_KUBECONFIG
fleet_var=BENCH_NS_${FLEET}one
fleet_ns=${!fleet_var}
big_var=BENCH_NS_$BIG
big_ns=${!big_var}
count=${FLEET%x*}
# The watched cluster: the 43rd of the fleet (the last, when fewer).
pick=$((count > 42 ? 42 : count - 1))
watched=$(printf 'cache-%03d' "$pick")
other=$(printf 'cache-%03d' $((pick == 0 ? 1 : 0)))
kubectl() { "$KUBECTL" --kubeconfig "$kc" "$@"; }
row - load.start "$(cut -d' ' -f1-3 /proc/loadavg)" ""

hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss() { awk "/$2/"' {printf "%.1f", $2/1024}' "/proc/$1/status"; }
# changes PID NS KIND NAME: CPU ticks of PID per change of NAME, less idle.
changes() {
  local pid=$1 ns=$2 kind=$3 name=$4 i c0 c1 c2
  c0=$(ticks "$pid")
  sleep "$(echo "$CHANGES * $GAP" | bc)"
  c1=$(ticks "$pid")
  for ((i = 0; i < CHANGES; i++)); do
    kubectl -n "$ns" label "$kind" "$name" "bench-tick=$i-$RANDOM" --overwrite >/dev/null
    sleep "$GAP"
  done
  c2=$(ticks "$pid")
  echo "scale=4; 1000 * (($c2 - $c1) - ($c1 - $c0)) / $hz / $CHANGES" | bc
}
# start_exporter NS: starts the exporter on namespace NS; sets $exporter
# (its pid) once /readyz says 200, and $ready (seconds).
start_exporter() {
  local ns=$1 addr= t0=$EPOCHREALTIME
  # A file of its own: the last exporter's would name its address.
  local err=$work/exporter-$RANDOM$RANDOM.err
  "$plugin" --kubeconfig "$kc" -n "$ns" exporter --listen 127.0.0.1:0 2>"$err" &
  exporter=$!
  pids+=("$exporter")
  for _ in $(seq 1 600); do
    addr=$(grep -o 'http://[0-9.:]*/metrics' "$err" | head -1 | sed 's|http://||; s|/metrics||') || true
    [ -n "$addr" ] && break
    sleep 0.1
  done
  [ -n "$addr" ] || { cat "$err" >&2; exit 1; }
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://$addr/readyz")" = 200 ]; do
    kill -0 "$exporter" 2>/dev/null || { cat "$err" >&2; exit 1; }
    sleep 0.2
  done
  ready=$(echo "$EPOCHREALTIME - $t0" | bc)
  sleep 3
}

# (b), what does not depend on the plugin: kubectl and the raw LISTs.
awk '/certificate-authority-data/ {print $2}' "$kc" | base64 -d >"$work/ca.crt"
awk '/client-certificate-data/ {print $2}' "$kc" | base64 -d >"$work/admin.crt"
awk '/client-key-data/ {print $2}' "$kc" | base64 -d >"$work/admin.key"
curl_args=(-sS --fail --cacert "$work/ca.crt" --cert "$work/admin.crt" --key "$work/admin.key" -H 'Accept: application/json')
urls=()
for path in "apis/valkey.io/v1alpha1/namespaces/$fleet_ns/valkeyclusters" \
  "apis/valkey.io/v1alpha1/namespaces/$fleet_ns/valkeynodes" \
  "apis/apps/v1/namespaces/$fleet_ns/statefulsets?labelSelector=valkey.io%2Fcluster" \
  "apis/apps/v1/namespaces/$fleet_ns/deployments?labelSelector=valkey.io%2Fcluster" \
  "api/v1/namespaces/$fleet_ns/pods?labelSelector=valkey.io%2Fcluster" \
  "api/v1/namespaces/$fleet_ns/events?fieldSelector=involvedObject.apiVersion%3Dvalkey.io%2Fv1alpha1"; do
  urls+=(-o /dev/null "$BENCH_URL/$path")
done
# cpu_rss LABEL FIGURE CMD...: RUNS runs after a warm-up: CPU seconds
# (user + system) and peak RSS, each median (min-max).
cpu_rss() {
  local label=$1 figure=$2 i cpu=() mem=() wall=()
  shift 2
  "$@" >/dev/null 2>"$work/err" || { say "$figure failed:"; cat "$work/err" >&2; exit 1; }
  for ((i = 0; i < RUNS; i++)); do
    /usr/bin/time -f '%U %S %M %e' -o "$work/time" "$@" >/dev/null 2>"$work/err"
    read -r u s m e <"$work/time"
    cpu+=("$(echo "$u + $s" | bc)")
    mem+=("$(echo "scale=1; $m / 1024" | bc)")
    wall+=("$e")
  done
  row "$label" "$figure.cpu" "$(printf '%s\n' "${cpu[@]}" | median_min_max)" "s CPU"
  row "$label" "$figure.wall" "$(printf '%s\n' "${wall[@]}" | median_min_max)" "s"
  row "$label" "$figure.rss" "$(printf '%s\n' "${mem[@]}" | median_min_max)" MiB
}
kinds=valkeyclusters,valkeynodes,statefulsets,deployments,pods,events
cpu_rss kubectl b.kubectl.json "$KUBECTL" --kubeconfig "$kc" -n "$fleet_ns" get "$kinds" -o json
cpu_rss curl b.curl.six-lists curl "${curl_args[@]}" "${urls[@]}"
bytes=$(curl "${curl_args[@]}" -w '%{size_download}\n' "${urls[@]}" | paste -sd+ | bc)
row - b.list.bytes "$bytes" B

for p in "${plugins[@]}"; do
  label=${p%%=*}
  plugin=${p#*=}
  say "$label: $plugin"

  # (b) status over the fleet's namespace.
  cpu_rss "$label" b.status.json "$plugin" --kubeconfig "$kc" -n "$fleet_ns" status -o json

  # (a) the exporter over the big cluster.
  start_exporter "$big_ns"
  row "$label" a.exporter.ready "$ready" s
  row "$label" a.exporter.rss.ready "$(rss "$exporter" VmRSS)" MiB
  row "$label" a.exporter.hwm.ready "$(rss "$exporter" VmHWM)" MiB
  row "$label" a.exporter.cpu.per.change "$(changes "$exporter" "$big_ns" pod valkey-cache-0-0-0)" "ms CPU"
  sleep 3
  row "$label" a.exporter.rss.after "$(rss "$exporter" VmRSS)" MiB
  row "$label" a.exporter.hwm "$(rss "$exporter" VmHWM)" MiB
  kill "$exporter"
  wait "$exporter" 2>/dev/null || true

  # (c) status --watch of one cluster among the fleet's nodes.
  # Not the last plugin's output: only this one's first frame says it is
  # started.
  rm -f "$work/watch.out"
  "$plugin" --kubeconfig "$kc" -n "$fleet_ns" status --watch "$watched" -o json >"$work/watch.out" 2>"$work/watch.err" &
  watcher=$!
  pids+=("$watcher")
  for _ in $(seq 1 600); do [ -s "$work/watch.out" ] && break; sleep 0.2; done
  [ -s "$work/watch.out" ] || { cat "$work/watch.err" >&2; exit 1; }
  sleep 3
  row "$label" c.watch.rss.ready "$(rss "$watcher" VmRSS)" MiB
  row "$label" c.watch.cpu.per.own.pod.change "$(changes "$watcher" "$fleet_ns" pod "valkey-$watched-0-0-0")" "ms CPU"
  row "$label" c.watch.cpu.per.other.node.change "$(changes "$watcher" "$fleet_ns" valkeynode "$other-0-0")" "ms CPU"
  row "$label" c.watch.hwm "$(rss "$watcher" VmHWM)" MiB
  kill "$watcher"
  wait "$watcher" 2>/dev/null || true

  # (d) the exporter over the fleet: one cluster changes.
  start_exporter "$fleet_ns"
  row "$label" d.exporter.ready "$ready" s
  row "$label" d.exporter.cpu.per.change "$(changes "$exporter" "$fleet_ns" pod "valkey-$watched-0-0-0")" "ms CPU"
  row "$label" d.exporter.rss "$(rss "$exporter" VmRSS)" MiB
  row "$label" d.exporter.hwm "$(rss "$exporter" VmHWM)" MiB
  kill "$exporter"
  wait "$exporter" 2>/dev/null || true
done
row - load.end "$(cut -d' ' -f1-3 /proc/loadavg)" ""
say "figures: $results"
