#!/usr/bin/env bash
# The benchmark of issue 11, in one command:
#
#   bash tests/bench/run.sh [LABEL]          (LABEL: default `current`)
#
# Starts the project's own API-server harness (tests/harness: etcd and
# kube-apiserver on 127.0.0.1, built by testbin/build.sh) through
# tests/bench/cluster.rs, which creates one namespace per size with an
# N-node ValkeyCluster of realistic objects (tests/bench/objects.rs), then
# times, RUNS times each (median, min and max):
#   - the plugin's `status -o json` and `status` (table), with peak RSS;
#   - the built kubectl's `get` of the same six kinds, `-o json` (warm
#     discovery cache), with peak RSS;
#   - the plugin's six LISTs with curl, sequential and in parallel;
#   - the requests one `status` makes (from the server's audit log);
#   - `status --watch`: resident memory and CPU over WATCH_SECS while
#     nothing changes (at the largest size);
#   - `status -f` on the largest size's objects as kubectl prints them
#     (JSON and YAML), beside python3's json.load of the same file, and on
#     a generated bundle of BUNDLE_MIB MiB;
#   - `--help`.
# The figures go to tests/bench/results-LABEL.tsv, and BENCHMARKS.md is
# written again from every results-*.tsv there (side by side).
#
# Knobs (environment): SIZES="3 300 3000" RUNS=5 WATCH_SECS=60
# BUNDLE_MIB=200 BUNDLE_RUNS=3 PLUGIN=path (default: a release build of
# this tree, built first).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
label=${1:-current}
SIZES=${SIZES:-3 300 3000}
RUNS=${RUNS:-5}
WATCH_SECS=${WATCH_SECS:-60}
BUNDLE_MIB=${BUNDLE_MIB:-200}
BUNDLE_RUNS=${BUNDLE_RUNS:-3}
work=$root/target/bench-run
results=$root/tests/bench/results-$label.tsv
mkdir -p "$work"
say() { printf 'bench: %s\n' "$*" >&2; }

eval "$(bash testbin/build.sh kube etcd)"
export KUBE_APISERVER ETCD KUBECTL

# What is measured: this tree, or the binary PLUGIN names.
tree=$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo +dirty)
plugin_built="$tree (built by run.sh)"
[ -n "${PLUGIN:-}" ] && plugin_built="$PLUGIN (given; tree at $tree)"
if [ -z "${PLUGIN:-}" ]; then
  say "building the plugin (release)"
  cargo build --release --bin kubectl-valkey-roll >&2
  PLUGIN=$root/target/release/kubectl-valkey-roll
fi
say "building tests/bench/cluster.rs"
cluster=$(cargo build --bench cluster --message-format=json-render-diagnostics |
  jq -r 'select(.executable != null and .target.name == "cluster") | .executable' | tail -1)

# The server, loaded; it stops when $work/stop appears (or this shell goes).
rm -f "$work/stop" "$work/env.sh"
"$cluster" serve "$work" $SIZES >"$work/serve.log" 2>&1 &
server_pid=$!
cleanup() {
  touch "$work/stop"
  [ -n "${watch_pid:-}" ] && kill "$watch_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
}
trap cleanup EXIT
say "loading $SIZES nodes (log: $work/serve.log)"
load_started=$EPOCHREALTIME
while [ ! -f "$work/env.sh" ]; do
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 1
done
load_secs=$(echo "$EPOCHREALTIME - $load_started" | bc)
# shellcheck source=/dev/null
source "$work/env.sh"
kc=$BENCH_KUBECONFIG
awk '/certificate-authority-data/ {print $2}' "$kc" | base64 -d >"$work/ca.crt"
awk '/client-certificate-data/ {print $2}' "$kc" | base64 -d >"$work/admin.crt"
awk '/client-key-data/ {print $2}' "$kc" | base64 -d >"$work/admin.key"

: >"$results"
load_start=$(cut -d" " -f1-3 /proc/loadavg)
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$@" >>"$results"; }
median_min_max() { sort -g | awk '{v[NR]=$1} END {m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%s\t%s\t%s", m, v[1], v[NR]}'; }

