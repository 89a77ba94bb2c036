//! Issue 32 item 2, "a picture of a roll": `history -o svg`. Read back by a
//! real XML parser (roxmltree): well-formed SVG, one row per node of the
//! `history -o json` document in its order, times that only go forward
//! (the axis, and each row's stretches), the stretches that the rows'
//! outcomes call for; goldens of a jammed and a finished roll in
//! `tests/golden/svg/`; hostile names shown as text, never markup.
//!
//! `UPDATE_GOLDEN=1 cargo test --test history_svg` writes the goldens
//! anew (testbin/update-expected.sh does); the diff is the review.

mod common;

use common::{Ran, example, root, run};
use roxmltree::{Document, Node};
use serde_json::Value;
use std::path::Path;

const SVG_NS: &str = "http://www.w3.org/2000/svg";

/// The elements the picture may hold: nothing that runs or links.
const ELEMENTS: &[&str] = &[
    "svg", "title", "defs", "pattern", "g", "rect", "line", "path", "text",
];

fn svg_of(file: &str) -> Ran {
    let r = run(&["history", "-f", file, "-o", "svg"]);
    assert_eq!(r.code, 0, "{}", r.both());
    r
}

fn parse(text: &str) -> Document<'_> {
    Document::parse(text).unwrap_or_else(|e| panic!("not well-formed XML: {e}\n{text:.2000}"))
}

fn class_has(n: &Node<'_, '_>, class: &str) -> bool {
    n.attribute("class")
        .is_some_and(|c| c.split(' ').any(|w| w == class))
}

fn time(n: &Node<'_, '_>, attr: &str) -> jiff::Timestamp {
    let v = n
        .attribute(attr)
        .unwrap_or_else(|| panic!("{attr} missing on {n:?}"));
    v.parse()
        .unwrap_or_else(|e| panic!("{attr}={v:?} is not RFC 3339: {e}"))
}

fn num(n: &Node<'_, '_>, attr: &str) -> f64 {
    let v = n
        .attribute(attr)
        .unwrap_or_else(|| panic!("{attr} missing on {n:?}"));
    v.parse()
        .unwrap_or_else(|e| panic!("{attr}={v:?} is not a number: {e}"))
}

