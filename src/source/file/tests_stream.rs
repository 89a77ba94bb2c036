//! A snapshot read as it streams ([`read_snapshot`]) says what the whole-text
//! reader ([`read_text`], then [`parse_file_snapshot`]) says, for every
//! text: the same objects, or the same error word for word.

use super::*;

const JAMMED: &[u8] = include_bytes!("../../../examples/jammed.yaml");

/// The jammed example as `kubectl get -o json` would print it.
fn jammed_json() -> String {
    let value: Value = serde_saphyr::from_slice(JAMMED).expect("the example is YAML");
    serde_json::to_string_pretty(&value).expect("a Value serializes")
}

/// The answer, as text: the snapshot and its duplicates, or the error.
fn said(read: Result<FileSnapshot>) -> String {
    match read {
        Ok(read) => format!("{:?} {:?}", read.snapshot, read.duplicates),
        Err(e) => format!("error: {e}"),
    }
}

/// What the whole-text reader says of `text`.
fn whole(text: &[u8]) -> String {
    said(read_text(text, "snap", text.len()).and_then(|t| parse_file_snapshot(&t, "snap")))
}

/// A reader handing over at most `step` bytes a read, so that UTF-8
/// sequences and lines are cut between reads.
struct Trickle<'a> {
    text: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.text.len());
        buf[..n].copy_from_slice(&self.text[..n]);
        self.text = &self.text[n..];
        Ok(n)
    }
}

/// The YAML example with `find` replaced once.
fn yaml(find: &str, put: &str) -> Vec<u8> {
    String::from_utf8_lossy(JAMMED)
        .replacen(find, put, 1)
        .into_bytes()
}

/// (case, text): JSON, broken JSON, and bytes that are no text, at the
/// start, in the middle and beyond the first reads.
fn cases() -> Vec<(&'static str, Vec<u8>)> {
    let json = jammed_json();
    let big_pad = format!(
        r#"{{"apiVersion":"v1","kind":"List","x":"{}","items":{}}}"#,
        "é".repeat(300_000),
        serde_json::to_string(&serde_json::from_str::<Value>(&json).expect("json")["items"])
            .expect("items")
    );
    let at = |text: &str, find: &str, put: &str| text.replacen(find, put, 1).into_bytes();
    let mut control_late = big_pad.clone().into_bytes();
    let len = control_late.len();
    control_late[len - 10] = 0x01;
    let mut cut_at_end = json.clone().into_bytes();
    cut_at_end.extend_from_slice(&[b' ', 0xC3]);
    vec![
        ("the example", json.clone().into_bytes()),
        ("with a byte order mark", [BOM, json.as_bytes()].concat()),
        ("two documents", format!("{json}\n{json}").into_bytes()),
        (
            "padded beyond the first reads",
            big_pad.clone().into_bytes(),
        ),
        ("a syntax error", at(&json, "\"items\"", "\"items\" 1")),
        (
            "a number beyond every field",
            at(&json, "\"shards\": 3", "\"shards\": 1e999"),
        ),
        ("a bad document", at(&json, "\"ValkeyNode\"", "7")),
        (
            "a duplicate key",
            at(
                &json,
                "\"kind\": \"List\"",
                "\"kind\": \"List\", \"kind\": \"List\"",
            ),
        ),
        (
            "a YAML flow mapping",
            b"{kind: List, apiVersion: v1, items: []}".to_vec(),
        ),
        ("YAML", JAMMED.to_vec()),
        (
            "no objects",
            br#"{"apiVersion":"v1","kind":"List","items":[]}"#.to_vec(),
        ),
        ("empty", Vec::new()),
        ("white space", b" \n\t ".to_vec()),
        ("a control character first", b"\x00{}".to_vec()),
        (
            "a control character in a string",
            at(&json, "cache-1-1", "cache-\u{7}1-1"),
        ),
        ("a control character after a bad document", {
            let mut t = at(&json, "\"ValkeyNode\"", "7");
            t.extend_from_slice(b"\n\x1b");
            t
        }),
        ("a control character after a syntax error", {
            let mut t = at(&json, "\"items\"", "\"items\" 1");
            t.extend_from_slice(b"\n\x1b");
            t
        }),
        ("a control character late in a long line", control_late),
        (
            "not UTF-8",
            at(&json, "cache-1-1", "cache-\u{fffd}1-1")
                .iter()
                .map(|b| if *b == 0xEF { 0xFF } else { *b })
                .collect(),
        ),
        ("a UTF-8 sequence cut by the end", cut_at_end),
        ("YAML, two documents", [JAMMED, b"\n---\n", JAMMED].concat()),
        ("YAML with a byte order mark", [BOM, JAMMED].concat()),
        ("YAML, empty documents", b"---\n---\n".to_vec()),
        ("YAML, a bad document", yaml("kind: ValkeyNode", "kind: [ValkeyNode]")),
        ("YAML, a syntax error", yaml("kind: ValkeyNode", "kind: [ValkeyNode")),
        ("YAML, a duplicate key", yaml("kind: List", "kind: List\nkind: List")),
        ("YAML, a control character late", [JAMMED, b"\n# \x07\n"].concat()),
        ("YAML, a bad document then a syntax error", [&yaml("kind: ValkeyNode", "kind: [ValkeyNode]")[..], b"\n---\na: [\n"].concat()),
        ("YAML, a Status", b"apiVersion: v1\nkind: Status\nmessage: forbidden\n".to_vec()),
        ("YAML, an alias bomb", format!("a: &a \"{}\"\nb: [{}]\n", "x".repeat(64 * 1024), vec!["*a"; 1000].join(", ")).into_bytes()),
        ("YAML, a merge key", b"apiVersion: v1\nkind: List\nitems:\n- &p {apiVersion: v1, kind: Pod, metadata: {name: a, namespace: x}}\n- <<: *p\n  metadata: {name: b, namespace: x}\n".to_vec()),
    ]
}