# timed NAME N RUNS CMD...: RUNS timed runs (after one untimed warm-up) of
# CMD, stdout to /dev/null; wall seconds and peak RSS (MiB, /usr/bin/time).
timed() {
  local name=$1 n=$2 runs=$3
  shift 3
  "$@" >/dev/null 2>"$work/err" || { say "$name failed:"; cat "$work/err" >&2; exit 1; }
  local secs=() rss=() i t0 t1
  for ((i = 0; i < runs; i++)); do
    t0=$EPOCHREALTIME
    /usr/bin/time -f '%M' -o "$work/rss" "$@" >/dev/null 2>"$work/err"
    t1=$EPOCHREALTIME
    secs+=("$(echo "$t1 - $t0" | bc)")
    rss+=("$(echo "scale=1; $(tail -1 "$work/rss") / 1024" | bc)")
  done
  row "$n" "$name.s" "$(printf '%s\n' "${secs[@]}" | median_min_max)" s
  row "$n" "$name.rss" "$(printf '%s\n' "${rss[@]}" | median_min_max)" MiB
  say "$name (N=$n): $(printf '%s\n' "${secs[@]}" | median_min_max | cut -f1) s"
}

lists() { # the plugin's six LISTs of namespace $1, as URLs
  local b=$BENCH_URL ns=$1
  echo "$b/apis/valkey.io/v1alpha1/namespaces/$ns/valkeyclusters"
  echo "$b/apis/valkey.io/v1alpha1/namespaces/$ns/valkeynodes"
  echo "$b/apis/apps/v1/namespaces/$ns/statefulsets?labelSelector=valkey.io%2Fcluster"
  echo "$b/apis/apps/v1/namespaces/$ns/deployments?labelSelector=valkey.io%2Fcluster"
  echo "$b/api/v1/namespaces/$ns/pods?labelSelector=valkey.io%2Fcluster"
  echo "$b/api/v1/namespaces/$ns/events?fieldSelector=involvedObject.apiVersion%3Dvalkey.io%2Fv1alpha1"
}
curl_args=(-sS --fail --cacert "$work/ca.crt" --cert "$work/admin.crt" --key "$work/admin.key" -H 'Accept: application/json')

plugin() { "$PLUGIN" --kubeconfig "$kc" "$@"; }
kinds=valkeyclusters,valkeynodes,statefulsets,deployments,pods,events

for n in $SIZES; do
  ns_var=BENCH_NS_$n
  ns=${!ns_var}
  urls=()
  while read -r u; do urls+=(-o /dev/null "$u"); done < <(lists "$ns")
  bytes=$(curl "${curl_args[@]}" -w '%{size_download}\n' "${urls[@]}" | paste -sd+ | bc)
  row "$n" list.bytes "$bytes" "$bytes" "$bytes" B
  timed status.json "$n" "$RUNS" "$PLUGIN" --kubeconfig "$kc" -n "$ns" status -o json
  timed status.table "$n" "$RUNS" "$PLUGIN" --kubeconfig "$kc" -n "$ns" status
  timed kubectl.json "$n" "$RUNS" "$KUBECTL" --kubeconfig "$kc" -n "$ns" get "$kinds" -o json
  timed curl.seq "$n" "$RUNS" curl "${curl_args[@]}" "${urls[@]}"
  timed curl.par "$n" "$RUNS" curl "${curl_args[@]}" --parallel --parallel-immediate --parallel-max 6 "${urls[@]}"
  # Requests of one `status`, from the audit log (the admin user's; this
  # script is the only client meanwhile).
  before=$(wc -l <"$BENCH_AUDIT")
  plugin -n "$ns" status -o json >/dev/null
  sleep 0.5
  reqs=$(tail -n +"$((before + 1))" "$BENCH_AUDIT" | grep -c '"username":"admin"' || true)
  lists_n=$(tail -n +"$((before + 1))" "$BENCH_AUDIT" | grep '"username":"admin"' | grep -c '"verb":"list"' || true)
  row "$n" status.requests "$reqs" "$reqs" "$reqs" requests
  row "$n" status.lists "$lists_n" "$lists_n" "$lists_n" requests
  say "status (N=$n): $reqs requests, $lists_n of them LISTs"
done