/// Every check of a picture against its `history -o json` document; the
/// failures, listed.
fn check_picture(what: &str, svg: &str, doc: &Value) -> Vec<String> {
    let mut failures = Vec::new();
    let parsed = parse(svg);
    let root = parsed.root_element();
    if root.tag_name().name() != "svg" || root.tag_name().namespace() != Some(SVG_NS) {
        failures.push(format!("{what}: the root is {:?}", root.tag_name()));
    }
    for n in parsed.descendants().filter(Node::is_element) {
        let name = n.tag_name().name();
        if !ELEMENTS.contains(&name) || n.tag_name().namespace() != Some(SVG_NS) {
            failures.push(format!(
                "{what}: an element {name:?} not in the picture's set"
            ));
        }
        for a in n.attributes() {
            if a.name().starts_with("on") || a.name() == "href" || a.name() == "style" {
                failures.push(format!("{what}: an attribute {:?}", a.name()));
            }
        }
    }
    let clusters: Vec<Node> = root
        .children()
        .filter(|n| class_has(n, "cluster"))
        .collect();
    let want = doc["clusters"].as_array().cloned().unwrap_or_default();
    if clusters.len() != want.len() {
        failures.push(format!(
            "{what}: {} cluster blocks for {} clusters",
            clusters.len(),
            want.len()
        ));
    }
    for (block, c) in clusters.iter().zip(&want) {
        // The axis: round times, left to right.
        let ticks: Vec<Node> = block
            .descendants()
            .filter(|n| class_has(n, "tick"))
            .collect();
        if ticks.len() < 2 {
            failures.push(format!("{what}: {} ticks on the axis", ticks.len()));
        }
        for pair in ticks.windows(2) {
            if time(&pair[0], "data-t") >= time(&pair[1], "data-t")
                || num(&pair[0], "x1") >= num(&pair[1], "x1")
            {
                failures.push(format!(
                    "{what}: ticks out of order: {:?} {:?}",
                    pair[0].attribute("data-t"),
                    pair[1].attribute("data-t")
                ));
            }
        }
        let nodes: Vec<Node> = block
            .descendants()
            .filter(|n| class_has(n, "node"))
            .collect();
        let want_nodes = c["nodes"].as_array().cloned().unwrap_or_default();
        let got: Vec<&str> = nodes
            .iter()
            .filter_map(|n| n.attribute("data-node"))
            .collect();
        let names: Vec<&str> = want_nodes
            .iter()
            .filter_map(|n| n["node"].as_str())
            .collect();
        // A plain name is as it is; a hostile one is shown cleaned and
        // cut, and begins alike.
        let same = |got: &&str, name: &&str| {
            let plain = name.len() <= 63 && name.chars().all(|c| c.is_ascii_graphic());
            if plain {
                got == name
            } else {
                got.get(..9) == name.get(..9)
            }
        };
        if got.len() != names.len() || !got.iter().zip(&names).all(|(g, n)| same(g, n)) {
            failures.push(format!(
                "{what}: rows {got:.300?}, history's nodes {names:.300?}"
            ));
        }
        for (row, n) in nodes.iter().zip(&want_nodes) {
            let name = n["node"].as_str().unwrap_or("?");
            let spans: Vec<Node> = row.descendants().filter(|n| class_has(n, "span")).collect();
            // Each stretch goes forward, and each begins where the one
            // before it ended, further right.
            for s in &spans {
                if time(s, "data-from") >= time(s, "data-to") || num(s, "width") <= 0.0 {
                    failures.push(format!(
                        "{what}: {name}: a stretch backwards: {:?} to {:?}",
                        s.attribute("data-from"),
                        s.attribute("data-to")
                    ));
                }
            }
            for pair in spans.windows(2) {
                if time(&pair[0], "data-to") != time(&pair[1], "data-from")
                    || num(&pair[0], "x") >= num(&pair[1], "x")
                {
                    failures.push(format!("{what}: {name}: stretches out of order"));
                }
            }
            let phases: Vec<&str> = spans
                .iter()
                .filter_map(|s| s.attribute("class")?.strip_prefix("span "))
                .collect();
            let outcome = n["outcome"].as_str().unwrap_or("?");
            let ok = match outcome {
                "rolled" => phases.last() == Some(&"rolled"),
                "stuck" => phases.last() == Some(&"stuck"),
                "rolling" => phases.last() == Some(&"in-flight"),
                "waiting" => phases == ["waiting"],
                "blocked" => phases == ["blocked"],
                _ => phases.is_empty(),
            };
            if !ok || row.attribute("data-outcome") != Some(outcome) {
                failures.push(format!("{what}: {name} {outcome}: drawn as {phases:?}"));
            }
            // Where it became Ready, it is rolled from then on.
            if outcome == "rolled"
                && let Some(ready) = n["readyAt"].as_str()
            {
                let from = spans.last().and_then(|s| s.attribute("data-from"));
                if from != Some(ready) {
                    failures.push(format!(
                        "{what}: {name} rolled from {from:?}, Ready {ready}"
                    ));
                }
            }
            // A holder shows its stall threshold.
            let threshold = row.descendants().any(|n| class_has(&n, "threshold"));
            if matches!(outcome, "stuck" | "rolling") != threshold {
                failures.push(format!(
                    "{what}: {name} {outcome}: threshold shown {threshold}"
                ));
            }
        }
    }
    failures
}

