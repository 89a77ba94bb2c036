//! The direction of every `crate::` path in production code.
//!
//! Reads `src/` as text, leaves out test code (`#[cfg(test)]` items, `tests`
//! folders, comments) and collects, for each module, the modules its paths
//! name: `crate::a::b`, `use crate::{a, b::c}` and `super::x`. Then it
//! checks two things:
//!
//! - the rules of the layers: the classifier imports nothing from the
//!   presentation, argument, command, reading, live or steering layers; the
//!   planner nothing from presentation, arguments or commands; the reading
//!   layer nothing from arguments, commands, presentation, steering or
//!   the live layer; the live layer nothing from arguments, commands or
//!   presentation; the presentation nothing from the reading or live
//!   layers; the plain data of
//!   the snapshot nothing from any other layer, the report included;
//! - no cycle among the children of any one module: the top-level modules
//!   (the children of the crate), and `source::live` with `source::watch`,
//!   say. A child naming its parent (`super::Thing` of a
//!   `mod.rs`) is not counted: the parent owns its children.
//!
//! It is a text scan, not a compiler: a path spelt in a string or a macro
//! would be read too, which errs on the side of a failure to look at.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// Modules that `from` (a prefix) may not import (prefixes).
const FORBIDDEN: &[(&str, &[&str])] = &[
    (
        "classify",
        &[
            "render", "cli", "app", "commands", "source", "steer", "live",
        ],
    ),
    ("steer::plan", &["render", "cli", "app", "commands", "live"]),
    (
        "source",
        &["app", "cli", "commands", "render", "steer", "live"],
    ),
    // The live layer keeps contexts live for the commands: it reads
    // through source/ and judges; it neither words nor parses arguments.
    ("live", &["app", "cli", "commands", "render"]),
    (
        "snapshot",
        &[
            "render", "cli", "app", "commands", "source", "steer", "classify", "report", "live",
        ],
    ),
    // Render meets what the reading layer found only as plain data in
    // snapshot/ (what a view left out, the Lease's name).
    ("render", &["source", "live"]),
    (
        "report",
        &[
            "render", "cli", "app", "commands", "source", "steer", "live",
        ],
    ),
];

#[test]
fn no_production_module_imports_a_layer_above_it() {
    let edges = edges_of_src();
    let mut wrong = Vec::new();
    for (from, tos) in &edges {
        for (rule_from, banned) in FORBIDDEN {
            if !starts_with(from, rule_from) {
                continue;
            }
            for to in tos {
                if banned.iter().any(|b| starts_with(to, b)) {
                    wrong.push(format!("{} -> {}", from.join("::"), to.join("::")));
                }
            }
        }
    }
    if std::env::var_os("LAYERS_GRAPH").is_some() {
        println!("{}", graph(&edges));
    }
    assert!(wrong.is_empty(), "upward imports:\n{}", wrong.join("\n"));
}

/// The layer of a module, top (0) to bottom, for the picture
/// `LAYERS_GRAPH=1 cargo test --test layers -- --nocapture` prints: the
/// modules of the layers and of `commands`, what each imports, and the
/// imports that run back up a layer (`^`).
fn rank(m: &[String]) -> Option<usize> {
    Some(match m.first()?.as_str() {
        "app" | "main" => 0,
        // The arguments, parsed: what the commands take.
        "commands" | "cli" => 1,
        "live" => 2,
        "render" => 3,
        "steer" | "source" => 4,
        "classify" => 5,
        "report" | "snapshot" => 6,
        _ => return None,
    })
}

fn graph(edges: &BTreeMap<Module, BTreeSet<Module>>) -> String {
    // A module of the picture: the top-level one, or commands' child.
    let node = |m: &Module| -> Option<String> {
        rank(m)?;
        Some(match (m[0].as_str(), m.get(1)) {
            ("commands", Some(c)) => format!("commands::{c}"),
            _ => m[0].clone(),
        })
    };
    let mut lines: BTreeMap<(usize, String), BTreeMap<String, bool>> = BTreeMap::new();
    for (from, tos) in edges {
        let (Some(a), Some(ra)) = (node(from), rank(from)) else {
            continue;
        };
        for to in tos {
            let (Some(b), Some(rb)) = (node(to), rank(to)) else {
                continue;
            };
            if a != b {
                lines.entry((ra, a.clone())).or_default().insert(b, rb < ra);
            }
        }
    }
    let mut out = String::new();
    for ((_, from), tos) in lines {
        let tos: Vec<String> = tos
            .into_iter()
            .map(|(to, up)| if up { format!("^{to}") } else { to })
            .collect();
        out.push_str(&format!("{from} -> {}\n", tos.join(" ")));
    }
    out
}

