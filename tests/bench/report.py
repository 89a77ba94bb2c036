"""BENCHMARKS.md from tests/bench/results-*.tsv (written by run.sh).

Each results file is one run of the benchmark (a label: `before`, `after`,
...); their figures are put side by side, the oldest first.
"""

import glob
import os
import sys

here = sys.argv[1]
runs = {}  # label -> {(n, metric): (median, min, max, unit)}
for path in sorted(glob.glob(os.path.join(here, "results-*.tsv")), key=os.path.getmtime):
    for line in open(path):
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 7:
            continue
        label, n, metric, med, lo, hi, unit = parts[:7]
        runs.setdefault(label, {})[(n, metric)] = (med, lo, hi, unit)
# Oldest run first, by the date each run recorded (file times are not kept
# by a clone).
labels = sorted(runs, key=lambda l: runs[l].get(("-", "machine.date"), ("",))[0])
sizes = []
for r in runs.values():
    for n, _ in r:
        if n.isdigit() and n not in sizes:
            sizes.append(n)
sizes.sort(key=int)


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def fig(label, n, metric, spread=True):
    v = runs[label].get((n, metric))
    if not v:
        return "-"
    med, lo, hi, unit = v
    m = num(med)
    if m is None:
        return med
    short = {"s": " s", "MiB": " MiB", "B": " B"}.get(unit, "")
    if unit == "B":
        return f"{m / 1048576:.1f} MiB"
    text = f"{m:.3g}{short}" if unit == "s" else f"{m:g}{short}"
    if spread and lo and hi and lo != hi:
        text += f" ({num(lo):.3g}–{num(hi):.3g})"
    return text


def ratio(label, n, a, b):
    x = runs[label].get((n, a))
    y = runs[label].get((n, b))
    if not x or not y or not num(y[0]):
        return "-"
    return f"{num(x[0]) / num(y[0]):.2f}"


out = []
w = out.append
w("# Benchmarks")
w("")
w("Written by `bash tests/bench/run.sh LABEL` (see tests/bench/run.sh for what is")
w("measured and how): the project's own API-server harness on 127.0.0.1, one")
w("namespace per size N holding an N-node ValkeyCluster mid-roll (N ValkeyNodes,")
w("N StatefulSets, N Pods with pod specs as the operator builds them, and the")
w("roll's events), created through the API. Figures are the median of several")
w("runs, with (min–max). Nothing here is asserted by a test.")
w("")
w("**The machine is shared** (other builds and tests ran during these runs): the")
w("load average is recorded with each run, and the figures are noisy. Rerun on a")
w("quiet machine before drawing fine conclusions.")
w("")
w("## Machines")
w("")
w("| | " + " | ".join(labels) + " |")
w("|---|" + "---|" * len(labels))
for key, name in [
    ("machine.date", "date"),
    ("machine.plugin", "plugin measured"),
    ("machine.server", "kube-apiserver"),
    ("machine.nproc", "nproc"),
    ("machine.cpu", "CPU"),
    ("machine.mem", "memory"),
    ("machine.load_start", "load average at start (1, 5, 15 min)"),
    ("machine.load", "load average at end (1, 5, 15 min)"),
    ("machine.load_secs", "loading the objects (s)"),
]:
    w(f"| {name} | " + " | ".join(fig(l, "-", key, False) for l in labels) + " |")
