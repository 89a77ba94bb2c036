//! Reading a snapshot from what `kubectl get ... -o yaml|json` prints.
//!
//! Accepted: a `v1` `List` (kubectl's output for several kinds at once, with
//! or without managedFields), a typed list as the API server sends it
//! (`PodList`, whose items carry no `kind`), a multi-document YAML stream of
//! objects or Lists, a single object, and the same as JSON (one value or a
//! stream of values). Kinds the plugin does not read are ignored.
//!
//! The text is first read into `serde_json::Value` documents (serde-saphyr for
//! YAML: panic-free and bounded by a budget; serde_json for JSON), then each
//! known object is deserialized on its own with `serde_path_to_error`, so a
//! document that breaks the schema is reported with its index, its kind and
//! name, and the path of the field.
//!
//! Documents are numbered from 1 in the order they appear, not counting
//! empty ones (a stray `---` makes no document).

//!
//! The reader's parts: `text` (the bytes checked as text), `visit` (the
//! document visitors), `add` (objects into the snapshot), `words` (the
//! errors in a kubectl user's words) and `duplicates` (each object once).

mod add;
mod duplicates;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_readings;
#[cfg(test)]
mod tests_stream;
mod text;
mod visit;
mod words;

/// An object a file held more than once (plain data of the snapshot).
pub use crate::snapshot::Duplicate;
#[cfg(test)]
pub(crate) use add::KEEP_WHOLE;
pub(crate) use add::add_value;

use duplicates::read_once;
use std::io::{Read, Seek};
use text::{Checked, check_text, read_text};
use visit::{Doc, add_document, placed};
use words::{json_words, yaml_words};

use crate::error::{Error, Nothing, ReadProblem, Result};
use crate::snapshot::Snapshot;
use serde_json::Value;
use std::path::Path;

/// The largest snapshot read: far beyond what `kubectl get -o yaml` prints
/// for a namespace with thousands of nodes and managedFields (tens of
/// MiB), small enough that a mistaken `-f` of a disk image or a stream
/// that never ends stops in seconds.
pub(crate) const MAX_SNAPSHOT_BYTES: usize = 1024 * 1024 * 1024;

/// The most documents in a YAML stream: a support bundle written one
/// object per document has tens of thousands; a stream of a million tiny
/// documents stops here instead of parsing on.
const MAX_DOCUMENTS: usize = 200_000;

/// How much the YAML reader may expand beyond the text itself (aliases
/// replay what their anchor holds): tens of MiB of scalar text and a
/// quarter of a million nodes, a few tens of MiB of values.
const EXPANSION_SCALAR_BYTES: usize = 32 * 1024 * 1024;
const EXPANSION_NODES: usize = 250_000;

/// The deepest nesting read, YAML and JSON alike: serde_json's own limit
/// (serde-saphyr's default is 64).
const MAX_DEPTH: usize = 128;

/// A snapshot as read from a file, with what the reader noticed on the
/// way (a warning, not an error).
#[derive(Debug, Default)]
pub struct FileSnapshot {
    pub snapshot: Snapshot,
    /// Objects the text holds more than once, each kept once.
    pub duplicates: Vec<Duplicate>,
}