largest=${SIZES##* }
ns_var=BENCH_NS_$largest
ns=${!ns_var}

# status --watch, idle: resident memory and CPU over WATCH_SECS.
"$PLUGIN" --kubeconfig "$kc" -n "$ns" status --watch -o json >"$work/watch.out" 2>"$work/watch.err" &
watch_pid=$!
for _ in $(seq 1 600); do [ -s "$work/watch.out" ] && break; sleep 0.2; done
sleep 5
ticks() { awk '{print $14 + $15}' "/proc/$watch_pid/stat"; }
t0=$(ticks)
sleep "$WATCH_SECS"
t1=$(ticks)
hz=$(getconf CLK_TCK)
cpu=$(echo "scale=2; ($t1 - $t0) * 100 / $hz / $WATCH_SECS" | bc)
rss=$(awk '/VmRSS/ {printf "%.1f", $2/1024}' "/proc/$watch_pid/status")
hwm=$(awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$watch_pid/status")
kill "$watch_pid"
wait "$watch_pid" 2>/dev/null || true
watch_pid=
row "$largest" watch.cpu "$cpu" "$cpu" "$cpu" "% of a core"
row "$largest" watch.rss "$rss" "$rss" "$rss" MiB
row "$largest" watch.hwm "$hwm" "$hwm" "$hwm" MiB
say "watch (N=$largest): $cpu % of a core, $rss MiB resident (peak $hwm)"

# -f: the largest size as kubectl prints it, and a generated bundle.
"$KUBECTL" --kubeconfig "$kc" -n "$ns" get "$kinds" -o json >"$work/snap.json"
"$KUBECTL" --kubeconfig "$kc" -n "$ns" get "$kinds" -o yaml >"$work/snap.yaml"
fsize=$(stat -c %s "$work/snap.json")
row "$largest" file.json.bytes "$fsize" "$fsize" "$fsize" B
pyload='import json,sys; json.load(open(sys.argv[1]))'
# The interpreter itself, not a shim script in front of it.
py=$(python3 -c 'import sys; print(sys.executable)')
timed python.json "$largest" "$RUNS" "$py" -c "$pyload" "$work/snap.json"
timed file.json "$largest" "$RUNS" "$PLUGIN" status -f "$work/snap.json" -o json
timed file.yaml "$largest" "$RUNS" "$PLUGIN" status -f "$work/snap.yaml" -o json
if [ "$BUNDLE_MIB" -gt 0 ]; then
  [ -s "$work/bundle-$BUNDLE_MIB.yaml" ] || "$cluster" bundle "$BUNDLE_MIB" "$work/bundle-$BUNDLE_MIB.yaml" 2>>"$work/serve.log"
  [ -s "$work/bundle-$BUNDLE_MIB.json" ] || "$cluster" bundle "$BUNDLE_MIB" "$work/bundle-$BUNDLE_MIB.json" 2>>"$work/serve.log"
  bsize=$(stat -c %s "$work/bundle-$BUNDLE_MIB.json")
  row bundle file.json.bytes "$bsize" "$bsize" "$bsize" B
  timed python.json bundle "$BUNDLE_RUNS" "$py" -c "$pyload" "$work/bundle-$BUNDLE_MIB.json"
  timed file.json bundle "$BUNDLE_RUNS" "$PLUGIN" status -f "$work/bundle-$BUNDLE_MIB.json" -o json
  timed file.yaml bundle "$BUNDLE_RUNS" "$PLUGIN" status -f "$work/bundle-$BUNDLE_MIB.yaml" -o json
fi
timed help - "$RUNS" "$PLUGIN" --help

# The machine, and how busy it was.
row - machine.nproc "$(nproc)" "" "" ""
row - machine.cpu "$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)" "" "" ""
row - machine.mem "$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)" "" "" ""
row - machine.load_start "$load_start" "" "" ""
row - machine.load "$(cut -d' ' -f1-3 /proc/loadavg)" "" "" ""
row - machine.server "$BENCH_SERVER_VERSION" "" "" ""
row - machine.plugin "$plugin_built" "" "" ""
row - machine.date "$(date -u +%Y-%m-%dT%H:%MZ)" "" "" ""
row - machine.load_secs "$load_secs" "" "" ""
python3 "$root/tests/bench/report.py" "$root/tests/bench" >"$root/BENCHMARKS.md"
say "wrote $results and BENCHMARKS.md"
