//! The bytes of a snapshot: read to their end, checked as text (no control
//! characters, UTF-8), bounded by [`MAX_SNAPSHOT_BYTES`].

use super::MAX_SNAPSHOT_BYTES;
use crate::error::{Error, ReadProblem, Result};
use std::io::Read;

/// Reads `reader` to its end, but stops at the first byte that cannot be
/// part of a YAML or JSON text (a control character other than tab, line
/// feed and carriage return, or bytes that are not UTF-8), and at
/// [`MAX_SNAPSHOT_BYTES`]: `-f /dev/zero` or `/dev/urandom` ends at its
/// first bytes, not when memory runs out.
pub(super) fn read_text(mut reader: impl Read, name: &str, size: usize) -> Result<Vec<u8>> {
    let read_error = |problem: String| Error::Read {
        path: name.to_string(),
        problem: ReadProblem::Text(problem),
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
            Err(e) => {
                return Err(Error::Read {
                    path: name.to_string(),
                    problem: ReadProblem::Io(e),
                });
            }
        };
        if text.len() + n > MAX_SNAPSHOT_BYTES {
            return Err(read_error(too_large(MAX_SNAPSHOT_BYTES)));
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
    first_problem(text, from, at_end).map_err(|(at, what)| bad_byte(text, at, what))
}

/// [`check_text`], with the first bad byte's offset and what it is.
fn first_problem(
    text: &[u8],
    from: usize,
    at_end: bool,
) -> std::result::Result<usize, (usize, &'static str)> {
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
        return Err((from + at, "a control character"));
    }
    match bad {
        Some(at) => Err((at, "not UTF-8")),
        None => Ok(from + good),
    }
}

/// `byte 0x00 (a control character) at line 1, column 1 (offset 0): ...`
pub(super) fn bad_byte(text: &[u8], at: usize, what: &str) -> String {
    let mut place = Counted::default();
    place.pass(&text[..at]);
    place.bad_byte(text[at], what)
}

/// How far a text has been read: its offset, line and column, counted as
/// the bytes pass (the bytes before a bad one are UTF-8, so a column
/// counts the bytes that start a character).
#[derive(Clone, Copy)]
struct Counted {
    offset: usize,
    line: usize,
    /// Characters since the line's start.
    column: usize,
}

impl Default for Counted {
    fn default() -> Self {
        Counted {
            offset: 0,
            line: 1,
            column: 0,
        }
    }
}

impl Counted {
    fn pass(&mut self, bytes: &[u8]) {
        self.offset += bytes.len();
        for b in bytes {
            if *b == b'\n' {
                self.line += 1;
                self.column = 0;
            } else if b & 0xC0 != 0x80 {
                self.column += 1;
            }
        }
    }

    /// [`bad_byte`]'s words, for `byte` at this place.
    fn bad_byte(&self, byte: u8, what: &str) -> String {
        format!(
            "byte 0x{byte:02x} ({what}) at line {}, column {} (offset {}): a snapshot is YAML or JSON text, so reading stopped there",
            self.line,
            self.column + 1,
            self.offset
        )
    }
}

/// The larger-than-a-snapshot words of [`read_text`] and [`Checked`],
/// for a cap of `cap` bytes ([`MAX_SNAPSHOT_BYTES`] but in tests).
fn too_large(cap: usize) -> String {
    format!(
        "larger than {} MiB, more than any snapshot of a namespace; read one namespace at a time (kubectl get -n NS)",
        cap / (1024 * 1024)
    )
}

/// A reader that checks what [`read_text`] checks, chunk by chunk as the
/// bytes pass, so a parser can read a text in a stream without it ever
/// being whole in memory. The parser sees an `io::Error` at a bad byte;
/// [`Checked::problem`] has the words [`read_text`] would have said.
pub(super) struct Checked<R> {
    inner: R,
    passed: Counted,
    /// The start of a UTF-8 sequence cut by the end of the last read.
    cut: Vec<u8>,
    scratch: Vec<u8>,
    problem: Option<String>,
    /// A copy of the bytes passed, while they fit in `keep_up_to` (a
    /// stream that cannot be read again, for the whole-text path).
    kept: Option<Vec<u8>>,
    keep_up_to: usize,
    /// The most bytes read: [`MAX_SNAPSHOT_BYTES`] (less in a test).
    cap: usize,
}

