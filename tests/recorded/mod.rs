//! The real operator's recorded rolls (../shared/recordings beside the
//! checkout, or `VALKEY_ROLL_RECORDINGS`), read at run time by
//! tests/recordings.rs and tests/recordings_e2e.rs: never copied into this
//! repository.

// Not every test that reads the recordings replays them offline.
#![allow(dead_code)]

use serde_json::Value;
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The recordings' folder; panics with where it looked when it is missing.
pub fn root() -> PathBuf {
    let dir = std::env::var_os("VALKEY_ROLL_RECORDINGS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/recordings"));
    assert!(
        dir.join("README.md").is_file(),
        "the recordings are not at {} (they live in ../shared beside the checkout; set VALKEY_ROLL_RECORDINGS)",
        dir.display()
    );
    dir
}

/// A recorded file (`.json.gz`), unzipped.
pub fn gunzip(path: &Path) -> Vec<u8> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(file)
        .read_to_end(&mut out)
        .unwrap_or_else(|e| panic!("gunzip {}: {e}", path.display()));
    out
}

/// The names in a JSON array of strings (`holders`, `stillToAdvance`).
pub fn names(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n.as_str().map(str::to_string))
        .collect()
}

/// The plugin under test; `VALKEY_ROLL_BIN` replays with another build
/// (an older one, to compare: the summary prints per recording what each
/// reads wrong).
pub fn bin() -> String {
    std::env::var("VALKEY_ROLL_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_kubectl-valkey-roll").to_string())
}

/// `status -f - --now NOW -o json` on the bytes: the first cluster's report
/// (None: no cluster in view, as before a cluster is created).
pub fn status(list: &[u8], now: &str) -> Option<Value> {
    let bin = bin();
    let mut child = Command::new(&bin)
        .args(["status", "-f", "-", "--now", now, "-o", "json"])
        .env_remove("KUBECONFIG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"));
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(list)
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait for the plugin");
    // A moment before anything exists is an empty List: the plugin refuses
    // to judge nothing (exit 1, so a failed `kubectl get` never reads as
    // all fine), and no cluster is in view, as the truth says.
    let empty = serde_json::from_slice::<Value>(list)
        .ok()
        .and_then(|l| l["items"].as_array().map(Vec::is_empty))
        .unwrap_or(false);
    if empty {
        assert_eq!(
            out.status.code(),
            Some(1),
            "an empty List: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("nothing to judge"),
            "an empty List: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    assert!(
        out.status.success(),
        "status exited {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("status -o json is JSON");
    doc["clusters"]
        .as_array()
        .expect("clusters[]")
        .first()
        .cloned()
}