/// The API server is asked through the reading layer (and the steering
/// layer's writes) alone: no other module names kube's `Api` (issue 43
/// item 6: `commands` listed ValkeyClusters and namespaces itself).
#[test]
fn only_source_and_steer_ask_the_api_server() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    let wrong: Vec<String> = files
        .iter()
        .filter(|f| !f.starts_with(src.join("source")) && !f.starts_with(src.join("steer")))
        .filter(|f| {
            let text = std::fs::read_to_string(f).expect("readable source");
            [
                "kube::Api",
                "kube::api::",
                "use kube::api",
                "Api::all(",
                "Api::namespaced(",
            ]
            .iter()
            .any(|p| text.contains(p))
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(files.len() > 20, "read too few files: {}", files.len());
    assert!(
        wrong.is_empty(),
        "kube's Api outside source/ and steer/:\n{}",
        wrong.join("\n")
    );
}

/// Issue 43 item 1: one place starts a context's watch and one loop
/// retries a context (src/live); the commands take from it. The reading
/// layer's own watchers (source/watch.rs, each kind's back-off) are below
/// it and not counted.
#[test]
fn one_place_starts_a_watch_and_retries_a_context() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    let markers = [
        "Watch::start(",
        "Watch::start_tolerant(",
        "DefaultBackoff",
        "MAX_RETRY",
        "sleep(retry",
    ];
    let mut found: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for f in files.iter().filter(|f| !f.starts_with(src.join("source"))) {
        let text = production_code(&std::fs::read_to_string(f).expect("readable source"));
        for m in markers {
            if text.contains(m) {
                let at = f.strip_prefix(&src).unwrap_or(f).display().to_string();
                found.entry(at).or_default().push(m);
            }
        }
    }
    let places: Vec<&String> = found.keys().collect();
    assert_eq!(
        places,
        vec!["live/mod.rs"],
        "a watch started or a context retried elsewhere: {found:?}"
    );
    // And the check sees what it looks for: the start of each kind of
    // watch, the back-off and its sleep, there.
    assert_eq!(
        found["live/mod.rs"],
        [
            "Watch::start(",
            "Watch::start_tolerant(",
            "DefaultBackoff",
            "sleep(retry"
        ],
    );
}

/// The servers are read again on one schedule (issue 43): only the live
/// layer's re-reader reads them in a loop, and the four live commands read
/// them through it alone (a one-shot reading, `servers::read_into`, is
/// for status, explain, bundle and the steering commands).
#[test]
fn one_place_reads_the_servers_again() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    let live_commands = [
        "commands/watch.rs",
        "commands/wait.rs",
        "commands/dashboard/",
        "commands/exporter/",
    ];
    let mut rereads = Vec::new();
    let mut by_hand = Vec::new();
    for f in &files {
        let at = f.strip_prefix(&src).unwrap_or(f).display().to_string();
        let text = production_code(&std::fs::read_to_string(f).expect("readable source"));
        if text.contains("read_cluster_into(") && !at.starts_with("source/") {
            rereads.push(at.clone());
        }
        if live_commands.iter().any(|c| at.starts_with(c))
            && ["read_into(", "read_cluster_into("]
                .iter()
                .any(|m| text.contains(m))
        {
            by_hand.push(at);
        }
    }
    assert_eq!(
        rereads,
        ["live/servers.rs"],
        "the servers re-read elsewhere"
    );
    assert!(
        by_hand.is_empty(),
        "a live command reads the servers itself: {by_hand:?}"
    );
}

#[test]
fn no_two_sibling_modules_import_each_other() {
    let edges = edges_of_src();
    // parent -> (child -> children it imports)
    let mut levels: BTreeMap<Module, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (from, tos) in &edges {
        for to in tos {
            // The deepest common parent, and the children of it on each side.
            let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
            let (Some(a), Some(b)) = (from.get(common), to.get(common)) else {
                continue; // one is inside the other
            };
            levels
                .entry(from[..common].to_vec())
                .or_default()
                .entry(a.clone())
                .or_default()
                .insert(b.clone());
        }
    }
    let mut found = Vec::new();
    for (parent, graph) in &levels {
        for cycle in cycles(graph) {
            found.push(format!("in {}: {cycle}", display(parent)));
        }
    }
    assert!(
        found.is_empty(),
        "cycles among sibling modules:\n{}",
        found.join("\n")
    );
}

/// The scanner itself reads what it must: a table of small sources.
#[test]
fn the_scanner_reads_paths_and_leaves_out_test_code() {
    let cases: &[(&str, &[&str])] = &[
        (
            "use crate::render::duration::human;",
            &["render::duration::human"],
        ),
        (
            "use crate::{cli::GlobalArgs, error::{Error, Result}};",
            &["cli::GlobalArgs", "error::Error", "error::Result"],
        ),
        ("let x = crate::shell::quote(a);", &["shell::quote"]),
        ("// crate::render::x in a comment\n", &[]),
        ("/// [`h`](crate::render::h)\nfn f() {}", &[]),
        (
            "#[cfg(test)]\nmod tests {\n    use crate::render::x;\n}\nuse crate::cli::Y;",
            &["cli::Y"],
        ),
        (
            "#[cfg(test)]\nmod fixture;\nuse crate::cli::Y;",
            &["cli::Y"],
        ),
        ("use super::rules::Rule;", &["SUPER::rules::Rule"]),
    ];
    for (source, want) in cases {
        let got: Vec<String> = paths_in(source).into_iter().map(|p| p.join("::")).collect();
        let want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
        assert_eq!(got, want, "in {source:?}");
    }
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into();
    assert_eq!(cycles(&graph), vec!["a -> b -> a".to_string()]);
}

