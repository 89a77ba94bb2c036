#!/usr/bin/env bash
# The exporter's benchmark (issue 24), in one command:
#
#   bash tests/bench/exporter.sh [LABEL]          (LABEL: default `current`)
#
# For each scenario (SCENARIOS, default "100x30 10000": 3,000 nodes in 100
# clusters, each in its own namespace, and 10,000 nodes in one cluster),
# starts the project's API-server harness through tests/bench/cluster.rs
# with the benchmark's realistic objects (a roll in flight: a third of the
# nodes rolled, one holder, the rest asking), then runs the exporter on it
# (every namespace) and measures:
#   - the time until /readyz is 200 (every kind listed, the first judgement);
#   - resident memory once ready, and its peak (VmRSS, VmHWM);
#   - CPU while idle (nothing changes) over IDLE_SECS, in % of one core;
#   - a scrape of /metrics (curl's time_total), SCRAPES times: median, min,
#     max; its size and number of series.
# The figures go to tests/bench/exporter-LABEL.tsv and are printed; the
# last scrape of each scenario to target/bench-exporter/SCENARIO.prom.
# Not a timed test: figures for BENCHMARKS.md ("The exporter").
#
# Knobs: SCENARIOS IDLE_SECS=120 SCRAPES=20 PLUGIN=path (default: a release
# build of this tree, built first).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
label=${1:-current}
SCENARIOS=${SCENARIOS:-100x30 10000}
IDLE_SECS=${IDLE_SECS:-120}
SCRAPES=${SCRAPES:-20}
work=$root/target/bench-exporter
results=$root/tests/bench/exporter-$label.tsv
mkdir -p "$work"
say() { printf 'bench: %s\n' "$*" >&2; }

eval "$(bash testbin/build.sh kube etcd)"
export KUBE_APISERVER ETCD KUBECTL

if [ -z "${PLUGIN:-}" ]; then
  say "building the plugin (release)"
  cargo build --release --bin kubectl-valkey-roll >&2
  PLUGIN=$root/target/release/kubectl-valkey-roll
fi
cluster=$(cargo build --bench cluster --message-format=json-render-diagnostics |
  jq -r 'select(.executable != null and .target.name == "cluster") | .executable' | tail -1)
tree=$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo +dirty)

: >"$results"
row() { printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$@" | tee -a "$results" >&2; }
median_min_max() { sort -g | awk '{v[NR]=$1} END {m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%s\t%s\t%s", m, v[1], v[NR]}'; }
row tree "$tree" - -
row load.start "$(cut -d' ' -f1-3 /proc/loadavg)" - -

for scenario in $SCENARIOS; do
  dir=$work/$scenario
  rm -rf "$dir"
  mkdir -p "$dir"
  "$cluster" serve "$dir" "$scenario" >"$dir/serve.log" 2>&1 &
  server_pid=$!
  exporter_pid=
  cleanup() {
    [ -n "${exporter_pid:-}" ] && kill "$exporter_pid" 2>/dev/null || true
    touch "$dir/stop"
    wait "$server_pid" 2>/dev/null || true
  }
  trap cleanup EXIT
  say "$scenario: loading (log: $dir/serve.log)"
  while [ ! -f "$dir/env.sh" ]; do
    kill -0 "$server_pid" 2>/dev/null || { cat "$dir/serve.log" >&2; exit 1; }
    sleep 1
  done
  # shellcheck source=/dev/null
  source "$dir/env.sh"
  grep '^cluster: ' "$dir/serve.log" >&2 || true

  t0=$EPOCHREALTIME
  "$PLUGIN" --kubeconfig "$BENCH_KUBECONFIG" exporter --listen 127.0.0.1:0 2>"$dir/exporter.err" &
  exporter_pid=$!
  addr=
  for _ in $(seq 1 600); do
    addr=$(grep -o 'http://[0-9.:]*' "$dir/exporter.err" | head -1 | sed 's|http://||') || true
    [ -n "$addr" ] && break
    sleep 0.1
  done
  [ -n "$addr" ] || { cat "$dir/exporter.err" >&2; exit 1; }
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://$addr/readyz")" = 200 ]; do
    kill -0 "$exporter_pid" 2>/dev/null || { cat "$dir/exporter.err" >&2; exit 1; }
    sleep 0.2
  done
  ready=$(echo "$EPOCHREALTIME - $t0" | bc)
  row "$scenario" ready.s "$ready" s
  # Let the first judgements and the allocator settle.
  sleep 5
  ticks() { awk '{print $14 + $15}' "/proc/$exporter_pid/stat"; }
  hz=$(getconf CLK_TCK)
  c0=$(ticks)
  sleep "$IDLE_SECS"
  c1=$(ticks)
  cpu=$(echo "scale=3; 100 * ($c1 - $c0) / ($hz * $IDLE_SECS)" | bc)
  row "$scenario" idle.cpu "$cpu" "% of a core over ${IDLE_SECS}s"
  row "$scenario" rss "$(awk '/VmRSS/ {printf "%.1f", $2/1024}' "/proc/$exporter_pid/status")" MiB
  row "$scenario" rss.peak "$(awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$exporter_pid/status")" MiB
  times=()
  for ((i = 0; i < SCRAPES; i++)); do
    times+=("$(curl -s -o "$work/$scenario.prom" -w '%{time_total}' "http://$addr/metrics")")
  done
  row "$scenario" scrape.s "$(printf '%s\n' "${times[@]}" | median_min_max)" "s (median min max of $SCRAPES)"
  row "$scenario" scrape.bytes "$(wc -c <"$work/$scenario.prom")" bytes
  row "$scenario" scrape.series "$(grep -vc '^#' "$work/$scenario.prom")" series
  row "$scenario" clusters "$(grep -c '^valkey_roll_info{' "$work/$scenario.prom")" clusters
  cleanup
  trap - EXIT
done
row load.end "$(cut -d' ' -f1-3 /proc/loadavg)" - -
say "figures: $results"
