//! Issue 21, k9s: `contrib/k9s/valkey-roll.yaml` is a k9s plugins file
//! (the keys k9s requires, shortcuts unique in each view), it has status,
//! explain and history on valkeyclusters and valkeynodes and replace-pod
//! (k9s asks first) on valkeynodes, every command passes k9s's context and
//! namespace, and each command line runs: with k9s's variables set and
//! substituted, `kubectl` standing for the plugin on a bundled example
//! (offline), `less` for `cat`.

mod common;

use common::{BIN, NOW, root};

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

fn plugins() -> BTreeMap<String, Value> {
    let path = root().join("contrib/k9s/valkey-roll.yaml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: Value = serde_saphyr::from_str(&text).expect("a YAML document");
    let map = doc["plugins"].as_object().expect("a plugins map");
    map.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

fn script(p: &Value) -> String {
    p["args"][1].as_str().unwrap_or_default().to_string()
}

/// A command of the plugin's: `status`, `explain`, `history`, `replace-pod`.
fn verb(p: &Value) -> String {
    let s = script(p);
    let after = s.split("kubectl valkey-roll ").nth(1).unwrap_or_default();
    after
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_k9s_plugins_file_for_both_views() {
    let plugins = plugins();
    let mut shortcuts: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut verbs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, p) in &plugins {
        for key in ["shortCut", "description", "scopes", "command"] {
            assert!(!p[key].is_null(), "{name}: no {key}");
        }
        assert_eq!(p["command"], "bash", "{name}");
        assert_eq!(p["args"][0], "-c", "{name}");
        assert_eq!(p["background"], false, "{name}");
        let s = script(p);
        assert!(
            s.contains(r#"--context "$CONTEXT" -n "$NAMESPACE""#),
            "{name}: {s}"
        );
        for scope in p["scopes"].as_array().expect("scopes") {
            let scope = scope.as_str().expect("a scope").to_string();
            let key = p["shortCut"].as_str().expect("shortCut").to_string();
            assert!(
                shortcuts.entry(scope.clone()).or_default().insert(key),
                "{name}: a shortcut used twice in {scope}"
            );
            verbs.entry(scope).or_default().insert(verb(p));
        }
        assert_eq!(
            p["confirm"].as_bool(),
            Some(verb(p) == "replace-pod"),
            "{name}: only replace-pod asks first"
        );
    }
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(
        verbs["valkeyclusters"],
        set(&["status", "explain", "history"])
    );
    assert_eq!(
        verbs["valkeynodes"],
        set(&["status", "explain", "history", "replace-pod"])
    );
}

/// A directory of stand-ins: `kubectl` runs the plugin offline on
/// `example` (a dry run for replace-pod), `less` is `cat`, `tput` says 80.
fn stand_ins(dir: &Path, example: &Path) {
    let write = |name: &str, body: &str| {
        let path = dir.join(name);
        std::fs::write(&path, body).expect("write a stand-in");
        let mut perms = std::fs::metadata(&path).expect("stat").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(&path, perms).expect("chmod");
    };
    write(
        "kubectl",
        &format!(
            "#!/bin/sh\n[ \"$1\" = valkey-roll ] || exit 97\nshift\nextra=\ncase \"$1\" in replace-pod) extra=--dry-run=client;; esac\nexec '{BIN}' \"$@\" -f '{}' --now {NOW} $extra\n",
            example.display()
        ),
    );
    write("less", "#!/bin/sh\nexec cat\n");
    write("tput", "#!/bin/sh\necho 80\n");
}

#[test]
fn every_command_line_runs_with_k9s_variables() {
    let dir = tempfile::tempdir().expect("temp dir");
    stand_ins(dir.path(), &root().join("examples/jammed.yaml"));
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (name, p) in plugins() {
        for scope in p["scopes"].as_array().expect("scopes") {
            let object = match scope.as_str() {
                Some("valkeyclusters") => "cache",
                _ => "cache-1-0",
            };
            // Longest first: `$NAMESPACE` is not `$NAME` and "SPACE".
            let vars = [
                ("NAMESPACE", "prod"),
                ("CONTEXT", "k9s-test"),
                ("NAME", object),
            ];
            // k9s substitutes its variables in the arguments, and sets them.
            let mut line = script(&p);
            for (var, value) in vars {
                line = line.replace(&format!("${var}"), value);
            }
            let out = Command::new("bash")
                .args(["-c", &line])
                .envs(vars)
                .env("PATH", &path)
                .env("NO_COLOR", "1")
                .env_remove("KUBECONFIG")
                .env_remove("COLUMNS")
                .output()
                .expect("run bash");
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(out.status.success(), "{name}: {line}\n{text}");
            let want = match verb(&p).as_str() {
                "status" => "JAMMED",
                "explain" if object == "cache" => "Why the queue is not moving",
                "explain" => "Why Stuck",
                "history" => "roll began",
                // Not a trapped pod: refused, with the way out.
                _ => "way out:",
            };
            assert!(text.contains(want), "{name}: {line}\n{text}");
            assert!(
                text.lines()
                    .all(|l| l.chars().count() <= 80 || !l.trim().contains(' ')),
                "{name}: fitted to tput's 80 columns:\n{text}"
            );
        }
    }
}