#[test]
fn a_snapshot_read_as_it_streams_says_what_the_whole_text_says() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (case, text) in cases() {
        let expected = whole(&text);
        let path = dir.path().join("snap");
        std::fs::write(&path, &text).expect("the snapshot is written");
        // Named as the whole-text reader names it.
        let from_file = said(read_snapshot(&path)).replace(&path.display().to_string(), "snap");
        assert_eq!(from_file, expected, "{case}: a file");
        for step in [1, 3, 4096] {
            let stream = Trickle { text: &text, step };
            let from_stream = said(read_stream(stream, "snap", 0, None, KEPT_FOR_ERRORS));
            assert_eq!(
                from_stream, expected,
                "{case}: a stream read {step} bytes at a time"
            );
        }
    }
}

/// Beyond what is kept of a stream, a syntax error is JSON's own,
/// without the YAML fallback; a bad byte after it is still the answer.
#[test]
fn beyond_what_is_kept_a_stream_tells_json_s_own_error() {
    let json = jammed_json();
    let broken = json.replacen("\"items\"", "\"items\" 1", 1);
    let read = read_stream(broken.as_bytes(), "stdin", 0, None, 64);
    let error = read.expect_err("broken JSON").to_string();
    let expected = whole(broken.as_bytes());
    assert_eq!(format!("error: {error}"), expected.replace("snap", "stdin"));

    let flow = b"{kind: List, apiVersion: v1, items: []}";
    let error = read_stream(&flow[..], "stdin", 0, None, 8)
        .expect_err("not JSON, and too long to read again")
        .to_string();
    assert!(error.contains("not valid JSON"), "{error}");
    let as_yaml = whole(flow);
    assert!(
        !as_yaml.contains("not valid JSON"),
        "read whole, it is YAML: {as_yaml}"
    );

    let mut bad_later = broken.into_bytes();
    bad_later.extend_from_slice(b"\n\x00");
    let error = read_stream(&bad_later[..], "stdin", 0, None, 64)
        .expect_err("a control character")
        .to_string();
    assert!(error.contains("byte 0x00 (a control character)"), "{error}");
}

