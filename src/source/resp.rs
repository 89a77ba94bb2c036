//! The shape of one RESP2 reply, checked before it is decoded: how deep
//! its arrays nest and how many elements they hold. The codec
//! (`redis-protocol`) decodes an array by recursion, once per level, with
//! no limit of its own: a server answering `*1\r\n` 50,000 times (200 KB,
//! well under the reply's byte bound) overflows the stack and aborts the
//! process (exit 134), the exporter's smaller thread stacks at some 16,000
//! levels. This scan walks the same bytes in a loop, with a stack of at
//! most [`MAX_DEPTH`] counters, so a hostile reply is that one server's
//! `bad reply` and the codec only ever sees a frame within the bounds.
//!
//! Every reply the plugin asks for is flat: `+OK` to AUTH, one bulk string
//! to INFO, CLUSTER NODES and CLUSTER INFO. The bounds leave room for a
//! server that wraps an answer (an array of a few levels), nothing more.

/// The deepest nesting of arrays taken: a reply deeper than this is bad.
pub(crate) const MAX_DEPTH: usize = 8;

/// The most elements, over all of a reply's arrays, taken.
pub(crate) const MAX_ELEMENTS: u64 = 4096;

/// What [`scan`] found at the start of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// One whole frame of `len` bytes, within the bounds: decode it.
    Whole { len: usize },
    /// The frame goes on past the buffer (and within the bounds so far).
    Partial,
    /// Past [`MAX_DEPTH`] or [`MAX_ELEMENTS`], or not RESP2 at all.
    Bad,
}

/// Where the line that starts at `at` ends (the index of its `\r`), when
/// its `\r\n` is in `buf`.
fn line_end(buf: &[u8], at: usize) -> Option<usize> {
    buf.get(at..)?
        .windows(2)
        .position(|w| w == b"\r\n")
        .map(|p| at + p)
}

/// A RESP2 length or count: `-1` (null) or a decimal of at most 18 digits.
fn number(digits: &[u8]) -> Option<i64> {
    if digits == b"-1" {
        return Some(-1);
    }
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// Scans the one frame at the start of `buf` without recursion.
pub(crate) fn scan(buf: &[u8]) -> Shape {
    // Elements still to come of each open array, innermost last.
    let mut open: Vec<u64> = Vec::new();
    let mut elements: u64 = 0;
    let mut at = 0usize;
    loop {
        let Some(&kind) = buf.get(at) else {
            return Shape::Partial;
        };
        let Some(end) = line_end(buf, at + 1) else {
            return Shape::Partial;
        };
        let head = &buf[at + 1..end];
        at = end + 2;
        match kind {
            b'+' | b'-' | b':' => {}
            b'$' => match number(head) {
                Some(-1) => {}
                Some(len) => {
                    // A length needs its bytes and their `\r\n`.
                    let Some(stop) = usize::try_from(len)
                        .ok()
                        .and_then(|l| at.checked_add(l))
                        .and_then(|s| s.checked_add(2))
                    else {
                        return Shape::Bad;
                    };
                    if buf.len() < stop {
                        return Shape::Partial;
                    }
                    at = stop;
                }
                None => return Shape::Bad,
            },
            b'*' => match number(head) {
                Some(-1 | 0) => {}
                Some(n) => {
                    elements = elements.saturating_add(n.unsigned_abs());
                    if elements > MAX_ELEMENTS || open.len() >= MAX_DEPTH {
                        return Shape::Bad;
                    }
                    open.push(n.unsigned_abs());
                    continue;
                }
                None => return Shape::Bad,
            },
            _ => return Shape::Bad,
        }
        // One element is whole: close every array it completes.
        loop {
            match open.last_mut() {
                None => return Shape::Whole { len: at },
                Some(left) => {
                    *left -= 1;
                    if *left > 0 {
                        break;
                    }
                    open.pop();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let deep = |levels: usize| "*1\r\n".repeat(levels).into_bytes();
        let mut deep_whole = deep(MAX_DEPTH);
        deep_whole.extend_from_slice(b":1\r\n");
        let cases: Vec<(&str, Vec<u8>, Shape)> = vec![
            ("simple", b"+OK\r\n".to_vec(), Shape::Whole { len: 5 }),
            (
                "error",
                b"-NOPERM no\r\n".to_vec(),
                Shape::Whole { len: 12 },
            ),
            ("integer", b":12\r\n".to_vec(), Shape::Whole { len: 5 }),
            ("bulk", b"$3\r\nabc\r\n".to_vec(), Shape::Whole { len: 9 }),
            ("null bulk", b"$-1\r\n".to_vec(), Shape::Whole { len: 5 }),
            ("empty array", b"*0\r\n".to_vec(), Shape::Whole { len: 4 }),
            (
                "what follows stays",
                b"+OK\r\n+OK\r\n".to_vec(),
                Shape::Whole { len: 5 },
            ),
            (
                "nested",
                b"*2\r\n*1\r\n:1\r\n$2\r\nab\r\n".to_vec(),
                Shape::Whole { len: 20 },
            ),
            (
                "deep within",
                deep_whole.clone(),
                Shape::Whole {
                    len: deep_whole.len(),
                },
            ),
            ("empty", Vec::new(), Shape::Partial),
            ("no line end", b"+OK".to_vec(), Shape::Partial),
            ("bulk short", b"$10\r\nabc".to_vec(), Shape::Partial),
            ("array short", b"*2\r\n:1\r\n".to_vec(), Shape::Partial),
            ("one past the depth", deep(MAX_DEPTH + 1), Shape::Bad),
            ("50,000 levels", deep(50_000), Shape::Bad),
            ("too many elements", b"*4097\r\n".to_vec(), Shape::Bad),
            (
                "elements summed over arrays",
                b"*2\r\n*4000\r\n"
                    .iter()
                    .chain(b"+a\r\n".repeat(4000).iter())
                    .chain(b"*97\r\n")
                    .copied()
                    .collect(),
                Shape::Bad,
            ),
            (
                "a length too long",
                b"$9999999999999999999\r\n".to_vec(),
                Shape::Bad,
            ),
            ("a length not a number", b"$x\r\n".to_vec(), Shape::Bad),
            ("a negative count", b"*-2\r\n".to_vec(), Shape::Bad),
            ("http", b"HTTP/1.1 400 Bad Request\r\n".to_vec(), Shape::Bad),
            ("resp3 map", b"%1\r\n+a\r\n+b\r\n".to_vec(), Shape::Bad),
        ];
        for (name, bytes, want) in cases {
            assert_eq!(scan(&bytes), want, "{name}");
        }
    }
}