fn display(m: &[String]) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

fn starts_with(m: &[String], prefix: &str) -> bool {
    let p: Vec<&str> = prefix.split("::").collect();
    m.len() >= p.len() && m.iter().zip(&p).all(|(a, b)| a == b)
}

/// Every production module and the module paths it names.
fn edges_of_src() -> BTreeMap<Module, BTreeSet<Module>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    let modules: BTreeSet<Module> = files.iter().map(|f| module_of(&src, f)).collect();
    let mut edges = BTreeMap::new();
    for file in &files {
        let module = module_of(&src, file);
        let text = std::fs::read_to_string(file).expect("readable source");
        let mut tos = BTreeSet::new();
        for path in paths_in(&text) {
            let absolute = if path.first().map(String::as_str) == Some("SUPER") {
                let parent = &module[..module.len().saturating_sub(1)];
                parent
                    .iter()
                    .cloned()
                    .chain(path[1..].iter().cloned())
                    .collect()
            } else {
                path
            };
            // The longest prefix that is a module: `render::duration::human`
            // names the module `render::duration`.
            let target = (1..=absolute.len())
                .rev()
                .map(|n| absolute[..n].to_vec())
                .find(|m| modules.contains(m));
            if let Some(t) = target
                && t != module
            {
                tos.insert(t);
            }
        }
        edges.insert(module, tos);
    }
    assert!(edges.len() > 20, "read too few modules: {}", edges.len());
    edges
}

/// `.rs` files of production code: not `tests` folders, not the binaries,
/// not the build script, not the test vocabulary (`src/fixture`, compiled
/// only for tests and the bench).
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("readable src")
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(name.as_str(), "tests" | "bin" | "snapshots" | "fixture") {
                collect(&path, out);
            }
        } else if name.ends_with(".rs")
            && !matches!(name.as_str(), "main.rs" | "fixture.rs" | "sample.rs")
        {
            out.push(path);
        }
    }
}

fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The `crate::` and `super::` paths in a source text, test code and
/// comments left out. `super::` paths start with the marker `SUPER`.
fn paths_in(text: &str) -> Vec<Vec<String>> {
    let code = production_code(text);
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &code[i..];
        let word_start = i == 0 || !is_ident(bytes[i - 1]);
        if word_start && rest.starts_with("crate::") {
            i += "crate::".len();
            i = read_tree(&code, i, Vec::new(), &mut out);
        } else if word_start && rest.starts_with("super::") {
            i += "super::".len();
            i = read_tree(&code, i, vec!["SUPER".to_string()], &mut out);
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}

/// Reads `a::b::{c, d::e}` from `i`, pushing each full path; returns the
/// index after it.
fn read_tree(code: &str, mut i: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let bytes = code.as_bytes();
    let mut path = prefix;
    loop {
        while i < bytes.len() && bytes[i] == b' ' {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'{' {
            i += 1;
            loop {
                while i < bytes.len() && (bytes[i] as char).is_whitespace() {
                    i += 1;
                }
                if i >= bytes.len() {
                    return i;
                }
                if bytes[i] == b'}' {
                    return i + 1;
                }
                if bytes[i] == b',' {
                    i += 1;
                    continue;
                }
                let before = out.len();
                i = read_tree(code, i, path.clone(), out);
                if out.len() == before {
                    i += 1; // `self` or something unreadable: step over it
                }
            }
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        if start == i {
            break;
        }
        let word = &code[start..i];
        if word != "self" {
            path.push(word.to_string());
        }
        if code[i..].starts_with("::") {
            i += 2;
        } else {
            break;
        }
    }
    if path.iter().any(|p| p != "SUPER") {
        out.push(path);
    }
    i
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The text without comments and without items marked `#[cfg(test)]`.
fn production_code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            // Skip the next item: one line ending in `;`, or up to its
            // closing brace at the same indentation.
            let indent = line.len() - trimmed.len();
            while let Some(next) = lines.next() {
                let t = next.trim_start();
                if t.starts_with("#[") {
                    continue;
                }
                if t.ends_with(';') {
                    break;
                }
                let close = format!("{}}}", " ".repeat(indent));
                for inner in lines.by_ref() {
                    if inner == close || inner.trim_end() == close {
                        break;
                    }
                }
                break;
            }
            continue;
        }
        let code = match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The simple cycles of a small graph, each once, written `a -> b -> a`
/// from its smallest node.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut found = BTreeSet::new();
    for start in graph.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        while let Some((node, path)) = stack.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                if next == start {
                    let mut cycle = path.clone();
                    if cycle.iter().min() == Some(start) {
                        cycle.push(start.clone());
                        found.insert(cycle.join(" -> "));
                    }
                } else if !path.contains(next) && next > start {
                    let mut p = path.clone();
                    p.push(next.clone());
                    stack.push((next.clone(), p));
                }
            }
        }
    }
    found.into_iter().collect()
}