/// The pictures of every bundled example read back against history's
/// own document.
#[test]
fn every_example_draws_well_formed_rows_and_forward_times() {
    let mut failures = Vec::new();
    for name in ["jammed", "jammed-p1", "rolling", "converged"] {
        let file = example(name);
        let svg = svg_of(&file).stdout;
        let doc = run(&["history", "-f", &file, "-o", "json"]).ok_json();
        failures.extend(check_picture(name, &svg, &doc));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What a jammed roll's picture marks: its stuck holder over the stall
/// threshold, the shard at risk, the failover of the roll, and now.
#[test]
fn a_jammed_roll_marks_stuck_risk_failover_and_threshold() {
    let svg = svg_of(&example("jammed")).stdout;
    let parsed = parse(&svg);
    let row = |name: &str| {
        parsed
            .descendants()
            .find(|n| class_has(n, "node") && n.attribute("data-node") == Some(name))
            .unwrap_or_else(|| panic!("no row {name}"))
    };
    // cache-1-0 advanced at 10:02:10: stuck from 10:12:10 (10m) to now.
    let stuck = row("cache-1-0");
    let threshold = stuck
        .descendants()
        .find(|n| class_has(n, "threshold"))
        .expect("threshold");
    assert_eq!(threshold.attribute("data-t"), Some("2026-11-29T10:12:10Z"));
    let span = stuck
        .descendants()
        .find(|n| class_has(n, "stuck"))
        .expect("stuck");
    assert_eq!(span.attribute("data-from"), Some("2026-11-29T10:12:10Z"));
    assert_eq!(span.attribute("data-to"), Some(common::NOW));
    // Shard 1 is at risk: both its rows are marked.
    for name in ["cache-1-0", "cache-1-1"] {
        assert!(
            row(name).descendants().any(|n| class_has(&n, "risk")),
            "{name} at risk"
        );
    }
    assert!(
        !row("cache-0-1")
            .descendants()
            .any(|n| class_has(&n, "risk"))
    );
    // The failover of shard 0 before its primary rolled.
    assert!(
        parsed.descendants().any(|n| class_has(&n, "failover")),
        "{svg:.3000}"
    );
    assert!(parsed.descendants().any(|n| class_has(&n, "now")));
    // The stall threshold is said in words too.
    assert!(svg.contains("stall threshold 10m"), "{svg:.3000}");
}

/// A longer threshold moves the mark: it is the one the report was
/// judged with.
#[test]
fn the_threshold_mark_follows_stall_threshold() {
    let r = run(&[
        "history",
        "-f",
        &example("rolling"),
        "-o",
        "svg",
        "--stall-threshold",
        "30m",
    ]);
    assert_eq!(r.code, 0, "{}", r.both());
    let parsed = parse(&r.stdout);
    let t = parsed
        .descendants()
        .find(|n| class_has(n, "threshold"))
        .expect("threshold");
    // sessions-0-1 advanced at 10:14:33.
    assert_eq!(t.attribute("data-t"), Some("2026-11-29T10:44:33Z"));
    assert!(r.stdout.contains("stall threshold 30m"));
}

#[test]
fn svg_is_history_only() {
    for verb in [
        vec!["status"],
        vec!["explain", "cache"],
        vec!["wait", "cache"],
    ] {
        let mut args = verb.clone();
        args.extend(["-f", "x.yaml", "-o", "svg"]);
        let r = run(&args);
        assert_eq!(r.code, 2, "{}", r.both());
        assert!(
            r.stderr.contains("-o svg goes with history only"),
            "{}",
            r.both()
        );
    }
}

/// The goldens: a jammed and a finished roll.
#[test]
fn goldens_of_a_jammed_and_a_finished_roll() {
    let dir = root().join("tests/golden/svg");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for name in ["jammed", "converged"] {
        let got = svg_of(&example(name)).stdout;
        let path = dir.join(format!("{name}.history.svg"));
        if update {
            std::fs::create_dir_all(&dir).expect("golden dir");
            std::fs::write(&path, &got).expect("write golden");
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; UPDATE_GOLDEN=1 cargo test --test history_svg writes it",
                path.display()
            )
        });
        if got != want {
            failures.push(format!(
                "{} differs; UPDATE_GOLDEN=1 writes it anew",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The jammed example with the stuck node's name, and another's, made
/// hostile wherever they name those nodes.
fn hostile_jammed(dir: &Path, stuck: &str, waiting: &str) -> String {
    let text = std::fs::read_to_string(root().join("examples/jammed.yaml")).expect("example");
    let mut out = text;
    for (from, to) in [("cache-1-0", stuck), ("cache-2-1", waiting)] {
        // As a YAML double-quoted string: its escapes are JSON's.
        let quoted = serde_json::to_string(to).expect("quote");
        for before in ["name: ", "instance: "] {
            out = out.replace(&format!("{before}{from}\n"), &format!("{before}{quoted}\n"));
        }
    }
    let path = dir.join("hostile.yaml");
    std::fs::write(&path, out).expect("write");
    path.display().to_string()
}

#[test]
fn hostile_names_are_text_never_markup() {
    let dir = tempfile::tempdir().expect("tempdir");
    let stuck = "cache-1-0\"><script>alert(1)</script>&amp;'\u{202e}\u{200f}x";
    let long = format!("cache-2-1{}", "w".repeat(100_000));
    let file = hostile_jammed(dir.path(), stuck, &long);
    let r = svg_of(&file);
    let parsed = parse(&r.stdout);
    // Nothing but the picture's own elements (no script), and the name is
    // there as text, its bidirectional marks shown as codes.
    let doc = run(&["history", "-f", &file, "-o", "json"]).ok_json();
    let mut failures = check_picture("hostile", &r.stdout, &doc);
    let shown = "cache-1-0\"><script>alert(1)</script>&amp;'\\u{202e}\\u{200f}x";
    let texts: Vec<String> = parsed
        .descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text().map(str::to_string))
        .collect();
    if !texts.iter().any(|t| t.contains(shown)) {
        failures.push(format!("the name is not shown as text: {shown}"));
    }
    if r.stdout.contains('\u{202e}') || r.stdout.contains('\u{200f}') {
        failures.push("a raw bidirectional mark".into());
    }
    if r.stdout.contains("<script") {
        failures.push("<script unescaped".into());
    }
    // The long name: cut in labels, bounded everywhere, the picture small.
    if r.stdout.contains(&long) || r.stdout.len() > 64 * 1024 {
        failures.push(format!("the long name whole: {} bytes", r.stdout.len()));
    }
    let label = parsed
        .descendants()
        .filter(|n| class_has(n, "node"))
        .filter_map(|n| n.children().find(|c| c.has_tag_name("text")))
        .filter_map(|t| t.text())
        .find(|t| t.starts_with("cache-2-1w"));
    if !label.is_some_and(|l| l.chars().count() < 60 && l.contains('…')) {
        failures.push(format!("the long name's label: {label:?}"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Issue 43 item 5, end to end: the roll so far (its first stretch to
/// the line at now) keeps at least half the axis's width, and the holder's
/// stall threshold is still drawn, off the scale with its time when it
/// lies further ahead. The rolling example (sessions-0-1 advanced at
/// 10:14:33, threshold 10m) 1m38s and 30m into its jam.
#[test]
fn the_roll_keeps_half_the_axis_and_its_threshold() {
    for (now, off_scale) in [(common::NOW, true), ("2026-11-29T10:44:33Z", false)] {
        let r = run(&[
            "history",
            "-f",
            &example("rolling"),
            "-o",
            "svg",
            "--now",
            now,
        ]);
        assert_eq!(r.code, 0, "{}", r.both());
        let parsed = parse(&r.stdout);
        let find = |class: &str| {
            parsed
                .descendants()
                .find(|n| class_has(n, class))
                .unwrap_or_else(|| panic!("{now}: no {class}"))
        };
        let axis = find("axis-line");
        let width = num(&axis, "x2") - num(&axis, "x1");
        let first = parsed
            .descendants()
            .filter(|n| class_has(n, "span"))
            .map(|n| num(&n, "x"))
            .fold(f64::INFINITY, f64::min);
        let share = (num(&find("now"), "x1") - first) / width;
        assert!(share >= 0.5, "{now}: the roll takes {share:.3} of the axis");
        let threshold = find("threshold");
        assert_eq!(threshold.attribute("data-t"), Some("2026-11-29T10:24:33Z"));
        assert_eq!(class_has(&threshold, "off-scale"), off_scale, "{now}");
        let said = threshold
            .descendants()
            .filter_map(|n| n.text())
            .any(|t| t.contains("stall threshold 10:24:33 (8m22s ahead)"));
        assert_eq!(said, off_scale, "{now}: the off-scale time written");
    }
}