/// A reader that notes the largest read asked of it.
struct Asked<'a> {
    text: &'a [u8],
    largest: &'a std::cell::Cell<usize>,
}

impl Read for Asked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.largest.set(self.largest.get().max(buf.len()));
        self.text.read(buf)
    }
}

/// A whole text read through the checks (YAML) is not copied whole a
/// second time: the checks see a chunk at a time, however much room the
/// text's buffer offers.
#[test]
fn the_checks_read_a_chunk_at_a_time() {
    let text = "a: b\n".repeat(200_000);
    let largest = std::cell::Cell::new(0);
    let mut checked = text::Checked::new(
        Asked {
            text: text.as_bytes(),
            largest: &largest,
        },
        0,
    );
    let mut read = Vec::with_capacity(text.len() + 1);
    checked.read_to_end(&mut read).expect("the text reads");
    assert_eq!(read, text.as_bytes());
    assert!(
        largest.get() <= 64 * 1024,
        "{} bytes asked at once",
        largest.get()
    );
}

/// Found by the fuzz target's differential (stop 27): with a byte order
/// mark, the text given whole counted offsets after the mark, a file from
/// its first byte. Both count from the file's first byte now, as `dd` and
/// a hex dump do.
#[test]
fn a_bad_byte_after_a_byte_order_mark_is_at_the_same_offset_either_way() {
    let text = b"\xEF\xBB\xBF-\napiVern: valkey.io\xD4v2alpha1-";
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("bom.yaml");
    std::fs::write(&path, text).expect("a temporary file");
    let name = path.display().to_string();
    let whole = super::parse_snapshot(text, &name).expect_err("not UTF-8");
    let streamed = super::read_snapshot(&path).expect_err("not UTF-8");
    assert_eq!(whole.to_string(), streamed.to_string());
    assert!(whole.to_string().contains("(offset 23)"), "{whole}");
}

/// A stream of blank lines that never ends (`yes '' | status -f -`).
struct Blank;

impl Read for Blank {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        buf.fill(b'\n');
        Ok(buf.len())
    }
}

/// Issue 30, item 7: the search for a text's first byte looked at every
/// byte of its start again after each 4 KiB read, so leading white space
/// took quadratic time (16 MiB of spaces, 25 s) and a blank stream never
/// reached the size cap. Each byte is looked at once now: a blank stream
/// stops at the cap (here 16 MiB, a debug build's second; it took minutes
/// before).
#[test]
fn an_endless_blank_stream_stops_at_the_size_cap() {
    let cap = 16 * 1024 * 1024;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let read = read_checked(text::Checked::new(Blank, 0).with_cap(cap), "stdin", 0, None);
        let _ = tx.send(said(read));
    });
    let said = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("a blank stream stops at the cap within a minute");
    assert!(
        said.starts_with("error: cannot read stdin: larger than 16 MiB"),
        "{said}"
    );
}

/// Leading white space (and a byte order mark, cut between reads) before
/// a text changes nothing of what is read, JSON and YAML alike.
#[test]
fn leading_blanks_are_read_through() {
    let json = jammed_json();
    for body in [json.as_bytes(), JAMMED] {
        let mut padded = BOM.to_vec();
        padded.extend_from_slice(&b" \n\t\r\n".repeat(50_000));
        padded.extend_from_slice(body);
        let expected = whole(&padded);
        assert!(!expected.starts_with("error"), "{expected}");
        for step in [1, 2, 4096, 100_000] {
            let streamed = said(read_stream(
                Trickle {
                    text: &padded,
                    step,
                },
                "snap",
                0,
                None,
                KEPT_FOR_ERRORS,
            ));
            assert_eq!(streamed, expected, "read {step} bytes at a time");
        }
    }
}