/// Reads a snapshot file; `-` is stdin. I/O problems are [`Error::Read`].
///
/// JSON is parsed as it is read: memory holds the objects kept and the
/// reader's buffers, never the text, whatever the values the plugin does
/// not keep hold. YAML is read whole first (see `read_stream`).
pub fn read_snapshot(path: &Path) -> Result<FileSnapshot> {
    if path.as_os_str() == "-" {
        // Stdin cannot be read again: a copy of its start is kept for
        // the whole-text path (see [`read_stream`]).
        return read_stream(std::io::stdin(), "stdin", 0, None, KEPT_FOR_ERRORS);
    }
    let name = path.display().to_string();
    let read_error = |e: std::io::Error| Error::Read {
        path: name.clone(),
        problem: ReadProblem::Io(e),
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    // Sized once from the file's length: a growing buffer would hold
    // its old and new copies at once, half as much again as the text.
    let metadata = file.metadata();
    let size = metadata.as_ref().map_or(0, |m| m.len());
    let size = usize::try_from(size).unwrap_or(MAX_SNAPSHOT_BYTES);
    // A regular file is read again from its start when needed; a pipe or
    // a device is kept as stdin is.
    let again = metadata
        .is_ok_and(|m| m.is_file())
        .then(|| file.try_clone().ok())
        .flatten();
    let keep = if again.is_some() { 0 } else { KEPT_FOR_ERRORS };
    read_stream(file, &name, size, again, keep)
}

/// How much of a stream that cannot be read again is kept, so that a
/// JSON syntax error is told as the whole-text reader tells it (the
/// number as written, the YAML fallback): the memory allowed beyond the
/// objects kept (issue 22, item 1).
const KEPT_FOR_ERRORS: usize = 64 * 1024 * 1024;

/// Reads a snapshot from `reader`, `size` bytes long if known. A text
/// that starts like JSON is parsed as it streams; on a JSON syntax error
/// the text is read whole and parsed as [`parse_file_snapshot`] does, so
/// every message stays the same: from `again` (the same file, from its
/// start), or from the copy of what was read, if the stream is within
/// `keep` bytes ([`KEPT_FOR_ERRORS`]). Beyond that, JSON's own error is
/// the answer (a stream that starts with `{` but is YAML is not read as
/// YAML then). YAML is read whole: serde-saphyr's streaming reader holds
/// its budget per document, so the document cap and the bound on what
/// aliases expand to would no longer cover the whole stream.
fn read_stream(
    reader: impl Read + Send,
    source_name: &str,
    size: usize,
    again: Option<std::fs::File>,
    keep: usize,
) -> Result<FileSnapshot> {
    read_checked(Checked::new(reader, keep), source_name, size, again)
}

/// [`read_stream`], from a reader already wrapped in its checks.
fn read_checked<R: Read + Send>(
    mut checked: Checked<R>,
    source_name: &str,
    size: usize,
    again: Option<std::fs::File>,
) -> Result<FileSnapshot> {
    let read_error = |problem: ReadProblem| Error::Read {
        path: source_name.to_string(),
        problem,
    };
    let text_error = |problem: &str| read_error(ReadProblem::Text(problem.to_string()));
    // The text's start, up to its first byte that is not white space.
    // Each byte is looked at once (white space before it is kept, for the
    // lines and columns of errors): a text of leading blanks is read in
    // linear time, and a stream of them stops at the size cap.
    let mut head = Vec::new();
    let mut chunk = vec![0u8; HEAD_CHUNK_BYTES];
    // Bytes of `head` before this offset are white space (or the BOM).
    let mut blank = 0usize;
    let first = loop {
        if blank == 0 && head.len() >= BOM.len() && head.starts_with(BOM) {
            blank = BOM.len();
        }
        // A byte order mark still cut by a read is waited for whole.
        let cut_bom = blank == 0 && BOM.starts_with(&head);
        if !cut_bom {
            match head[blank..].iter().position(|b| !b.is_ascii_whitespace()) {
                Some(at) => break Some(head[blank + at]),
                None => blank = head.len(),
            }
        }
        match checked.read(&mut chunk) {
            Ok(0) => break None,
            Ok(n) => head.extend_from_slice(&chunk[..n]),
            Err(e) => {
                return Err(read_error(checked.failure(e)));
            }
        }
    };
    if !matches!(first, Some(b'{' | b'[')) {
        let mut text = Vec::with_capacity(size.min(MAX_SNAPSHOT_BYTES) + 1);
        text.append(&mut head);
        checked.take_kept();
        checked.read_rest(&mut text).map_err(read_error)?;
        return parse_file_snapshot(&text, source_name);
    }
    let streamed = on_parser_thread(|| {
        let body = head.strip_prefix(BOM).unwrap_or(&head);
        let stream = std::io::BufReader::with_capacity(
            STREAM_BUFFER_BYTES,
            std::io::Cursor::new(body).chain(&mut checked),
        );
        read_json(
            serde_json::Deserializer::from_reader(stream),
            &[],
            source_name,
        )
    });
    if let Some(problem) = checked.problem() {
        return Err(text_error(problem));
    }
    match streamed {
        Ok(Ok((snapshot, tally))) => tally.check(snapshot, source_name).map(finish),
        Ok(Err(JsonFailure::Document(e))) => {
            checked.drain();
            match checked.problem() {
                Some(problem) => Err(text_error(problem)),
                None => Err(e),
            }
        }
        Ok(Err(JsonFailure::Syntax(e, at, placed))) => {
            if let Some(mut file) = again {
                drop(checked);
                file.seek(std::io::SeekFrom::Start(0))
                    .map_err(|e| read_error(ReadProblem::Io(e)))?;
                let text = read_text(file, source_name, size)?;
                return parse_file_snapshot(&text, source_name);
            }
            if let Some(mut text) = checked.take_kept() {
                checked.read_rest(&mut text).map_err(read_error)?;
                return parse_file_snapshot(&text, source_name);
            }
            checked.drain();
            if let Some(problem) = checked.problem() {
                return Err(text_error(problem));
            }
            Err(match placed {
                Some(placed) => *placed,
                None => text_error(&format!(
                    "not valid JSON in document {at}: {}",
                    json_words(&e, &[])
                )),
            })
        }
        Err(e) => Err(e),
    }
}

/// The byte order mark some editors write first.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How much of a text's start is read at once while looking for its
/// first byte that is not white space.
const HEAD_CHUNK_BYTES: usize = 64 * 1024;

/// The buffer a JSON stream is read through.
const STREAM_BUFFER_BYTES: usize = 256 * 1024;

/// The stack the parser runs on: YAML and JSON nested [`MAX_DEPTH`]
/// levels deep recurse that deep in the parser and again in the typed
/// objects, more than the 2 MiB of a tokio or test thread holds (in a
/// debug build). Only what is touched is ever allocated.
const PARSER_STACK_BYTES: usize = 256 * 1024 * 1024;

/// Parses the text of a snapshot. `source_name` names it in errors (a path
/// or `stdin`). It runs on a thread of its own with a stack deep enough
/// for `MAX_DEPTH`.
pub fn parse_snapshot(text: &[u8], source_name: &str) -> Result<Snapshot> {
    parse_file_snapshot(text, source_name).map(|read| read.snapshot)
}

/// [`parse_snapshot`], with what the reader noticed ([`FileSnapshot`]).
pub(crate) fn parse_file_snapshot(text: &[u8], source_name: &str) -> Result<FileSnapshot> {
    on_parser_thread(|| parse_on_this_thread(text, source_name))?
}

/// Runs `parse` on a thread with a stack of [`PARSER_STACK_BYTES`].
fn on_parser_thread<T: Send>(parse: impl FnOnce() -> T + Send) -> Result<T> {
    #[cfg(test)]
    let whole = KEEP_WHOLE.with(std::cell::Cell::get);
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("snapshot-parser".into())
            .stack_size(PARSER_STACK_BYTES)
            .spawn_scoped(scope, || {
                #[cfg(test)]
                KEEP_WHOLE.with(|k| k.set(whole));
                Ok(parse())
            })
            .map_err(|e| Error::Task {
                what: "cannot start the snapshot parser",
                source: crate::error::TaskFailure::Start(e),
            })?
            .join()
            .unwrap_or_else(|_| {
                Err(Error::Task {
                    what: "the snapshot parser failed",
                    source: crate::error::TaskFailure::Panicked,
                })
            })
    })
}

