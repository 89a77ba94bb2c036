//! Stamps what `version` reports: the git commit and the target triple.
//!
//! Nothing here may change between two builds of the same commit (no clock,
//! no host name, no dirty flag), so a release archive built twice from one
//! commit has one sha256.
//!
//! The commit is HEAD, the one `.ci/release.sh` exports and builds (it also
//! sets the commit's time on the archive's files). No committed file records
//! a build's sha256 (`krew-manifest.yaml` is a template, rendered per
//! release), so HEAD is always the right stamp.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Builds from a source tarball (no `.git`) may set the commit from outside.
const COMMIT_ENV: &str = "KUBECTL_VALKEY_ROLL_COMMIT";

fn main() {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    println!("cargo:rerun-if-env-changed={COMMIT_ENV}");

    let commit = match std::env::var(COMMIT_ENV) {
        Ok(c) if !c.trim().is_empty() => c.trim().to_string(),
        _ => {
            watch_git(&dir);
            git(&dir, &["rev-parse", "--verify", "HEAD"]).unwrap_or_else(|| "unknown".to_string())
        }
    };
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".to_string());
    println!("cargo:rustc-env=KUBECTL_VALKEY_ROLL_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=KUBECTL_VALKEY_ROLL_TARGET={target}");
}

/// Output of a git command in `dir`, trimmed; None when git fails or says nothing.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// Re-run when a commit lands: HEAD, the branch it points at (loose or
/// packed) and HEAD's reflog. Only files that exist are named, because Cargo
/// re-runs on every build for a missing one.
fn watch_git(dir: &Path) {
    let mut paths = vec!["HEAD".to_string(), "packed-refs".into(), "logs/HEAD".into()];
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        paths.push(branch);
    }
    for p in paths {
        if let Some(file) = git(
            dir,
            &["rev-parse", "--path-format=absolute", "--git-path", &p],
        ) && Path::new(&file).exists()
        {
            println!("cargo:rerun-if-changed={file}");
        }
    }
}