w("")
w("## status against the API server, as in issue 11")
w("")
for label in labels:
    w(f"### {label}")
    w("")
    w("| N nodes | LIST bytes | plugin `status -o json` | `status` (table) | `kubectl get` six kinds `-o json` | six LISTs, curl, sequential | six LISTs, curl, parallel | status / parallel curl | plugin RSS | kubectl RSS | requests per status (LISTs) |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        reqs = fig(label, n, "status.requests", False)
        lists = fig(label, n, "status.lists", False)
        w(
            f"| {n} | {fig(label, n, 'list.bytes')} | {fig(label, n, 'status.json.s')} | {fig(label, n, 'status.table.s')} "
            f"| {fig(label, n, 'kubectl.json.s')} | {fig(label, n, 'curl.seq.s')} | {fig(label, n, 'curl.par.s')} "
            f"| {ratio(label, n, 'status.json.s', 'curl.par.s')} | {fig(label, n, 'status.json.rss')} "
            f"| {fig(label, n, 'kubectl.json.rss')} | {reqs} ({lists}) |"
        )
    w("")

if len(labels) > 1:
    w("## Side by side")
    w("")
    w("| figure | N | " + " | ".join(labels) + " |")
    w("|---|---|" + "---|" * len(labels))
    rows = [
        ("status -o json", "status.json.s"),
        ("status (table)", "status.table.s"),
        ("status / parallel curl", None),
        ("status -o json peak RSS", "status.json.rss"),
        ("requests per status", "status.requests"),
    ]
    for name, key in rows:
        for n in sizes:
            if key is None:
                cells = [ratio(l, n, "status.json.s", "curl.par.s") for l in labels]
            else:
                cells = [fig(l, n, key) for l in labels]
            w(f"| {name} | {n} | " + " | ".join(cells) + " |")
    w("")

w("## status --watch, idle, and -f")
w("")
w("| figure | " + " | ".join(labels) + " |")
w("|---|" + "---|" * len(labels))
largest = sizes[-1] if sizes else "-"
for name, n, key in [
    (f"`status --watch` resident after start, N={largest}", largest, "watch.rss"),
    (f"`status --watch` peak resident, N={largest}", largest, "watch.hwm"),
    (f"`status --watch` CPU while idle (% of a core), N={largest}", largest, "watch.cpu"),
    (f"snapshot file of N={largest} (`kubectl get -o json`)", largest, "file.json.bytes"),
    ("python3 json.load of it", largest, "python.json.s"),
    ("`status -f` of it (JSON)", largest, "file.json.s"),
    ("`status -f` of it (JSON) peak RSS", largest, "file.json.rss"),
    ("`status -f` of it as YAML", largest, "file.yaml.s"),
    ("`status -f` of it as YAML, peak RSS", largest, "file.yaml.rss"),
    ("generated bundle (JSON)", "bundle", "file.json.bytes"),
    ("python3 json.load of the bundle", "bundle", "python.json.s"),
    ("`status -f` bundle (JSON)", "bundle", "file.json.s"),
    ("`status -f` bundle (JSON) peak RSS", "bundle", "file.json.rss"),
    ("`status -f` bundle (YAML)", "bundle", "file.yaml.s"),
    ("`status -f` bundle (YAML) peak RSS", "bundle", "file.yaml.rss"),
    ("`--help`", "-", "help.s"),
]:
    w(f"| {name} | " + " | ".join(fig(l, n, key) for l in labels) + " |")
w("")
# The exporter's runs (tests/bench/exporter.sh): one table per run label.
exporter_runs = {}  # label -> {(scenario, metric): (values..., unit)}
for path in sorted(glob.glob(os.path.join(here, "exporter-*.tsv")), key=os.path.getmtime):
    for line in open(path):
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 4:
            continue
        exporter_runs.setdefault(parts[0], {})[(parts[1], parts[2])] = parts[3:]
for label, r in exporter_runs.items():
    w(f"## The exporter (`bash tests/bench/exporter.sh {label}`)")
    w("")
    tree = next((k[1] for k in r if k[0] == "tree"), "?")
    start = next((k[1] for k in r if k[0] == "load.start"), "?")
    end = next((k[1] for k in r if k[0] == "load.end"), "?")
    w(f"Tree {tree}; load average at start {start}, at end {end}. A release build, every namespace watched, a roll in flight in every cluster (a third rolled, one holder, the rest asking); idle means nothing changes.")
    w("")
    scenarios = []
    for (sc, _m) in r:
        if sc not in ("tree", "load.start", "load.end") and sc not in scenarios:
            scenarios.append(sc)
    def named(sc):
        if "x" in sc:
            count, n = sc.split("x")
            return f"{int(count) * int(n):,} nodes in {count} clusters"
        return f"{int(sc):,} nodes in 1 cluster"
    w("| figure | " + " | ".join(named(sc) for sc in scenarios) + " | target |")
    w("|---|" + "---|" * len(scenarios) + "---|")
    def cell(sc, metric):
        v = r.get((sc, metric))
        if not v:
            return "-"
        if metric == "scrape.s":
            med, lo, hi = (float(x) * 1000 for x in v[:3])
            return f"{med:.1f} ms ({lo:.1f}–{hi:.1f})"
        return f"{v[0]} {v[-1]}" if metric != "clusters" else v[0]
    for name, metric, target in [
        ("ready (listed and judged) after start", "ready.s", ""),
        ("resident memory, idle", "rss", "≤ 128 MiB"),
        ("peak resident memory", "rss.peak", ""),
        ("CPU while idle", "idle.cpu", "≤ 0.5 % of a core"),
        ("a scrape of /metrics (median, min–max)", "scrape.s", "< 50 ms"),
        ("scrape size", "scrape.bytes", ""),
        ("series in a scrape", "scrape.series", ""),
        ("clusters exported", "clusters", ""),
    ]:
        w(f"| {name} | " + " | ".join(cell(sc, metric) for sc in scenarios) + f" | {target} |")
    w("")
notes = os.path.join(here, "NOTES.md")
if os.path.exists(notes):
    w(open(notes).read().rstrip())
    w("")
print("\n".join(out))
