//! The slim reading of issue 11 (`source::slim`: objects keep only what the
//! plugin reads, and a LIST page is read straight from its bytes) says
//! exactly what the whole reading said before it: `status -o json`,
//! `history -o json` and `explain` on the bundled examples and on a
//! generated 300-node cluster (tests/bench/objects.rs, with the pod specs
//! the operator builds; and the same without its events, so grant times
//! come from managedFields), byte for byte against goldens that the plugin
//! wrote before the change (commit 6070d0e: explain's Last words, not yet
//! the slim reading; `tests/golden/slim/`).
//!
//! The goldens were written with
//! `UPDATE_GOLDEN=1 GOLDEN_BIN=<the plugin built at 6070d0e> cargo test
//! --test slim_reading`; a change that means to change what these print
//! regenerates them (without GOLDEN_BIN: this build) and says so.

mod common;

use common::{BIN, NOW, root};

use assert_cmd::Command;
use std::io::Read;
use std::path::{Path, PathBuf};

/// (input, command): every command on every input that has what it names.
fn cases() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut cases = Vec::new();
    for input in [
        "converged",
        "jammed-p1",
        "jammed",
        "rolling",
        "large-300",
        "large-300-noevents",
    ] {
        cases.push((input, vec!["status", "-o", "json"]));
        cases.push((input, vec!["status", "-o", "wide"]));
        cases.push((input, vec!["history", "-o", "json"]));
        if input != "rolling" {
            cases.push((input, vec!["explain", "cache"]));
        }
    }
    cases.push(("jammed", vec!["explain", "cache-1-0"]));
    cases.push(("jammed-p1", vec!["explain", "cache-1-1"]));
    // The holder of the generated roll, whose pod crash-loops.
    cases.push(("large-300", vec!["explain", "cache-50-0"]));
    // Without events, the holder's grant time comes from its managedFields.
    cases.push(("large-300-noevents", vec!["explain", "cache-50-0"]));
    cases
}

/// The input's file: an example, or the generated cluster unpacked
/// (`large-300-noevents`: the same without its events).
fn input_file(input: &str, dir: &Path) -> PathBuf {
    if !input.starts_with("large-300") {
        return root().join("examples").join(format!("{input}.yaml"));
    }
    let packed = root().join(format!("tests/golden/slim/{input}.json.gz"));
    let file = std::fs::File::open(&packed).unwrap_or_else(|e| panic!("{}: {e}", packed.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("{}: {e}", packed.display()));
    let path = dir.join(format!("{input}.json"));
    std::fs::write(&path, text).expect("write the generated cluster");
    path
}

#[test]
fn slim_reading_says_what_the_whole_reading_said() {
    let dir = tempfile::tempdir().expect("temp dir");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut differ = Vec::new();
    for (input, args) in cases() {
        let file = input_file(input, dir.path());
        let bin = match std::env::var_os("GOLDEN_BIN") {
            Some(bin) if update => PathBuf::from(bin),
            _ => PathBuf::from(BIN),
        };
        let out = Command::new(&bin)
            .args(&args)
            .arg("-f")
            .arg(&file)
            .args(["--now", NOW])
            .env_remove("KUBECONFIG")
            .env("NO_COLOR", "1")
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()));
        let got = String::from_utf8_lossy(&out.stdout).into_owned();
        let name = format!("{input}.{}.txt", args.join("_").replace([' ', '-'], ""));
        let golden = root().join("tests/golden/slim").join(&name);
        if update {
            std::fs::write(&golden, &got).expect("write golden");
            continue;
        }
        let want = std::fs::read_to_string(&golden)
            .unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
        if got != want {
            differ.push(format!(
                "{name} (exit {:?}): {} bytes, the golden {} bytes; stderr: {}",
                out.status.code(),
                got.len(),
                want.len(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "the slim reading says something else than the whole one did:\n{}",
        differ.join("\n")
    );
}