impl<R: Read> Checked<R> {
    /// `keep_up_to`: how much of what passes to keep a copy of (0: none).
    pub(super) fn new(inner: R, keep_up_to: usize) -> Self {
        Checked {
            inner,
            passed: Counted::default(),
            cut: Vec::new(),
            scratch: Vec::new(),
            problem: None,
            kept: (keep_up_to > 0).then(Vec::new),
            keep_up_to,
            cap: MAX_SNAPSHOT_BYTES,
        }
    }

    /// The same reader with a smaller cap, so that a test reaches it in
    /// a debug build's time.
    #[cfg(test)]
    pub(super) fn with_cap(mut self, cap: usize) -> Self {
        self.cap = cap;
        self
    }

    /// Why reading stopped: a bad byte or the size cap.
    pub(super) fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    /// Why a read failed with `e`: what this reader found, else the
    /// system's error.
    pub(super) fn failure(&self, e: std::io::Error) -> ReadProblem {
        match &self.problem {
            Some(problem) => ReadProblem::Text(problem.clone()),
            None => ReadProblem::Io(e),
        }
    }

    /// Everything that passed, if it all fit in the copy; the copy ends.
    pub(super) fn take_kept(&mut self) -> Option<Vec<u8>> {
        self.kept.take()
    }

    /// Reads the rest onto `text`, checking it: the whole text, or why
    /// it could not be read.
    pub(super) fn read_rest(&mut self, text: &mut Vec<u8>) -> std::result::Result<(), ReadProblem> {
        match self.read_to_end(text) {
            Ok(_) => Ok(()),
            Err(e) => Err(self.failure(e)),
        }
    }

    /// Reads the rest, checking it, keeping nothing: a bad byte anywhere
    /// in the text is the answer before any parse error, as when the
    /// text is read whole first.
    pub(super) fn drain(&mut self) {
        self.kept = None;
        let _ = std::io::copy(self, &mut std::io::sink());
    }

    fn stop(&mut self, problem: String) -> std::io::Error {
        self.kept = None;
        self.problem = Some(problem.clone());
        std::io::Error::new(std::io::ErrorKind::InvalidData, problem)
    }
}

/// The most [`Checked`] reads at once.
const CHECKED_CHUNK_BYTES: usize = 64 * 1024;

impl<R: Read> Read for Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Some(problem) = &self.problem {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                problem.clone(),
            ));
        }
        // A chunk at a time: the copy checked with a cut sequence stays
        // small however large the caller's buffer (read_to_end offers
        // all of a text's room at once).
        let len = buf.len().min(CHECKED_CHUNK_BYTES);
        let buf = &mut buf[..len];
        let n = loop {
            match self.inner.read(buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.stop(e.to_string())),
            }
        };
        if n == 0 {
            if let Some(first) = self.cut.first() {
                let words = self.passed.bad_byte(*first, "not UTF-8");
                return Err(self.stop(words));
            }
            return Ok(0);
        }
        if self.passed.offset + self.cut.len() + n > self.cap {
            return Err(self.stop(too_large(self.cap)));
        }
        // The cut sequence and the new bytes, checked as one text.
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        text.append(&mut self.cut);
        text.extend_from_slice(&buf[..n]);
        let result = match first_problem(&text, 0, false) {
            Ok(good) => {
                self.passed.pass(&text[..good]);
                self.cut.extend_from_slice(&text[good..]);
                Ok(n)
            }
            Err((at, what)) => {
                let mut place = self.passed;
                place.pass(&text[..at]);
                Err(self.stop(place.bad_byte(text[at], what)))
            }
        };
        self.scratch = text;
        if result.is_ok() {
            match &mut self.kept {
                Some(kept) if kept.len() + n <= self.keep_up_to => {
                    kept.extend_from_slice(&buf[..n]);
                }
                _ => self.kept = None,
            }
        }
        result
    }
}
