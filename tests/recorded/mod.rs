//! The real operator's recorded rolls (../shared/recordings beside the
//! checkout, or `VALKEY_ROLL_RECORDINGS`), read at run time by
//! tests/recordings.rs and tests/recordings_e2e.rs: never copied into this
//! repository.

use serde_json::Value;
use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

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
