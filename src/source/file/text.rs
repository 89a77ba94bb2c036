//! The bytes of a snapshot: read to their end, checked as text (no control
//! characters, UTF-8), bounded by [`MAX_SNAPSHOT_BYTES`].

use super::MAX_SNAPSHOT_BYTES;
use crate::error::{Error, Result};
use std::io::Read;

/// Reads `reader` to its end, but stops at the first byte that cannot be
/// part of a YAML or JSON text (a control character other than tab, line
/// feed and carriage return, or bytes that are not UTF-8), and at
/// [`MAX_SNAPSHOT_BYTES`]: `-f /dev/zero` or `/dev/urandom` ends at its
/// first bytes, not when memory runs out.
pub(super) fn read_text(mut reader: impl Read, name: &str, size: usize) -> Result<Vec<u8>> {
    let read_error = |problem: String| Error::Read {
        path: name.to_string(),
        problem,
    };
    let mut text: Vec<u8> = Vec::with_capacity(size.min(MAX_SNAPSHOT_BYTES) + 1);
    let mut chunk = vec![0u8; 64 * 1024];
    // Bytes before this offset are checked.
    let mut checked = 0usize;
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(read_error(e.to_string())),
        };
        if text.len() + n > MAX_SNAPSHOT_BYTES {
            return Err(read_error(format!(
                "larger than {} MiB, more than any snapshot of a namespace; read one namespace at a time (kubectl get -n NS)",
                MAX_SNAPSHOT_BYTES / (1024 * 1024)
            )));
        }
        text.extend_from_slice(&chunk[..n]);
        checked = check_text(&text, checked, false).map_err(read_error)?;
    }
    check_text(&text, checked, true).map_err(read_error)?;
    Ok(text)
}

/// Checks `text[from..]`; returns how far it is known good (a UTF-8
/// sequence cut by the end of a read waits for the next one, unless
/// `at_end`), or the problem at the first bad byte.
pub(super) fn check_text(
    text: &[u8],
    from: usize,
    at_end: bool,
) -> std::result::Result<usize, String> {
    let rest = &text[from..];
    let (good, bad) = match std::str::from_utf8(rest) {
        Ok(_) => (rest.len(), None),
        Err(e) => match e.error_len() {
            None if !at_end => (e.valid_up_to(), None),
            _ => (e.valid_up_to(), Some(from + e.valid_up_to())),
        },
    };
    if let Some(at) = rest[..good]
        .iter()
        .position(|b| b.is_ascii_control() && !matches!(b, b'\t' | b'\n' | b'\r'))
    {
        return Err(bad_byte(text, from + at, "a control character"));
    }
    match bad {
        Some(at) => Err(bad_byte(text, at, "not UTF-8")),
        None => Ok(from + good),
    }
}

/// `byte 0x00 (a control character) at line 1, column 1 (offset 0): ...`
pub(super) fn bad_byte(text: &[u8], at: usize, what: &str) -> String {
    let before = &text[..at];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    format!(
        "byte 0x{:02x} ({what}) at line {line}, column {column} (offset {at}): a snapshot is YAML or JSON text, so reading stopped there",
        text[at]
    )
}