fn parse_on_this_thread(text: &[u8], source_name: &str) -> Result<FileSnapshot> {
    let read_error = |problem: String| Error::Read {
        path: source_name.to_string(),
        problem: ReadProblem::Text(problem),
    };
    // Text that did not come through `read_text` (tests, benchmarks),
    // checked with its byte order mark, so that an offset counts from the
    // first byte as a file's does.
    check_text(text, 0, true).map_err(read_error)?;
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let looks_like_json = text
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{' || *b == b'[');
    let json_error = if looks_like_json {
        match read_json(
            serde_json::Deserializer::from_slice(text),
            text,
            source_name,
        ) {
            Ok((snapshot, tally)) => {
                return tally.check(snapshot, source_name).map(finish);
            }
            // A document that breaks the schema is the answer; a text that
            // is not JSON may still be YAML.
            Err(JsonFailure::Document(e)) => return Err(e),
            Err(JsonFailure::Syntax(e, at, placed)) => Some((e, at, placed)),
        }
    } else {
        None
    };
    // Each document goes into the snapshot as it is parsed, and is then
    // dropped: memory holds the objects the plugin reads, not every
    // document of the stream. serde-saphyr's slice reader (its budget
    // covers the whole stream, and it is much faster than its streaming
    // reader) hands the documents to a collection, [`Sink`].
    SINK_ERROR.with(|e| e.borrow_mut().take());
    SINK_DOCUMENTS.with(|n| n.set(0));
    let parsed =
        serde_saphyr::from_bytes_multiple_with_options::<Doc, Sink>(text, yaml_options(text.len()));
    // A bad document comes before whatever the parser found later.
    if let Some(e) = SINK_ERROR.with(|e| e.borrow_mut().take()) {
        return Err(named(e, source_name));
    }
    let sink = parsed.map_err(move |e| {
        let yaml = yaml_words(&e);
        // A text that starts like JSON and is not YAML either is most
        // likely broken JSON: its error says more. Unless JSON failed at
        // a key without quotes (a YAML flow mapping), or YAML stopped at a
        // bound JSON did not reach: then the text is YAML.
        let json_error = json_error.filter(|(json, _, _)| {
            let json = json.to_string();
            let yaml_bound = yaml.contains("which a snapshot from kubectl never has");
            !json.starts_with("key must be a string")
                && (!yaml_bound || json.contains("recursion limit"))
        });
        match json_error {
            Some((_, _, Some(placed))) => *placed,
            Some((json, at, None)) => read_error(format!(
                "not valid JSON in document {at}: {}",
                json_words(&json, text)
            )),
            None => {
                let document = SINK_DOCUMENTS.with(std::cell::Cell::get) + 1;
                placed(document, &yaml, source_name).unwrap_or_else(|| {
                    read_error(format!("not valid YAML in document {document}: {yaml}"))
                })
            }
        }
    })?;
    sink.tally.check(sink.snapshot, source_name).map(finish)
}

/// The objects read, each once, in the snapshot's order.
fn finish(mut snapshot: Snapshot) -> FileSnapshot {
    let duplicates = read_once(&mut snapshot);
    snapshot.normalize();
    FileSnapshot {
        snapshot,
        duplicates,
    }
}

/// What the documents of a snapshot held, to tell a snapshot without
/// objects (an error: a failed `kubectl get` upstream must not read as
/// "nothing to worry about") from one whose objects are of other kinds.
#[derive(Default)]
struct Tally {
    documents: usize,
    /// Objects of any kind, ignored ones too (a List counts its items).
    objects: usize,
    /// The first API `Status` document's message.
    status: Option<String>,
    table: bool,
}

impl Tally {
    /// Counts one document, before it goes into the snapshot.
    fn count(&mut self, doc: &Doc) {
        self.documents += 1;
        let Value::Object(map) = &doc.value else {
            // Not an object: add_value says so.
            return;
        };
        let kind = map.get("kind").and_then(Value::as_str).unwrap_or("");
        let is_list = kind == "List" || (kind.ends_with("List") && map.contains_key("items"));
        if is_list {
            self.objects += match (&doc.streamed, map.get("items")) {
                (Some(streamed), _) => streamed.seen,
                (None, Some(Value::Array(items))) => items.len(),
                _ => 0,
            };
        } else if kind == "Status" {
            let message = map.get("message").and_then(Value::as_str).unwrap_or("");
            self.status.get_or_insert_with(|| message.to_string());
        } else if kind == "Table" {
            self.table = true;
        } else {
            self.objects += 1;
        }
    }

    /// The snapshot, or the error that it holds no object.
    fn check(self, snapshot: Snapshot, source_name: &str) -> Result<Snapshot> {
        if self.objects > 0 {
            return Ok(snapshot);
        }
        let found = if let Some(message) = self.status {
            Nothing::Status { message }
        } else if self.table {
            Nothing::Table
        } else if self.documents == 0 {
            Nothing::Empty
        } else {
            Nothing::NoObjects {
                documents: self.documents,
            }
        };
        Err(Error::NoObjects {
            source_name: source_name.to_string(),
            found,
        })
    }
}

thread_local! {
    /// The first bad document of the YAML stream being read on this
    /// thread (the parser thread of [`parse_snapshot`]): [`Sink`] puts it
    /// here, where it outlives a parse that then fails further on.
    static SINK_ERROR: std::cell::RefCell<Option<Error>> = const { std::cell::RefCell::new(None) };
    /// How many documents [`Sink`] has been handed so far (a syntax error
    /// is in the next one).
    static SINK_DOCUMENTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The documents of a YAML stream, each into the snapshot as the parser
/// hands it over, then dropped. After the first bad one the rest are not
/// read into the snapshot (the parser still runs to its end or its
/// budget, both bounded). `Default` is what serde-saphyr asks of a
/// collection, so the source's name is put into an error afterwards.
#[derive(Default)]
struct Sink {
    snapshot: Snapshot,
    tally: Tally,
    documents: usize,
    failed: bool,
}

impl Extend<Doc> for Sink {
    fn extend<I: IntoIterator<Item = Doc>>(&mut self, documents: I) {
        for document in documents {
            if self.failed || document.value.is_null() {
                continue;
            }
            self.documents += 1;
            SINK_DOCUMENTS.with(|n| n.set(self.documents));
            let label = self.documents.to_string();
            self.tally.count(&document);
            if let Err(e) = add_document(&mut self.snapshot, document, &label, "") {
                self.failed = true;
                SINK_ERROR.with(|slot| *slot.borrow_mut() = Some(e));
            }
        }
    }
}

/// The error with the source's name put in.
fn named(mut e: Error, source: &str) -> Error {
    if let Error::Snapshot { source_name, .. } = &mut e {
        *source_name = source.to_string();
    }
    e
}

enum JsonFailure {
    /// The error, the number of the document it is in, and the error
    /// naming its object and field when it was inside one.
    Syntax(serde_json::Error, usize, Option<Box<Error>>),
    Document(Error),
}

/// A JSON value, or a stream of them (`kubectl get -o json` per kind,
/// concatenated), each into the snapshot as it is read. `text`: the
/// whole text, for the number as written in an error (empty when it
/// streams).
fn read_json<'de, R: serde_json::de::Read<'de>>(
    json: serde_json::Deserializer<R>,
    text: &[u8],
    source_name: &str,
) -> std::result::Result<(Snapshot, Tally), JsonFailure> {
    let mut snapshot = Snapshot::default();
    let mut tally = Tally::default();
    let mut documents = 0usize;
    for value in json.into_iter::<Doc>() {
        let value = value.map_err(|e| {
            let placed = placed(documents + 1, &json_words(&e, text), source_name).map(Box::new);
            JsonFailure::Syntax(e, documents + 1, placed)
        })?;
        if value.value.is_null() {
            continue;
        }
        documents += 1;
        tally.count(&value);
        add_document(&mut snapshot, value, &documents.to_string(), source_name)
            .map_err(JsonFailure::Document)?;
    }
    Ok((snapshot, tally))
}

/// Limits for YAML, scaled to the text: without aliases, a text of n bytes
/// holds at most n bytes of scalars and n/2 nodes; aliases may add only
/// the small expansion allowance on top. A hostile file cannot expand far
/// beyond its own size.
fn yaml_options(len: usize) -> serde_saphyr::Options {
    let nodes = len / 2 + EXPANSION_NODES;
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_events: nodes.saturating_mul(2),
            max_nodes: nodes,
            max_documents: MAX_DOCUMENTS,
            max_total_scalar_bytes: len + EXPANSION_SCALAR_BYTES,
            max_depth: MAX_DEPTH,
        },
    }
}
