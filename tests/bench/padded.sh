#!/usr/bin/env bash
# Peak memory of `status -f` on snapshots padded with values the plugin
# does not keep (issue 22, item 1):
#
#   bash tests/bench/padded.sh [PLUGIN]     (default: target/release/kubectl-valkey-roll)
#
# For each size in SIZES (MB of padding, default "100 300") and each form:
#   json-top     the issue's generator: a List with `"x": [1,1,...]` after `items`
#   json-data    a List whose one item, a ConfigMap, has a `data` of that
#                size before `kind` (as `kubectl get -o json` sorts keys)
#   yaml-top     the same as json-top in YAML (a flow sequence)
#   yaml-data    the same as json-data in YAML (a block mapping of strings)
# runs the plugin under /usr/bin/time -v and prints the peak RSS (MiB),
# the exit code and the wall time. Every form holds one real object (a
# ValkeyCluster), so the read succeeds; json-top also runs with `items: []`
# as the issue wrote it (exit 1 since issue 22's item 5: no objects).
# The files go to target/bench-padded (up to 4 x 300 MB; deleted after).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
plugin=${1:-$root/target/release/kubectl-valkey-roll}
SIZES=${SIZES:-100 300}
work=$root/target/bench-padded
mkdir -p "$work"

# FORM MB FILE: writes the padded snapshot, in chunks (never whole in memory).
generate() {
    python3 - "$1" "$2" "$3" <<'EOF'
import sys
form, mb, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
target = mb * 1024 * 1024
cluster_json = '{"apiVersion":"valkey.io/v1alpha1","kind":"ValkeyCluster","metadata":{"name":"cache","namespace":"prod"},"spec":{"shards":1}}'
cluster_yaml = "- apiVersion: valkey.io/v1alpha1\n  kind: ValkeyCluster\n  metadata: {name: cache, namespace: prod}\n  spec: {shards: 1}\n"
with open(path, "w") as f:
    def ones(sep, chunk=1 << 20):
        written = 0
        first = True
        piece = sep.join(["1"] * (chunk // (len(sep) + 1)))
        while written < target:
            if not first:
                f.write(sep)
            f.write(piece)
            written += len(piece) + len(sep)
            first = False
    def entries(line, chunk=1 << 20):
        written = 0
        i = 0
        while written < target:
            text = "".join(line(i + k) for k in range(1000))
            f.write(text)
            written += len(text)
            i += 1000
    if form == "json-top":
        f.write('{"apiVersion":"v1","kind":"List","items":[' + cluster_json + '],"x":[')
        ones(",")
        f.write("]}\n")
    elif form == "json-empty":
        f.write('{"apiVersion":"v1","kind":"List","items":[],"x":[')
        ones(",")
        f.write("]}\n")
    elif form == "json-data":
        f.write('{"apiVersion":"v1","items":[{"apiVersion":"v1","data":{')
        f.write(",".join([]))
        first = [True]
        def line(i):
            s = ('' if i == 0 else ',') + '"k%d":"%s"' % (i, "v" * 100)
            return s
        entries(line)
        f.write('},"kind":"ConfigMap","metadata":{"name":"big","namespace":"prod"}},' + cluster_json + '],"kind":"List"}\n')
    elif form == "yaml-top":
        f.write("apiVersion: v1\nkind: List\nitems:\n" + cluster_yaml + "x: [")
        ones(", ")
        f.write("]\n")
    elif form == "yaml-data":
        f.write("apiVersion: v1\nitems:\n- apiVersion: v1\n  data:\n")
        entries(lambda i: "    k%d: %s\n" % (i, "v" * 100))
        f.write("  kind: ConfigMap\n  metadata: {name: big, namespace: prod}\n" + cluster_yaml + "kind: List\n")
EOF
}

printf '%-11s %6s %10s %5s %8s\n' form MB peak_MiB exit wall_s
for mb in $SIZES; do
    for form in json-top json-empty json-data yaml-top yaml-data; do
        file=$work/$form-$mb
        generate "$form" "$mb" "$file"
        set +e
        /usr/bin/time -v "$plugin" status -f "$file" --now 2026-11-29T10:16:11Z \
            >/dev/null 2>"$work/time.txt"
        code=$?
        set -e
        peak=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/time.txt")
        wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time.txt")
        printf '%-11s %6s %10s %5s %8s\n' "$form" "$mb" "$peak" "$code" "$wall"
        rm -f "$file"
    done
done
