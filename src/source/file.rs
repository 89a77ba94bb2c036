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

use crate::error::{Error, Nothing, Result};
use crate::snapshot::{Snapshot, VALKEY_API_VERSION, VALKEY_GROUP};
use k8s_openapi::api::core::v1::{Event, EventSeries};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::io::Read;
use std::path::Path;

/// The largest snapshot read: far beyond what `kubectl get -o yaml` prints
/// for a namespace with thousands of nodes and managedFields (tens of
/// MiB), small enough that a mistaken `-f` of a disk image or a stream
/// that never ends stops in seconds.
pub const MAX_SNAPSHOT_BYTES: usize = 1024 * 1024 * 1024;

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

/// An object the text holds more than once (the same kind, namespace and
/// name): people append dumps to bundles, and two copies of a node must
/// not read as two nodes in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duplicate {
    pub kind: &'static str,
    pub namespace: String,
    pub name: String,
    pub copies: usize,
}

/// Keeps one copy of each object ([`Duplicate`]): the newest
/// resourceVersion, or the later copy when they cannot be compared
/// (resourceVersions are opaque; the API server's are numbers). Copies
/// are the same object when their uids are the same too (or both have
/// none): two uids under one name are two objects, one deleted and one
/// created after it, and both are kept as before. An Event is a record:
/// two versions of one are both kept (an older line in a timeline harms
/// nothing, and the bundled examples hold such pairs); only its exact
/// copies (the same resourceVersion too) are read once.
fn read_once(snapshot: &mut Snapshot) -> Vec<Duplicate> {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    fn once<T>(
        list: &mut Vec<T>,
        kind: &'static str,
        meta: impl Fn(&T) -> &ObjectMeta,
        out: &mut Vec<Duplicate>,
    ) {
        let record = kind == "Event";
        let key = |m: &ObjectMeta| {
            let mut identity = m.uid.clone().unwrap_or_default();
            if record {
                identity.push('/');
                identity.push_str(m.resource_version.as_deref().unwrap_or_default());
            }
            (
                m.namespace.clone().unwrap_or_default(),
                m.name.clone().unwrap_or_default(),
                identity,
            )
        };
        let mut at: std::collections::BTreeMap<(String, String, String), usize> =
            Default::default();
        let mut kept: Vec<T> = Vec::with_capacity(list.len());
        let mut copies: Vec<usize> = Vec::with_capacity(list.len());
        for object in list.drain(..) {
            match at.entry(key(meta(&object))) {
                std::collections::btree_map::Entry::Occupied(e) => {
                    let i = *e.get();
                    copies[i] += 1;
                    let version = |m: &ObjectMeta| {
                        m.resource_version
                            .as_deref()
                            .and_then(|v| v.parse::<u64>().ok())
                    };
                    let older = match (version(meta(&object)), version(meta(&kept[i]))) {
                        (Some(new), Some(old)) => new < old,
                        _ => false,
                    };
                    if !older {
                        kept[i] = object;
                    }
                }
                std::collections::btree_map::Entry::Vacant(e) => {
                    e.insert(kept.len());
                    kept.push(object);
                    copies.push(1);
                }
            }
        }
        for ((namespace, name, _), i) in at {
            if copies[i] > 1 {
                out.push(Duplicate {
                    kind,
                    namespace,
                    name,
                    copies: copies[i],
                });
            }
        }
        *list = kept;
    }
    let mut out = Vec::new();
    once(
        &mut snapshot.clusters,
        "ValkeyCluster",
        |o| &o.metadata,
        &mut out,
    );
    once(&mut snapshot.nodes, "ValkeyNode", |o| &o.metadata, &mut out);
    once(
        &mut snapshot.stateful_sets,
        "StatefulSet",
        |o| &o.metadata,
        &mut out,
    );
    once(
        &mut snapshot.deployments,
        "Deployment",
        |o| &o.metadata,
        &mut out,
    );
    once(&mut snapshot.pods, "Pod", |o| &o.metadata, &mut out);
    once(&mut snapshot.events, "Event", |o| &o.metadata, &mut out);
    out
}

/// Reads a snapshot file; `-` is stdin. I/O problems are [`Error::Read`].
pub fn read_snapshot(path: &Path) -> Result<FileSnapshot> {
    let (bytes, source_name) = if path.as_os_str() == "-" {
        let bytes = read_text(std::io::stdin().lock(), "stdin", 0)?;
        (bytes, "stdin".to_string())
    } else {
        let name = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|e| Error::Read {
            path: name.clone(),
            problem: e.to_string(),
        })?;
        // Sized once from the file's length: a growing buffer would hold
        // its old and new copies at once, half as much again as the text.
        let size = file.metadata().map_or(0, |m| m.len());
        let size = usize::try_from(size).unwrap_or(MAX_SNAPSHOT_BYTES);
        (read_text(file, &name, size)?, name)
    };
    parse_file_snapshot(&bytes, &source_name)
}

/// Reads `reader` to its end, but stops at the first byte that cannot be
/// part of a YAML or JSON text (a control character other than tab, line
/// feed and carriage return, or bytes that are not UTF-8), and at
/// [`MAX_SNAPSHOT_BYTES`]: `-f /dev/zero` or `/dev/urandom` ends at its
/// first bytes, not when memory runs out.
fn read_text(mut reader: impl Read, name: &str, size: usize) -> Result<Vec<u8>> {
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
fn check_text(text: &[u8], from: usize, at_end: bool) -> std::result::Result<usize, String> {
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
fn bad_byte(text: &[u8], at: usize, what: &str) -> String {
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

/// The stack the parser runs on: YAML and JSON nested [`MAX_DEPTH`]
/// levels deep recurse that deep in the parser and again in the typed
/// objects, more than the 2 MiB of a tokio or test thread holds (in a
/// debug build). Only what is touched is ever allocated.
const PARSER_STACK_BYTES: usize = 256 * 1024 * 1024;

/// Parses the text of a snapshot. `source_name` names it in errors (a path
/// or `stdin`). It runs on a thread of its own with a stack deep enough
/// for [`MAX_DEPTH`].
pub fn parse_snapshot(text: &[u8], source_name: &str) -> Result<Snapshot> {
    parse_file_snapshot(text, source_name).map(|read| read.snapshot)
}

/// [`parse_snapshot`], with what the reader noticed ([`FileSnapshot`]).
pub fn parse_file_snapshot(text: &[u8], source_name: &str) -> Result<FileSnapshot> {
    #[cfg(test)]
    let whole = KEEP_WHOLE.with(std::cell::Cell::get);
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("snapshot-parser".into())
            .stack_size(PARSER_STACK_BYTES)
            .spawn_scoped(scope, || {
                #[cfg(test)]
                KEEP_WHOLE.with(|k| k.set(whole));
                parse_on_this_thread(text, source_name)
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
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let read_error = |problem: String| Error::Read {
        path: source_name.to_string(),
        problem,
    };
    // Text that did not come through `read_text` (tests, benchmarks).
    check_text(text, 0, true).map_err(read_error)?;
    let looks_like_json = text
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{' || *b == b'[');
    let json_error = if looks_like_json {
        match read_json(text, source_name) {
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
/// concatenated), each into the snapshot as it is read.
fn read_json(
    text: &[u8],
    source_name: &str,
) -> std::result::Result<(Snapshot, Tally), JsonFailure> {
    let mut snapshot = Snapshot::default();
    let mut tally = Tally::default();
    let mut documents = 0usize;
    for value in serde_json::Deserializer::from_slice(text).into_iter::<Doc>() {
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

/// serde_json's message in a kubectl user's words: no Rust type names.
fn json_words(e: &serde_json::Error, text: &[u8]) -> String {
    let what = match e.classify() {
        serde_json::error::Category::Eof => "the text ends in the middle of a value".to_string(),
        _ if e.to_string().starts_with("number out of range") => {
            match written_number(text, e.line(), e.column()) {
                Some(n) => format!("the number `{n}` is beyond what any number field holds"),
                None => "a number beyond what any number field holds".to_string(),
            }
        }
        _ => {
            let text = e.to_string();
            // "... at line L column C" is said below, once.
            let text = match text.rfind(" at line ") {
                Some(cut) => text[..cut].to_string(),
                None => text,
            };
            text.replace(
                "recursion limit exceeded",
                &format!("nested deeper than {MAX_DEPTH} levels"),
            )
        }
    };
    format!("{what} (line {}, column {})", e.line(), e.column())
}

/// The number as written that ends at or around `line`, `column` (1-based,
/// as serde_json counts them: the column of the character it stopped at).
fn written_number(text: &[u8], line: usize, column: usize) -> Option<String> {
    let start = if line <= 1 {
        0
    } else {
        text.iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(line - 2)?
            .0
            + 1
    };
    let line_text = &text[start..];
    let line_text = &line_text[..line_text
        .iter()
        .position(|b| *b == b'\n')
        .unwrap_or(line_text.len())];
    let is_number = |b: &u8| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E');
    let mut at = column.min(line_text.len());
    while at > 0 && !is_number(&line_text[at - 1]) {
        at -= 1;
    }
    let end = at;
    while at > 0 && is_number(&line_text[at - 1]) {
        at -= 1;
    }
    let number = std::str::from_utf8(&line_text[at..end]).ok()?;
    (!number.is_empty()).then(|| number.chars().take(40).collect())
}

/// serde-saphyr's message in a kubectl user's words: no advice about its
/// options, no Rust debug syntax.
fn yaml_words(e: &serde_saphyr::Error) -> String {
    let text = e.render_with_options(serde_saphyr::render_options! {
        snippets: serde_saphyr::SnippetMode::Off,
    });
    plain_yaml_words(&text)
}

/// The rewriting of [`yaml_words`], on the rendered text.
fn plain_yaml_words(text: &str) -> String {
    let text = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    // Budget breaches: `budget breached: Aliases { aliases: 50001 }`.
    if let Some(rest) = text.split("budget breached: ").nth(1) {
        let what = rest
            .split(|c: char| !c.is_ascii_alphabetic())
            .next()
            .unwrap_or("");
        // What follows the `Kind { .. }` debug text: `at line L, column
        // C`, or `(defined at ...) (used at ...)` for an alias.
        let place = rest
            .find('}')
            .map_or("", |i| rest[i + 1..].trim())
            .trim_start_matches('(')
            .trim_end_matches(')')
            .replace(") (", ", ");
        let why = match what {
            "Aliases" => "too many aliases (*name)".to_string(),
            "Anchors" => "too many anchors (&name)".to_string(),
            "Documents" => "too many documents (---)".to_string(),
            "Depth" => format!("nested deeper than {MAX_DEPTH} levels"),
            "Nodes" | "Events" => {
                "too many values (aliases expand to more than the text holds)".to_string()
            }
            "TotalScalarBytes" | "ScalarBytes" => {
                "the text expands to too much (aliases repeat their anchor's text)".to_string()
            }
            "AliasAnchorRatio" => "aliases expand far beyond the text (an alias bomb)".to_string(),
            "CommentBytes" => "more than 64 MiB of comments (# ...)".to_string(),
            "MergeKeys" => "more than 10,000 merge keys (<<)".to_string(),
            "RecordedAnchorEvents" | "RecordedAnchorBytes" => {
                "anchors (&name) that hold more than 64 MiB or a million values for aliases to repeat"
                    .to_string()
            }
            "SequenceUnbalanced" => "a sequence or mapping that never ends".to_string(),
            _ => "beyond a bound of the YAML reader".to_string(),
        };
        return format!("{why}, which a snapshot from kubectl never has; {place}")
            .trim_end_matches([';', ' '])
            .to_string();
    }
    // serde-saphyr's advice to its own callers, not to a person.
    if text.contains("!!binary scalar is not valid UTF-8") {
        return format!(
            "a !!binary value that is not UTF-8 text, where text is expected{}",
            yaml_place(&text)
        );
    }
    if text.contains("recursive references require weak recursion types") {
        return format!(
            "an alias (*name) inside the anchor (&name) it repeats, a value that never ends, which a snapshot from kubectl never has{}",
            yaml_place(&text)
        );
    }
    if let Some(rest) = text.strip_prefix("non-finite float `") {
        let value = rest.split('`').next().unwrap_or("");
        return format!(
            "`{value}` is not a number any field of a Kubernetes object holds (YAML's .nan and .inf){}",
            yaml_place(&text)
        );
    }
    text.replace(", set DuplicateKeyPolicy in Options if acceptable", "")
        .replace("; use Option<String>", "")
        .replace("; use Option<char>", "")
        .replace(" by configured policy", "")
        .replace(" by the configured policy", "")
        .replace(
            "cannot deserialize tagged scalar into string",
            "a tagged value (!!tag) where text is expected",
        )
}

/// ` at line L, column C` of a rendered serde-saphyr message, or nothing.
fn yaml_place(text: &str) -> String {
    text.rfind(" at line ")
        .map(|i| text[i..].to_string())
        .unwrap_or_default()
}

/// A typed field's error in a kubectl user's words: the time libraries'
/// parser steps, Rust's integer type names and serde's enum words go.
fn field_problem(path: &str, message: &str) -> String {
    let field = path.rsplit('.').next().unwrap_or(path);
    let field = field.split('[').next().unwrap_or(field);
    let is_time = ["Timestamp", "Time", "time", "At"]
        .iter()
        .any(|end| field.ends_with(end));
    if is_time && !message.starts_with("invalid type") {
        return "not an RFC 3339 time with a time zone (e.g. 2026-11-29T10:16:00Z)".to_string();
    }
    if message.contains("did not match any variant of untagged enum") {
        return match message.rsplit(' ').next() {
            Some("IntOrString") => "expected a number or a string".to_string(),
            Some("Quantity") => "expected a quantity (e.g. 500m, 1Gi)".to_string(),
            _ => "not a value this field takes".to_string(),
        };
    }
    if let Some(range) = out_of_range(message) {
        return range;
    }
    let mut out = message.to_string();
    for (rust, words) in [
        ("expected i32", "expected a whole number"),
        ("expected i64", "expected a whole number"),
        ("expected u32", "expected a whole number, 0 or more"),
        ("expected u64", "expected a whole number, 0 or more"),
        ("expected f64", "expected a number"),
        ("expected a borrowed string", "expected a string"),
        ("expected IntOrString", "expected a number or a string"),
        ("expected Quantity", "expected a quantity (e.g. 500m, 1Gi)"),
        (
            "expected a timestamp string",
            "expected an RFC 3339 time (e.g. 2026-11-29T10:16:00Z)",
        ),
        ("floating point `", "the number `"),
        ("integer `", "the number `"),
        ("boolean `", "the boolean `"),
    ] {
        out = out.replace(rust, words);
    }
    if message.starts_with("invalid type: boolean") && message.ends_with("expected a string") {
        out.push_str(YAML_BOOLEAN_HINT);
    }
    out
}

/// An integer field given a whole number beyond its type (serde says
/// "invalid value: integer `2147483648`, expected i32", or "invalid type:
/// floating point `1.8446744073709552e19`" for one beyond 64 bits): the
/// number as written, out of range, and the range.
fn out_of_range(message: &str) -> Option<String> {
    let (number, rest) = message
        .strip_prefix("invalid value: integer `")
        .or_else(|| message.strip_prefix("invalid type: floating point `"))?
        .split_once("`, expected ")?;
    let range = match rest {
        "i32" => "from -2147483648 to 2147483647",
        "i64" => "from -9223372036854775808 to 9223372036854775807",
        "u32" => "from 0 to 4294967295",
        "u64" => "from 0 to 18446744073709551615",
        _ => return None,
    };
    let whole = if number.parse::<i128>().is_ok() {
        number.to_string()
    } else {
        // Beyond 64 bits, read as the nearest double: written whole (the
        // number as written when it is a power of two, as 2^64 is).
        let v = number.parse::<f64>().ok()?;
        // Smaller ones were written with a fraction or an exponent (`5.0`,
        // `1e3`): not a range problem.
        if !v.is_finite() || v.fract() != 0.0 || v.abs() < 9.0e18 {
            return None;
        }
        format!("{v:.0}")
    };
    Some(format!(
        "the number `{whole}` is out of range (this field holds a whole number {range})"
    ))
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

/// A document as read: its value, where the items of a List that the
/// plugin ignores (ConfigMaps, Secrets, any kind it does not read) are
/// left out as they are parsed, so they never become values in memory.
/// `kept`: for such a List, the original index of each item kept (errors
/// name `items[i]` as in the file). `streamed`: the items that name their
/// own kind, already converted while they were parsed (see [`Streamed`]).
struct Doc {
    value: Value,
    kept: Option<Vec<usize>>,
    streamed: Option<Box<Streamed>>,
}

/// The items of a List that were converted into objects as they were
/// parsed, each dropped as a value as soon as it was converted: memory
/// holds the slim objects, never the List's values. Whether the document
/// is a List at all is known only at its end (kubectl writes `items`
/// before `kind`), so they count only then ([`add_document`]); the first
/// item that failed, with its index, waits there too, so that an earlier
/// item kept as a value (one without a `kind`) is reported first, as it
/// was when every item was read as a value first.
#[derive(Default)]
struct Streamed {
    snapshot: Snapshot,
    error: Option<(usize, Error)>,
    /// How many items the List holds in the file, skipped ones too.
    seen: usize,
}

/// The label a streamed item's error carries until its document's label
/// replaces it.
const STREAMED_DOC: &str = "\u{0}";

impl<'de> serde::Deserialize<'de> for Doc {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        place(|p| *p = Place::default());
        d.deserialize_any(DocVisitor)
    }
}

struct DocVisitor;

/// The keys any kind the plugin reads has at its top level (the objects'
/// own, an Event's, a List's). Any other key, at the top of a document
/// or of an item, is skipped while it is parsed, never built: a List's
/// extra keys, and a ConfigMap's or Secret's `data`, which `kubectl get
/// -o json` writes before `kind`, cost no memory (issue 22, item 1).
const READ_KEYS: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "spec",
    "status",
    "items",
    // A Status document's, for the error that a snapshot holds one.
    "message",
    // core/v1 Event.
    "action",
    "count",
    "eventTime",
    "firstTimestamp",
    "involvedObject",
    "lastTimestamp",
    "reason",
    "related",
    "reportingComponent",
    "reportingInstance",
    "series",
    "source",
    "type",
    // events.k8s.io/v1 Event.
    "deprecatedCount",
    "deprecatedFirstTimestamp",
    "deprecatedLastTimestamp",
    "deprecatedSource",
    "note",
    "regarding",
    "reportingController",
];

/// A value as serde_json's `Value` reads it, but a mapping that holds a
/// key twice is an error (JSON as YAML: a second `kind` or `name` must not
/// silently win), `-0` is 0 (as Go and the API server read it), and every
/// key read is on [`PLACE`]'s path while its value is read.
struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Strict;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a YAML or JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<Strict, E> {
        Ok(Strict(Value::Bool(v)))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Strict, E> {
        Ok(Strict(Value::from(v)))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Strict, E> {
        Ok(Strict(Value::from(v)))
    }
    fn visit_i128<E: serde::de::Error>(self, v: i128) -> std::result::Result<Strict, E> {
        number_i128(v).map(Strict)
    }
    fn visit_u128<E: serde::de::Error>(self, v: u128) -> std::result::Result<Strict, E> {
        match u64::try_from(v) {
            Ok(v) => Ok(Strict(Value::from(v))),
            Err(_) => Err(beyond_every_field(v)),
        }
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Strict, E> {
        Ok(Strict(number_f64(v)))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Strict, E> {
        Ok(Strict(Value::String(v.to_string())))
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> std::result::Result<Strict, E> {
        Ok(Strict(Value::String(v)))
    }
    fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Strict, E> {
        Ok(Strict(Value::Null))
    }
    fn visit_none<E: serde::de::Error>(self) -> std::result::Result<Strict, E> {
        Ok(Strict(Value::Null))
    }
    fn visit_some<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Strict, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        seq: A,
    ) -> std::result::Result<Strict, A::Error> {
        strict_seq(seq).map(|v| Strict(Value::Array(v)))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Strict, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = strict_value(&mut map, &key, &out)?;
            out.insert(key, value);
        }
        Ok(Strict(Value::Object(out)))
    }
}

/// The elements of a sequence, each on [`PLACE`]'s path as `[i]`.
fn strict_seq<'de, A: serde::de::SeqAccess<'de>>(
    mut seq: A,
) -> std::result::Result<Vec<Value>, A::Error> {
    let mut out = Vec::new();
    loop {
        place(|p| p.enter_index(out.len()));
        match seq.next_element::<Strict>()? {
            Some(Strict(v)) => {
                place(Place::leave);
                out.push(v);
            }
            None => {
                place(Place::leave);
                return Ok(out);
            }
        }
    }
}

/// The value of `key` in a mapping that holds `seen` so far: an error for
/// a key it holds already.
fn strict_value<'de, A: serde::de::MapAccess<'de>>(
    map: &mut A,
    key: &str,
    seen: &serde_json::Map<String, Value>,
) -> std::result::Result<Value, A::Error> {
    place(|p| p.enter_key(key));
    if seen.contains_key(key) {
        return Err(serde::de::Error::custom(format!(
            "the key `{key}` is in this mapping twice (which copy counts is not said)"
        )));
    }
    let Strict(value) = map.next_value::<Strict>()?;
    place(Place::leave);
    Ok(value)
}

/// A YAML integer wider than 64 bits: no field holds one, and kept as the
/// nearest double it would no longer read as written.
fn number_i128<E: serde::de::Error>(v: i128) -> std::result::Result<Value, E> {
    match (i64::try_from(v), u64::try_from(v)) {
        (Ok(v), _) => Ok(Value::from(v)),
        (_, Ok(v)) => Ok(Value::from(v)),
        _ => Err(beyond_every_field(v)),
    }
}

fn beyond_every_field<E: serde::de::Error>(v: impl std::fmt::Display) -> E {
    E::custom(format!(
        "the number `{v}` is beyond what any number field holds"
    ))
}

/// A number read as a float: `-0` (and `-0.0`) is 0, as Go reads it.
fn number_f64(v: f64) -> Value {
    if v == 0.0 && v.is_sign_negative() {
        Value::from(0)
    } else {
        Value::from(v)
    }
}

/// Where the reader is in the document being parsed on this thread: the
/// item of a List, its kind and name as far as they were read, and the
/// path of the field. A parse error (which serde-saphyr and serde_json
/// report with a line and column only) is then named as a schema error
/// is: document, object, field.
#[derive(Default)]
struct Place {
    item: Option<usize>,
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    /// `spec.containers[0].image`: the field being read.
    path: String,
    /// The length of `path` before each step entered.
    steps: Vec<usize>,
    /// Where an item's own fields start in `path`.
    item_base: usize,
}

impl Place {
    fn enter_key(&mut self, key: &str) {
        self.steps.push(self.path.len());
        if self.path.len() > self.item_base {
            self.path.push('.');
        }
        self.path.push_str(key);
    }
    fn enter_index(&mut self, index: usize) {
        use std::fmt::Write as _;
        self.steps.push(self.path.len());
        let _ = write!(self.path, "[{index}]");
    }
    fn leave(&mut self) {
        if let Some(len) = self.steps.pop() {
            self.path.truncate(len);
        }
    }
    /// After a value at the top of a document or an item: its kind and
    /// name, for an error further on.
    fn note(&mut self, key: &str, value: &Value) {
        match key {
            "kind" => self.kind = value.as_str().map(str::to_string),
            "metadata" => {
                let text = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_string);
                self.namespace = text("namespace");
                self.name = text("name");
            }
            _ => {}
        }
    }
    /// The field being read, relative to its item.
    fn field(&self) -> &str {
        self.path
            .get(self.item_base..)
            .unwrap_or("")
            .trim_start_matches('.')
    }
    /// ` (Kind namespace/name)`, as [`describe`] says it.
    fn object(&self) -> String {
        match (&self.kind, &self.namespace, &self.name) {
            (Some(kind), Some(ns), Some(name)) => format!(" ({kind} {ns}/{name})"),
            (Some(kind), None, Some(name)) => format!(" ({kind} {name})"),
            (Some(kind), _, None) => format!(" ({kind})"),
            _ => String::new(),
        }
    }
    /// The document's label: `3`, or `3/items[4]`.
    fn doc(&self, document: usize) -> String {
        match self.item {
            Some(i) => format!("{document}/items[{i}]"),
            None => document.to_string(),
        }
    }
}

thread_local! {
    /// The [`Place`] of the parse running on this thread.
    static PLACE: std::cell::RefCell<Place> = std::cell::RefCell::new(Place::default());
}

fn place<T>(f: impl FnOnce(&mut Place) -> T) -> T {
    PLACE.with(|p| f(&mut p.borrow_mut()))
}

/// A parse error with its place: a schema error naming the document, the
/// object and the field when the reader was inside one, else `None`.
fn placed(document: usize, problem: &str, source_name: &str) -> Option<Error> {
    place(|p| {
        // Between fields (a syntax error after a value), the line and
        // column say more than a field would.
        if p.field().is_empty() {
            return None;
        }
        let field = p.field().to_string();
        Some(Error::Snapshot {
            source_name: source_name.to_string(),
            doc: p.doc(document),
            object: p.object(),
            field,
            problem: problem.to_string(),
        })
    })
}

/// The scalar and sequence shapes of a document or an item, read as
/// serde_json reads them; a mapping is the visitor's own business.
macro_rules! plain_shapes {
    ($wrap:expr) => {
        fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<Self::Value, E> {
            Ok($wrap(Value::Bool(v)))
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Self::Value, E> {
            Ok($wrap(Value::from(v)))
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Self::Value, E> {
            Ok($wrap(Value::from(v)))
        }
        fn visit_i128<E: serde::de::Error>(self, v: i128) -> std::result::Result<Self::Value, E> {
            number_i128(v).map($wrap)
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Self::Value, E> {
            Ok($wrap(number_f64(v)))
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
            Ok($wrap(Value::String(v.to_string())))
        }
        fn visit_string<E: serde::de::Error>(
            self,
            v: String,
        ) -> std::result::Result<Self::Value, E> {
            Ok($wrap(Value::String(v)))
        }
        fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Self::Value, E> {
            Ok($wrap(Value::Null))
        }
        fn visit_none<E: serde::de::Error>(self) -> std::result::Result<Self::Value, E> {
            Ok($wrap(Value::Null))
        }
        fn visit_some<D: serde::Deserializer<'de>>(
            self,
            d: D,
        ) -> std::result::Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            seq: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            strict_seq(seq).map(|v| $wrap(Value::Array(v)))
        }
    };
}

impl<'de> serde::de::Visitor<'de> for DocVisitor {
    type Value = Doc;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a YAML or JSON document")
    }

    plain_shapes!(|value| Doc {
        value,
        kept: None,
        streamed: None,
    });

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Doc, A::Error> {
        let mut out = serde_json::Map::new();
        let mut kept = None;
        let mut streamed = None;
        while let Some(key) = map.next_key::<String>()? {
            if !READ_KEYS.contains(&key.as_str()) {
                map.next_value::<serde::de::IgnoredAny>()?;
                continue;
            }
            if key == "items" {
                place(|p| p.enter_key(&key));
                if out.contains_key(&key) {
                    return Err(serde::de::Error::custom(
                        "the key `items` is in this mapping twice (which copy counts is not said)",
                    ));
                }
                match map.next_value::<Items>()? {
                    Items::Seq(values, indices, done) => {
                        out.insert(key, Value::Array(values));
                        kept = Some(indices);
                        streamed = Some(done);
                    }
                    Items::Other(value) => {
                        out.insert(key, value);
                    }
                }
                place(Place::leave);
            } else {
                let value = strict_value(&mut map, &key, &out)?;
                place(|p| p.note(&key, &value));
                out.insert(key, value);
            }
        }
        Ok(Doc {
            value: Value::Object(out),
            kept,
            streamed,
        })
    }
}

/// A List's `items`: the items kept (with their indices), or whatever
/// else the field holds (for the error that it is not a sequence).
enum Items {
    Seq(Vec<Value>, Vec<usize>, Box<Streamed>),
    Other(Value),
}

impl<'de> serde::Deserialize<'de> for Items {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct ItemsVisitor;
        impl<'de> serde::de::Visitor<'de> for ItemsVisitor {
            type Value = Items;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a sequence of objects")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Items, A::Error> {
                let mut values = Vec::new();
                let mut indices = Vec::new();
                let mut streamed = Streamed::default();
                let mut index = 0usize;
                let outer = place(|p| {
                    let outer = (
                        p.kind.take(),
                        p.namespace.take(),
                        p.name.take(),
                        p.item_base,
                    );
                    p.item_base = p.path.len();
                    outer
                });
                loop {
                    place(|p| {
                        p.item = Some(index);
                        p.kind = None;
                        p.namespace = None;
                        p.name = None;
                    });
                    let Some(item) = seq.next_element::<Item>()? else {
                        break;
                    };
                    if let Item::Keep(value) = item {
                        // An item that names its kind is converted now,
                        // exactly as add_list would convert it; one
                        // without (a typed list's) waits for the List's.
                        let names_kind = value
                            .get("kind")
                            .and_then(Value::as_str)
                            .is_some_and(|k| !k.is_empty());
                        if !names_kind {
                            values.push(value);
                            indices.push(index);
                        } else if streamed.error.is_none() {
                            let label = format!("{STREAMED_DOC}/items[{index}]");
                            if let Err(e) = add_value(&mut streamed.snapshot, &value, &label, "") {
                                streamed.error = Some((index, e));
                            }
                        }
                    }
                    index += 1;
                }
                place(|p| {
                    p.item = None;
                    (p.kind, p.namespace, p.name, p.item_base) = outer;
                });
                streamed.seen = index;
                Ok(Items::Seq(values, indices, Box::new(streamed)))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> std::result::Result<Items, A::Error> {
                StrictVisitor
                    .visit_map(map)
                    .map(|Strict(v)| Items::Other(v))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<Items, E> {
                Ok(Items::Other(Value::Bool(v)))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Items, E> {
                Ok(Items::Other(Value::from(v)))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Items, E> {
                Ok(Items::Other(Value::from(v)))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Items, E> {
                Ok(Items::Other(Value::from(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Items, E> {
                Ok(Items::Other(Value::String(v.to_string())))
            }
            fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Items, E> {
                Ok(Items::Other(Value::Null))
            }
            fn visit_none<E: serde::de::Error>(self) -> std::result::Result<Items, E> {
                Ok(Items::Other(Value::Null))
            }
            fn visit_some<D: serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> std::result::Result<Items, D::Error> {
                d.deserialize_any(self)
            }
        }
        d.deserialize_any(ItemsVisitor)
    }
}

/// One item of a List: kept as a value, or skipped while it is parsed
/// when its first two keys say it is a kind the plugin ignores (kubectl
/// writes `apiVersion` and `kind` first). An item whose first keys are
/// others is kept whole and judged later, as before.
enum Item {
    Keep(Value),
    Skip,
}

impl<'de> serde::Deserialize<'de> for Item {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(ItemVisitor)
    }
}

struct ItemVisitor;

impl<'de> serde::de::Visitor<'de> for ItemVisitor {
    type Value = Item;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a Kubernetes object")
    }

    plain_shapes!(Item::Keep);

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Item, A::Error> {
        let mut out = serde_json::Map::new();
        let mut decided = false;
        while let Some(key) = map.next_key::<String>()? {
            if !READ_KEYS.contains(&key.as_str()) {
                map.next_value::<serde::de::IgnoredAny>()?;
                continue;
            }
            let value = strict_value(&mut map, &key, &out)?;
            place(|p| p.note(&key, &value));
            out.insert(key, value);
            if decided {
                continue;
            }
            let text = |k: &str| out.get(k).and_then(Value::as_str);
            if let (Some(api_version), Some(kind)) = (text("apiVersion"), text("kind")) {
                let listed = kind == "List" || kind.ends_with("List");
                if !listed && matches!(known_kind(api_version, kind), Ok(None)) {
                    while map
                        .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                        .is_some()
                    {}
                    return Ok(Item::Skip);
                }
                decided = true;
            } else if out.len() >= 2 {
                decided = true;
            }
        }
        Ok(Item::Keep(Value::Object(out)))
    }
}

/// The kinds the plugin reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Known {
    Cluster,
    Node,
    StatefulSet,
    Deployment,
    Pod,
    /// `v1` Event, as kubectl prints `events`.
    CoreEvent,
    /// `events.k8s.io` Event: converted to the core view.
    EventsEvent,
}

/// Which known kind a document is; `Err` (the field, the problem) for
/// what looks like a ValkeyCluster or a ValkeyNode in a spelling this
/// plugin does not read: another version or group, or the kind in another
/// case. Ignoring it would hide a node or the whole cluster, and change
/// the verdict.
fn known_kind(
    api_version: &str,
    kind: &str,
) -> std::result::Result<Option<Known>, (&'static str, String)> {
    let known = match (api_version, kind) {
        (VALKEY_API_VERSION, "ValkeyCluster") => Known::Cluster,
        (VALKEY_API_VERSION, "ValkeyNode") => Known::Node,
        ("apps/v1", "StatefulSet") => Known::StatefulSet,
        ("apps/v1", "Deployment") => Known::Deployment,
        ("v1", "Pod") => Known::Pod,
        ("v1", "Event") => Known::CoreEvent,
        ("events.k8s.io/v1" | "events.k8s.io/v1beta1", "Event") => Known::EventsEvent,
        ("", "ValkeyCluster" | "ValkeyNode") => {
            return Err((
                "apiVersion",
                format!("missing (expected {VALKEY_API_VERSION})"),
            ));
        }
        (_, "ValkeyCluster" | "ValkeyNode")
            if api_version.split('/').next() == Some(VALKEY_GROUP) =>
        {
            return Err((
                "apiVersion",
                format!(
                    "`{api_version}` is not a version this plugin reads (it reads {VALKEY_API_VERSION})"
                ),
            ));
        }
        (_, "ValkeyCluster" | "ValkeyNode") => {
            return Err((
                "apiVersion",
                format!(
                    "`{api_version}` is not the valkey.io group: this plugin reads {kind} at {VALKEY_API_VERSION} only"
                ),
            ));
        }
        _ => {
            let lower = kind.to_ascii_lowercase();
            let lower = lower.strip_suffix('s').unwrap_or(&lower);
            return match lower {
                "valkeycluster" | "valkeynode" => {
                    let proper = if lower == "valkeycluster" {
                        "ValkeyCluster"
                    } else {
                        "ValkeyNode"
                    };
                    Err((
                        "kind",
                        format!(
                            "`{kind}` is not a kind this plugin reads (it reads {proper}, spelled so, at {VALKEY_API_VERSION})"
                        ),
                    ))
                }
                _ => Ok(None),
            };
        }
    };
    Ok(Some(known))
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a sequence",
        Value::Object(_) => "a mapping",
    }
}

/// `expected a string, found ...`, with the hint YAML's booleans need.
fn expected_string(found: &Value) -> String {
    let mut text = format!("expected a string, found {}", type_name(found));
    if found.is_boolean() {
        text.push_str(YAML_BOOLEAN_HINT);
    }
    text
}

/// serde-saphyr reads YAML 1.1's booleans: an unquoted `y`, `n`, `yes`,
/// `no`, `on` or `off` is a boolean, where kubectl's YAML would have
/// quoted it.
const YAML_BOOLEAN_HINT: &str =
    " (YAML reads an unquoted y, n, yes, no, on, off, true or false as a boolean: quote it)";

/// ` (Kind namespace/name)` for error messages, from whatever the raw
/// document has.
fn describe(kind: &str, value: &Value) -> String {
    let meta = value.get("metadata");
    let field = |key: &str| {
        meta.and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    match (field("namespace"), field("name")) {
        (Some(ns), Some(name)) => format!(" ({kind} {ns}/{name})"),
        (None, Some(name)) => format!(" ({kind} {name})"),
        _ => format!(" ({kind})"),
    }
}

/// Adds one document (an object, or a List of them) to the snapshot. `doc`
/// is its label in errors: `3`, or `1/items[4]` for an item of a List.
/// The live source feeds the API server's list responses through here too,
/// so both sources convert objects the same way.
pub(crate) fn add_value(
    snapshot: &mut Snapshot,
    value: &Value,
    doc: &str,
    source_name: &str,
) -> Result<()> {
    add_value_at(snapshot, value, doc, source_name, Kept::default())
}

/// A document as read by [`Doc`]: a List whose ignored items were left
/// out names the others by their index in the file.
fn add_document(snapshot: &mut Snapshot, doc: Doc, label: &str, source_name: &str) -> Result<()> {
    let is_list = doc
        .value
        .get("kind")
        .and_then(Value::as_str)
        .is_some_and(|kind| {
            kind == "List" || (kind.ends_with("List") && doc.value.get("items").is_some())
        });
    let streamed = doc.streamed.filter(|_| is_list);
    // The first bad item in the file's order: a streamed one, unless an
    // item kept as a value before it is bad too.
    let stop_at = streamed
        .as_ref()
        .and_then(|s| s.error.as_ref().map(|(at, _)| *at));
    let mut part = Snapshot::default();
    let kept = Kept {
        indices: doc.kept.as_deref(),
        stop_at,
    };
    add_value_at(&mut part, &doc.value, label, source_name, kept)?;
    if let Some(streamed) = streamed {
        if let Some((_, e)) = streamed.error {
            return Err(relabel(e, label, source_name));
        }
        snapshot.extend(streamed.snapshot);
    }
    snapshot.extend(part);
    Ok(())
}

/// A streamed item's error, with its document's label and source put in.
fn relabel(e: Error, label: &str, source: &str) -> Error {
    match e {
        Error::Snapshot {
            doc,
            object,
            field,
            problem,
            ..
        } => Error::Snapshot {
            source_name: source.to_string(),
            doc: doc.replacen(STREAMED_DOC, label, 1),
            object,
            field,
            problem,
        },
        other => other,
    }
}

/// Of a List whose items were read as they were parsed: the file's index
/// of each item kept as a value, and the index of the first streamed item
/// that failed (no kept item after it is read).
#[derive(Clone, Copy, Default)]
struct Kept<'a> {
    indices: Option<&'a [usize]>,
    stop_at: Option<usize>,
}

/// [`add_value`]; `kept`: the file's index of each item of a List whose
/// ignored items were left out while it was read.
fn add_value_at(
    snapshot: &mut Snapshot,
    value: &Value,
    doc: &str,
    source_name: &str,
    kept: Kept<'_>,
) -> Result<()> {
    let error = |object: String, field: &str, problem: String| Error::Snapshot {
        source_name: source_name.to_string(),
        doc: doc.to_string(),
        object,
        field: field.to_string(),
        problem,
    };
    let map = match value {
        Value::Null => return Ok(()),
        Value::Object(map) => map,
        other => {
            return Err(error(
                String::new(),
                "(document)",
                format!(
                    "expected a Kubernetes object (a mapping with apiVersion and kind), found {}",
                    type_name(other)
                ),
            ));
        }
    };
    let kind = match map.get("kind") {
        Some(Value::String(kind)) if kind.is_empty() => {
            return Err(error(String::new(), "kind", "empty".into()));
        }
        Some(Value::String(kind)) => kind.as_str(),
        None | Some(Value::Null) => {
            return Err(error(String::new(), "kind", "missing".into()));
        }
        Some(other) => {
            return Err(error(String::new(), "kind", expected_string(other)));
        }
    };
    let api_version = match map.get("apiVersion") {
        Some(Value::String(v)) => v.as_str(),
        None | Some(Value::Null) => "",
        Some(other) => {
            return Err(error(
                describe(kind, value),
                "apiVersion",
                expected_string(other),
            ));
        }
    };

    if kind == "List" || (kind.ends_with("List") && map.contains_key("items")) {
        return add_list(snapshot, value, kind, api_version, doc, source_name, kept);
    }

    let known = known_kind(api_version, kind)
        .map_err(|(field, problem)| error(describe(kind, value), field, problem))?;
    let Some(known) = known else {
        return Ok(());
    };
    // A time the API can hold but a typed object cannot (after
    // 9999-12-30T22:00Z) is read as the latest one it can.
    let clamped;
    let value = if crate::snapshot::has_late_time(value) {
        let mut copy = value.clone();
        crate::snapshot::clamp_late_times(&mut copy);
        clamped = copy;
        &clamped
    } else {
        value
    };
    /// The object as `T`, named and namespaced, or the field that breaks
    /// it and why. Every kind read here is namespaced; an object written by
    /// hand without a namespace lands where kubectl would put it.
    fn typed<T: DeserializeOwned + kube::Resource>(
        value: &Value,
    ) -> std::result::Result<T, (String, String)> {
        let mut object: T = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." {
                "(object)".to_string()
            } else {
                path
            };
            let problem = field_problem(&path, &e.into_inner().to_string());
            (path, problem)
        })?;
        let meta = object.meta_mut();
        match meta.name.as_deref() {
            None => return Err(("metadata.name".into(), "missing".into())),
            Some("") => return Err(("metadata.name".into(), "empty".into())),
            Some(_) => {}
        }
        if meta.namespace.as_deref().is_none_or(str::is_empty) {
            meta.namespace = Some("default".into());
        }
        Ok(object)
    }
    // The object's label is only built for an error.
    let bad = |(field, problem): (String, String)| error(describe(kind, value), &field, problem);
    // What the snapshot does not keep goes as each object is read
    // (super::slim), so memory holds the slim objects only.
    let slim = slimming();
    match known {
        Known::Cluster => snapshot.clusters.push(typed(value).map_err(bad)?),
        Known::Node => {
            let mut node = typed(value).map_err(bad)?;
            if slim {
                super::slim::node(&mut node);
            }
            snapshot.nodes.push(node);
        }
        Known::StatefulSet => {
            let sts: k8s_openapi::api::apps::v1::StatefulSet = typed(value).map_err(bad)?;
            snapshot.stateful_sets.push(sts.into());
        }
        Known::Deployment => {
            let deployment: k8s_openapi::api::apps::v1::Deployment = typed(value).map_err(bad)?;
            snapshot.deployments.push(deployment.into());
        }
        Known::Pod => {
            let pod: k8s_openapi::api::core::v1::Pod = typed(value).map_err(bad)?;
            snapshot.pods.push(pod.into());
        }
        Known::CoreEvent => {
            let mut event: Event = typed(value).map_err(bad)?;
            if slim {
                super::slim::event(&mut event);
            }
            super::tidy_event(&mut event);
            snapshot.events.push(event);
        }
        Known::EventsEvent => {
            let event: k8s_openapi::api::events::v1::Event = typed(value).map_err(bad)?;
            let mut event = core_view(event);
            if slim {
                super::slim::event(&mut event);
            }
            super::tidy_event(&mut event);
            snapshot.events.push(event);
        }
    }
    Ok(())
}

#[cfg(test)]
thread_local! {
    /// Tests only: read ValkeyNodes and Events whole, as before they were
    /// slimmed, so a test can compare both readings (the parser thread
    /// inherits it). Pods and workloads are always the snapshot's own slim
    /// types.
    pub(crate) static KEEP_WHOLE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Objects are slimmed as they are read (always, but in a test that asks
/// for the whole objects).
fn slimming() -> bool {
    #[cfg(test)]
    {
        !KEEP_WHOLE.with(std::cell::Cell::get)
    }
    #[cfg(not(test))]
    {
        true
    }
}

/// The items of a List. A typed list from the API server (`PodList`) leaves
/// `kind` and `apiVersion` off its items; they are taken from the list.
fn add_list(
    snapshot: &mut Snapshot,
    value: &Value,
    kind: &str,
    api_version: &str,
    doc: &str,
    source_name: &str,
    kept: Kept<'_>,
) -> Result<()> {
    let items = match value.get("items") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(Error::Snapshot {
                source_name: source_name.to_string(),
                doc: doc.to_string(),
                object: format!(" ({kind})"),
                field: "items".into(),
                problem: format!("expected a sequence, found {}", type_name(other)),
            });
        }
    };
    let item_kind = kind.strip_suffix("List").filter(|k| !k.is_empty());
    for (at, item) in items.iter().enumerate() {
        let index = kept.indices.and_then(|k| k.get(at).copied()).unwrap_or(at);
        if kept.stop_at.is_some_and(|stop| index > stop) {
            break;
        }
        let label = format!("{doc}/items[{index}]");
        // An empty document is nothing, but a null item of a List is a
        // broken List: say so rather than drop an object silently.
        if item.is_null() {
            return Err(Error::Snapshot {
                source_name: source_name.to_string(),
                doc: label,
                object: String::new(),
                field: "(document)".into(),
                problem: "expected a Kubernetes object, found null".into(),
            });
        }
        let filled;
        let item = match (item_kind, item) {
            (Some(item_kind), Value::Object(map)) if !map.contains_key("kind") => {
                let mut map = map.clone();
                map.insert("kind".into(), Value::String(item_kind.to_string()));
                map.entry("apiVersion")
                    .or_insert_with(|| Value::String(api_version.to_string()));
                filled = Value::Object(map);
                &filled
            }
            _ => item,
        };
        add_value(snapshot, item, &label, source_name)?;
    }
    Ok(())
}

/// An `events.k8s.io` Event as the core `v1` API shows the same object:
/// regarding is involvedObject, note is message, the deprecated fields are
/// the core ones, reportingController is reportingComponent.
fn core_view(e: k8s_openapi::api::events::v1::Event) -> Event {
    Event {
        action: e.action,
        count: e.deprecated_count,
        event_time: e.event_time,
        first_timestamp: e.deprecated_first_timestamp,
        involved_object: e.regarding.unwrap_or_default(),
        last_timestamp: e.deprecated_last_timestamp,
        message: e.note,
        metadata: e.metadata,
        reason: e.reason,
        related: e.related,
        reporting_component: e.reporting_controller,
        reporting_instance: e.reporting_instance,
        series: e.series.map(|s| EventSeries {
            count: Some(s.count),
            last_observed_time: Some(s.last_observed_time),
        }),
        source: e.deprecated_source,
        type_: e.type_,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::{ValkeyNode, keys};

    const JAMMED: &[u8] = include_bytes!("../../examples/jammed.yaml");
    const JAMMED_P1: &[u8] = include_bytes!("../../examples/jammed-p1.yaml");
    const ROLLING: &[u8] = include_bytes!("../../examples/rolling.yaml");
    const CONVERGED: &[u8] = include_bytes!("../../examples/converged.yaml");

    /// The P1 jammed example's permit (cache-1-1's asked-for revision).
    const P1_PERMIT: &str = "9f2c41ab03de57c8e2b1f6a94d03e7b58c21a6f09d4e3b7c15a82f6e09d14b3a";
    /// The P2 jammed example's holder revision (cache-1-0's new one).
    const P2_HOLDER_REVISION: &str =
        "f621e4dee7fb86939d4ad28eefa39bd28f2b115b104a704d4cf1ce517522e048";

    /// A small kubectl List with one object of every kind read, and two
    /// kinds that are not.
    const LIST: &str = r#"apiVersion: v1
items:
- apiVersion: valkey.io/v1alpha1
  kind: ValkeyCluster
  metadata:
    generation: 2
    name: cache
    namespace: prod
    uid: 0b6c1e8e-1d5f-4d8e-9a51-3c0f7f2d9e01
  spec:
    shards: 1
  status:
    conditions:
    - lastTransitionTime: "2026-11-29T10:00:00Z"
      observedGeneration: 2
      reason: UpdatingNodes
      status: "False"
      type: Ready
    reason: UpdatingNodes
    state: Reconciling
- apiVersion: valkey.io/v1alpha1
  kind: ValkeyNode
  metadata:
    annotations:
      valkey.io/allow-workload-revision: 9f2c41ab03de
    generation: 2
    labels:
      valkey.io/cluster: cache
      valkey.io/node-index: "1"
      valkey.io/shard-index: "0"
    managedFields:
    - apiVersion: valkey.io/v1alpha1
      fieldsType: FieldsV1
      fieldsV1:
        f:metadata:
          f:annotations:
            f:valkey.io/allow-workload-revision: {}
      manager: valkey-operator
      operation: Update
      time: "2026-11-29T10:02:10Z"
    name: cache-0-1
    namespace: prod
    ownerReferences:
    - apiVersion: valkey.io/v1alpha1
      controller: true
      kind: ValkeyCluster
      name: cache
      uid: 0b6c1e8e-1d5f-4d8e-9a51-3c0f7f2d9e01
  spec:
    workloadType: StatefulSet
  status:
    lastRolloutHash: 41ab77c0e1f2
    observedGeneration: 2
    podName: valkey-cache-0-1-0
    ready: false
    role: replica
- apiVersion: apps/v1
  kind: StatefulSet
  metadata:
    generation: 3
    name: valkey-cache-0-1
    namespace: prod
  spec:
    replicas: 1
    selector:
      matchLabels:
        app.kubernetes.io/instance: cache-0-1
    serviceName: valkey-cache
    template:
      metadata:
        labels:
          app.kubernetes.io/instance: cache-0-1
      spec:
        containers:
        - image: valkey/valkey:8.1.4
          name: server
  status:
    currentRevision: valkey-cache-0-1-5d8f7c9b6d
    observedGeneration: 3
    replicas: 1
    updateRevision: valkey-cache-0-1-7b6c5d4f9e
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: checkout-api
    namespace: prod
  spec:
    selector:
      matchLabels:
        app: checkout-api
    template:
      metadata:
        labels:
          app: checkout-api
      spec:
        containers:
        - image: checkout-api:2
          name: api
- apiVersion: v1
  kind: Pod
  metadata:
    labels:
      controller-revision-hash: valkey-cache-0-1-7b6c5d4f9e
    name: valkey-cache-0-1-0
    namespace: prod
  spec:
    containers:
    - image: valkey/valkey:8.1.4
      name: server
  status:
    containerStatuses:
    - image: valkey/valkey:8.1.4
      imageID: ""
      name: server
      ready: false
      restartCount: 7
      state:
        waiting:
          reason: CrashLoopBackOff
    phase: Running
- apiVersion: v1
  kind: Service
  metadata:
    name: valkey-cache
    namespace: prod
  spec:
    ports: "not what a Service has, and never read"
- apiVersion: v1
  eventTime: "2026-11-29T10:02:10.482913Z"
  firstTimestamp: null
  involvedObject:
    apiVersion: valkey.io/v1alpha1
    kind: ValkeyCluster
    name: cache
    namespace: prod
  kind: Event
  lastTimestamp: null
  message: Granted workload roll permit for cache-0-1 (hash 9f2c41ab03de)
  metadata:
    name: cache.18ec7bdaa9078025
    namespace: prod
  reason: WorkloadRollPermitted
  related:
    apiVersion: valkey.io/v1alpha1
    kind: ValkeyNode
    name: cache-0-1
    namespace: prod
  reportingComponent: valkey-operator
  reportingInstance: ""
  source: {}
  type: Normal
kind: List
metadata:
  resourceVersion: ""
"#;

    fn parse(text: &str) -> Result<Snapshot> {
        parse_snapshot(text.as_bytes(), "snap.yaml")
    }

    /// The items of a List that name their kind are converted as they are
    /// parsed; what that reads, and which bad item is reported, is what
    /// reading every item as a value first gave.
    #[test]
    fn items_read_as_they_are_parsed_read_as_before() {
        let pod = |name: &str, phase: &str| {
            format!(
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","namespace":"prod"}},"status":{{"phase":{phase}}}}}"#
            )
        };
        // Without kind: converted with the List's (a typed list).
        let bare = |name: &str, phase: &str| {
            format!(
                r#"{{"metadata":{{"name":"{name}","namespace":"prod"}},"status":{{"phase":{phase}}}}}"#
            )
        };
        let list = |kind: &str, items: &[String]| {
            format!(
                r#"{{"apiVersion":"v1","items":[{}],"kind":"{kind}"}}"#,
                items.join(",")
            )
        };
        let ok = "\"Running\"";
        // (case, text, the item an error names, or the pods read)
        let cases: Vec<(&str, String, std::result::Result<usize, &str>)> = vec![
            (
                "kind after items",
                list("List", &[pod("a", ok), pod("b", ok)]),
                Ok(2),
            ),
            (
                "a typed list",
                list("PodList", &[bare("a", ok), bare("b", ok)]),
                Ok(2),
            ),
            (
                "both in one",
                list("PodList", &[pod("a", ok), bare("b", ok)]),
                Ok(2),
            ),
            (
                "not a List: its items are not objects",
                format!(
                    r#"{{"apiVersion":"v1","items":[{},{}],"kind":"Pod","metadata":{{"name":"x"}}}}"#,
                    pod("a", ok),
                    pod("b", "5")
                ),
                Ok(1),
            ),
            (
                "a bad streamed item",
                list("List", &[pod("a", ok), pod("b", "5")]),
                Err("1/items[1]"),
            ),
            (
                "the first of two bad streamed items",
                list("List", &[pod("a", "5"), pod("b", "6")]),
                Err("1/items[0]"),
            ),
            (
                "a bad kept item before a bad streamed one",
                list("PodList", &[pod("a", ok), bare("b", "5"), pod("c", "6")]),
                Err("1/items[1]"),
            ),
            (
                "a bad streamed item before a bad kept one",
                list("PodList", &[pod("a", "5"), bare("b", "6")]),
                Err("1/items[0]"),
            ),
        ];
        for (name, text, want) in cases {
            for whole in [false, true] {
                KEEP_WHOLE.with(|k| k.set(whole));
                let got = parse_snapshot(text.as_bytes(), "snap.json");
                KEEP_WHOLE.with(|k| k.set(false));
                match (&got, want) {
                    (Ok(s), Ok(n)) => assert_eq!(s.pods.len(), n, "{name}"),
                    (
                        Err(Error::Snapshot {
                            doc, source_name, ..
                        }),
                        Err(at),
                    ) => {
                        assert_eq!(
                            (doc.as_str(), source_name.as_str()),
                            (at, "snap.json"),
                            "{name}"
                        )
                    }
                    other => panic!("{name}: {other:?}"),
                }
            }
        }
    }

    fn counts(s: &Snapshot) -> [usize; 6] {
        [
            s.clusters.len(),
            s.nodes.len(),
            s.stateful_sets.len(),
            s.deployments.len(),
            s.pods.len(),
            s.events.len(),
        ]
    }

    fn list_value() -> Value {
        serde_saphyr::from_str(LIST).expect("the fixture is YAML")
    }

    fn items() -> Vec<Value> {
        list_value()["items"]
            .as_array()
            .cloned()
            .expect("the fixture has items")
    }

    fn to_yaml(value: &Value) -> String {
        serde_saphyr::to_string(value).expect("a Value serializes")
    }

    #[test]
    fn kubectl_list_reads_every_kind_and_ignores_the_rest() {
        let s = parse(LIST).expect("the fixture reads");
        assert_eq!(counts(&s), [1, 1, 1, 1, 1, 1]);
        let node = &s.nodes[0];
        assert_eq!(node.annotation(keys::ANN_PERMIT), Some("9f2c41ab03de"));
        assert_eq!(node.controller_cluster(), Some("cache"));
        let status = node.status.as_ref().expect("node status");
        assert_eq!(status.ready, Some(false));
        assert_eq!(status.last_rollout_hash.as_deref(), Some("41ab77c0e1f2"));
        // --show-managed-fields: the managedFields grant-time source survives.
        let managed = node
            .metadata
            .managed_fields
            .as_ref()
            .expect("managedFields");
        assert_eq!(managed[0].manager.as_deref(), Some("valkey-operator"));
        assert!(managed[0].time.is_some());
        let event = &s.events[0];
        assert_eq!(event.involved_object.kind.as_deref(), Some("ValkeyCluster"));
        assert!(event.event_time.is_some());
        assert_eq!(event.first_timestamp, None);
        // Empty values are tidied away (source: {}, reportingInstance: "").
        assert_eq!(event.source, None);
        assert_eq!(event.reporting_instance, None);
    }

    #[test]
    fn every_accepted_form_gives_the_same_snapshot() {
        let expected = parse(LIST).expect("the List reads");
        let items = items();
        let half = items.len() / 2;
        let list_of = |items: &[Value]| serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}});
        // A typed list as the API server sends it: items without kind/apiVersion.
        let typed_lists: String = items
            .iter()
            .map(|item| {
                let mut bare = item.clone();
                let kind = bare["kind"].as_str().unwrap_or_default().to_string();
                let api_version = bare["apiVersion"].as_str().unwrap_or_default().to_string();
                if let Some(map) = bare.as_object_mut() {
                    map.remove("kind");
                    map.remove("apiVersion");
                }
                serde_json::json!({"apiVersion": api_version, "kind": format!("{kind}List"), "metadata": {}, "items": [bare]})
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n");
        let forms: Vec<(&str, String)> = vec![
            (
                "-o json",
                serde_json::to_string_pretty(&list_value()).unwrap_or_default(),
            ),
            (
                "YAML stream of objects",
                items.iter().map(to_yaml).collect::<Vec<_>>().join("---\n"),
            ),
            (
                "YAML stream of Lists, with empty documents",
                format!(
                    "---\n---\n{}---\n{}---\n",
                    to_yaml(&list_of(&items[..half])),
                    to_yaml(&list_of(&items[half..]))
                ),
            ),
            (
                "JSON stream of objects",
                items
                    .iter()
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            ("JSON stream of typed lists", typed_lists),
            ("byte order mark", format!("\u{feff}{LIST}")),
        ];
        for (name, text) in forms {
            let got = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(got, expected, "{name}");
        }
    }

    #[test]
    fn single_objects_read() {
        let cases: &[(&str, String, [usize; 6])] = &[
            ("one node", to_yaml(&items()[1]), [0, 1, 0, 0, 0, 0]),
            (
                "one pod as JSON",
                items()[4].to_string(),
                [0, 0, 0, 0, 1, 0],
            ),
            (
                "an unknown kind",
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\n".into(),
                [0; 6],
            ),
            (
                "a List of an unknown kind",
                "apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Secret}]\n".into(),
                [0; 6],
            ),
            (
                "a Status beside an object",
                "kind: Status\nmessage: m\n---\napiVersion: v1\nkind: ConfigMap\n".into(),
                [0; 6],
            ),
        ];
        for (name, text, expected) in cases {
            let s = parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(counts(&s), *expected, "{name}");
        }
    }

    /// A snapshot without a single object is an error saying what it held
    /// (issue 22, item 5): a failed `kubectl get` upstream writes nothing,
    /// a Status or a Table, and "no clusters" would read as all fine.
    #[test]
    fn a_snapshot_without_objects_is_an_error() {
        // (case, text, what the error says it held)
        let cases: &[(&str, &str, &str)] = &[
            ("nothing", "", "holds no document"),
            ("blank lines", "\n\n  \n", "holds no document"),
            ("only separators", "---\n---\n", "holds no document"),
            ("a comment", "# nothing here\n", "holds no document"),
            ("JSON null", "null", "holds no document"),
            (
                "an empty List",
                "apiVersion: v1\nkind: List\nitems: []\n",
                "1 document(s) but no Kubernetes object",
            ),
            (
                "an empty List as JSON",
                r#"{"apiVersion":"v1","items":[],"kind":"List","metadata":{"resourceVersion":""}}"#,
                "1 document(s) but no Kubernetes object",
            ),
            (
                "a List with null items",
                "apiVersion: v1\nkind: List\nitems: null\n",
                "no Kubernetes object",
            ),
            (
                "two empty typed lists",
                "{\"kind\":\"PodList\",\"items\":[]}\n{\"kind\":\"EventList\",\"items\":[]}",
                "2 document(s) but no Kubernetes object",
            ),
            (
                "a Status",
                r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"forbidden","code":403}"#,
                "an API Status instead of objects (the request that wrote it failed: \"forbidden\")",
            ),
            (
                "a Status with a terminal escape",
                "{\"kind\":\"Status\",\"message\":\"no\\u001b[2J\"}",
                r#"failed: "no\u{1b}[2J")"#,
            ),
            (
                "a Status and an empty List",
                "kind: Status\n---\nkind: List\nitems: []\n",
                "an API Status instead of objects (the request that wrote it failed)",
            ),
            (
                "a Table",
                r#"{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[],"rows":[]}"#,
                "a Table (kubectl's printed columns)",
            ),
        ];
        for (name, text, want) in cases {
            let err = parse(text).expect_err(name);
            assert!(matches!(err, Error::NoObjects { .. }), "{name}: {err:?}");
            let err = err.to_string();
            assert!(err.contains(want), "{name}: {err}");
            assert!(err.starts_with("snap.yaml: "), "{name}: {err}");
            assert!(err.contains("kubectl valkey-roll bundle"), "{name}: {err}");
        }
    }

    /// The same object twice is read once: the newest resourceVersion,
    /// else the last copy (issue 22, item 2).
    #[test]
    fn duplicates_are_read_once() {
        let node = |ns: &str, name: &str, rv: &str, image: &str| {
            format!(
                "apiVersion: valkey.io/v1alpha1\nkind: ValkeyNode\nmetadata: {{name: {name}, namespace: {ns}, resourceVersion: \"{rv}\"}}\nspec: {{image: {image}}}\n"
            )
        };
        // (case, documents, nodes read, the image of a/x, duplicates)
        type Case = (
            &'static str,
            Vec<String>,
            usize,
            &'static str,
            Vec<(&'static str, usize)>,
        );
        let cases: Vec<Case> = vec![
            (
                "no duplicate",
                vec![node("a", "x", "1", "old"), node("b", "x", "1", "new")],
                2,
                "old",
                vec![],
            ),
            (
                "the newer last",
                vec![node("a", "x", "1", "old"), node("a", "x", "2", "new")],
                1,
                "new",
                vec![("a/x", 2)],
            ),
            (
                "the newer first",
                vec![node("a", "x", "10", "new"), node("a", "x", "9", "old")],
                1,
                "new",
                vec![("a/x", 2)],
            ),
            (
                "the same version: the last",
                vec![node("a", "x", "5", "old"), node("a", "x", "5", "new")],
                1,
                "new",
                vec![("a/x", 2)],
            ),
            (
                "versions that are not numbers: the last",
                vec![node("a", "x", "x", "old"), node("a", "x", "1", "new")],
                1,
                "new",
                vec![("a/x", 2)],
            ),
            (
                "three copies and another",
                vec![
                    node("a", "x", "3", "new"),
                    node("a", "x", "1", "old"),
                    node("a", "w", "1", "old"),
                    node("a", "x", "2", "old"),
                ],
                2,
                "new",
                vec![("a/x", 3)],
            ),
        ];
        for (name, docs, nodes, image, dups) in cases {
            let text = docs.join("---\n");
            let read = parse_file_snapshot(text.as_bytes(), "snap.yaml")
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(read.snapshot.nodes.len(), nodes, "{name}");
            let got = read
                .snapshot
                .nodes
                .iter()
                .find(|n| n.metadata.namespace.as_deref() == Some("a") && n.name() == "x")
                .and_then(|n| n.spec.image.as_deref());
            assert_eq!(got, Some(image), "{name}");
            let found: Vec<(String, usize)> = read
                .duplicates
                .iter()
                .map(|d| (format!("{}/{}", d.namespace, d.name), d.copies))
                .collect();
            let want: Vec<(String, usize)> =
                dups.iter().map(|(n, c)| (n.to_string(), *c)).collect();
            assert_eq!(found, want, "{name}");
        }
    }

    #[test]
    fn an_object_without_namespace_lands_in_default() {
        let s = parse(
            "apiVersion: valkey.io/v1alpha1\nkind: ValkeyNode\nmetadata: {name: cache-0-0}\n",
        )
        .expect("reads");
        assert_eq!(s.nodes[0].namespace(), "default");
    }

    #[test]
    fn events_k8s_io_events_read_as_their_core_view() {
        let core = r#"
apiVersion: v1
kind: Event
metadata: {name: cache.18ec7bdaa9078025, namespace: prod, uid: e1, resourceVersion: "7", creationTimestamp: "2026-11-29T10:02:10Z"}
involvedObject: {apiVersion: valkey.io/v1alpha1, kind: ValkeyCluster, name: cache, namespace: prod, uid: c1}
related: {apiVersion: valkey.io/v1alpha1, kind: ValkeyNode, name: cache-1-1, namespace: prod, uid: n1}
reason: WorkloadRollPermitted
message: Granted workload roll permit for cache-1-1 (hash 9f2c41ab03de)
action: GrantRollPermit
eventTime: "2026-11-29T10:02:10.482913Z"
firstTimestamp: null
lastTimestamp: null
reportingComponent: valkey-operator
reportingInstance: valkey-operator-6f7c9d8b5-q4xkz
series: {count: 2, lastObservedTime: "2026-11-29T10:03:10.120000Z"}
source: {}
type: Normal
---
apiVersion: v1
kind: Event
metadata: {name: valkey-cache-1-1-0.18ec7bddceb5e13d, namespace: prod}
involvedObject: {apiVersion: v1, kind: Pod, name: valkey-cache-1-1-0, namespace: prod, fieldPath: "spec.containers{server}"}
reason: BackOff
message: Back-off restarting failed container server
count: 62
eventTime: null
firstTimestamp: "2026-11-29T10:02:24Z"
lastTimestamp: "2026-11-29T10:15:58Z"
reportingComponent: kubelet
reportingInstance: worker-1
source: {component: kubelet, host: worker-1}
type: Warning
"#;
        let events_k8s_io = r#"
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: cache.18ec7bdaa9078025, namespace: prod, uid: e1, resourceVersion: "7", creationTimestamp: "2026-11-29T10:02:10Z"}
regarding: {apiVersion: valkey.io/v1alpha1, kind: ValkeyCluster, name: cache, namespace: prod, uid: c1}
related: {apiVersion: valkey.io/v1alpha1, kind: ValkeyNode, name: cache-1-1, namespace: prod, uid: n1}
reason: WorkloadRollPermitted
note: Granted workload roll permit for cache-1-1 (hash 9f2c41ab03de)
action: GrantRollPermit
eventTime: "2026-11-29T10:02:10.482913Z"
reportingController: valkey-operator
reportingInstance: valkey-operator-6f7c9d8b5-q4xkz
series: {count: 2, lastObservedTime: "2026-11-29T10:03:10.120000Z"}
type: Normal
---
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: valkey-cache-1-1-0.18ec7bddceb5e13d, namespace: prod}
regarding: {apiVersion: v1, kind: Pod, name: valkey-cache-1-1-0, namespace: prod, fieldPath: "spec.containers{server}"}
reason: BackOff
note: Back-off restarting failed container server
deprecatedCount: 62
deprecatedFirstTimestamp: "2026-11-29T10:02:24Z"
deprecatedLastTimestamp: "2026-11-29T10:15:58Z"
deprecatedSource: {component: kubelet, host: worker-1}
reportingController: kubelet
reportingInstance: worker-1
type: Warning
"#;
        let a = parse(core).expect("core view reads");
        let b = parse(events_k8s_io).expect("events.k8s.io view reads");
        assert_eq!(a.events.len(), 2);
        assert_eq!(a, b);
        let permitted = &a.events[0];
        assert_eq!(permitted.involved_object.name.as_deref(), Some("cache"));
        assert_eq!(
            permitted.related.as_ref().and_then(|r| r.name.as_deref()),
            Some("cache-1-1")
        );
        assert!(
            permitted
                .series
                .as_ref()
                .is_some_and(|s| s.last_observed_time.is_some())
        );
    }

    #[derive(Debug)]
    enum Expect {
        /// Error::Read whose problem contains this.
        Read(&'static str),
        /// Error::Snapshot at (doc, object, field); the problem contains the last.
        Doc(&'static str, &'static str, &'static str, &'static str),
    }

    #[test]
    fn malformed_input_names_the_document_and_field() {
        let node = |status: &str| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c, namespace: prod}}\n---\napiVersion: valkey.io/v1alpha1\nkind: ValkeyNode\nmetadata: {{name: cache-0-1, namespace: prod}}\n{status}\n"
            )
        };
        let cases: Vec<(&str, Vec<u8>, Expect)> = vec![
            ("bad YAML", b"kind: List\nitems:\n- a: [1\n  b: 2\n".to_vec(), Expect::Read("not valid YAML")),
            ("bad indentation", b"kind: Pod\n metadata: x\n  name: y\n".to_vec(), Expect::Read("line")),
            ("truncated JSON", br#"{"apiVersion":"v1","kind":"List","items":[{"kind":"Pod""#.to_vec(), Expect::Read("not valid JSON")),
            ("not UTF-8", b"kind: Pod\nmetadata:\n  name: \xff\xfe\n".to_vec(), Expect::Read("line 3")),
            ("a NUL byte", b"kind: Pod\nmetadata: {name: \x00}\n".to_vec(), Expect::Read("byte 0x00 (a control character) at line 2, column 18")),
            ("an escape byte", b"kind: Pod\n\x1b[2J".to_vec(), Expect::Read("byte 0x1b (a control character) at line 2, column 1")),
            ("random bytes", b"\xa5\x13\x00".to_vec(), Expect::Read("byte 0xa5 (not UTF-8) at line 1, column 1")),
            ("a cut UTF-8 sequence at the end", b"kind: Pod\n\xe2\x82".to_vec(), Expect::Read("not UTF-8")),
            ("an alias bomb", format!("a: &a \"{}\"\nb: [{}]\n", "x".repeat(64 * 1024), vec!["*a"; 1000].join(", ")).into_bytes(), Expect::Read("aliases repeat their anchor's text")),
            ("many documents that each expand a little", format!("kind: X\na: &a \"{x}\"\nb: &b \"{x}\"\nc: [{}]\n---\n", ["*a, *b"; 8].join(", "), x = "x".repeat(256 * 1024)).repeat(12).into_bytes(), Expect::Read("expand")),
            ("a nested alias bomb", b"a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n".to_vec(), Expect::Read("alias")),
            ("duplicate keys", b"kind: Pod\nkind: Pod\n".to_vec(), Expect::Read("duplicate")),
            ("too deep", format!("a: {}1{}\n", "[".repeat(200), "]".repeat(200)).into_bytes(), Expect::Read("")),
            ("a sequence document", b"- a\n- b\n".to_vec(), Expect::Doc("1", "", "(document)", "sequence")),
            ("a scalar document", b"apiVersion: v1\nkind: List\n---\nhello\n".to_vec(), Expect::Doc("2", "", "(document)", "string")),
            ("a JSON array", b"[1, 2]".to_vec(), Expect::Doc("1", "", "(document)", "sequence")),
            ("no kind", b"apiVersion: v1\nmetadata: {name: x}\n".to_vec(), Expect::Doc("1", "", "kind", "missing")),
            ("kind not a string", b"kind: [Pod]\n".to_vec(), Expect::Doc("1", "", "kind", "expected a string")),
            ("apiVersion not a string", b"apiVersion: 1\nkind: Pod\nmetadata: {name: p, namespace: prod}\n".to_vec(), Expect::Doc("1", " (Pod prod/p)", "apiVersion", "expected a string")),
            ("items not a sequence", b"apiVersion: v1\nkind: List\nitems: {a: 1}\n".to_vec(), Expect::Doc("1", " (List)", "items", "sequence")),
            ("status.ready a string", node("status: {ready: \"yes\"}").into_bytes(), Expect::Doc("2", " (ValkeyNode prod/cache-0-1)", "status.ready", "boolean")),
            ("huge generation", b"apiVersion: valkey.io/v1alpha1\nkind: ValkeyNode\nmetadata: {name: node-a, namespace: prod, generation: 99999999999999999999999}\n".to_vec(), Expect::Doc("1", " (ValkeyNode prod/node-a)", "metadata.generation", "")),
            ("generation out of i64", b"apiVersion: valkey.io/v1alpha1\nkind: ValkeyNode\nmetadata: {name: node-a, namespace: prod, generation: 18446744073709551615}\n".to_vec(), Expect::Doc("1", " (ValkeyNode prod/node-a)", "metadata.generation", "")),
            ("fractional observedGeneration", node("status: {observedGeneration: 1.5}").into_bytes(), Expect::Doc("2", " (ValkeyNode prod/cache-0-1)", "status.observedGeneration", "")),
            ("condition without type", node("status: {conditions: [{status: \"True\"}]}").into_bytes(), Expect::Doc("2", " (ValkeyNode prod/cache-0-1)", "status.conditions[0]", "type")),
            ("conditions a mapping", node("status: {conditions: {Ready: true}}").into_bytes(), Expect::Doc("2", " (ValkeyNode prod/cache-0-1)", "status.conditions", "")),
            ("label not a string", node("spec: {}\n").replace("namespace: prod}\nspec", "namespace: prod, labels: {valkey.io/cluster: 7}}\nspec").into_bytes(), Expect::Doc("2", " (ValkeyNode prod/cache-0-1)", "metadata.labels.valkey.io/cluster", "")),
            ("bad timestamp", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: prod, creationTimestamp: yesterday}\n".to_vec(), Expect::Doc("1", " (Pod prod/p)", "metadata.creationTimestamp", "")),
            ("no name", b"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {namespace: prod}\n".to_vec(), Expect::Doc("1", " (StatefulSet)", "metadata.name", "missing")),
            ("an item of a List", format!("apiVersion: v1\nkind: List\nitems:\n- {}\n- apiVersion: apps/v1\n  kind: StatefulSet\n  metadata: {{name: valkey-cache-0-1, namespace: prod}}\n  spec: {{replicas: three}}\n", "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: prod}}").into_bytes(), Expect::Doc("1/items[1]", " (StatefulSet prod/valkey-cache-0-1)", "spec.replicas", "")),
            ("a typed list item", br#"{"apiVersion":"v1","kind":"PodList","items":[{"metadata":{"name":"p","namespace":"prod"},"status":{"phase":5}}]}"#.to_vec(), Expect::Doc("1/items[0]", " (Pod prod/p)", "status.phase", "")),
            ("events.k8s.io regarding", b"apiVersion: events.k8s.io/v1\nkind: Event\nmetadata: {name: e, namespace: prod}\nregarding: cache\n".to_vec(), Expect::Doc("1", " (Event prod/e)", "regarding", "")),
            ("a valkey.io version not read", b"apiVersion: valkey.io/v1beta1\nkind: ValkeyNode\nmetadata: {name: node-a, namespace: prod}\n".to_vec(), Expect::Doc("1", " (ValkeyNode prod/node-a)", "apiVersion", "valkey.io/v1alpha1")),
            ("metadata a string", b"apiVersion: valkey.io/v1alpha1\nkind: ValkeyCluster\nmetadata: cache\n".to_vec(), Expect::Doc("1", " (ValkeyCluster)", "metadata", "")),
            ("a null item of a List", b"apiVersion: v1\nkind: List\nitems:\n- null\n".to_vec(), Expect::Doc("1/items[0]", "", "(document)", "null")),
            ("a ValkeyNode without apiVersion", b"kind: ValkeyNode\nmetadata: {name: node-a, namespace: prod}\n".to_vec(), Expect::Doc("1", " (ValkeyNode prod/node-a)", "apiVersion", "missing")),
        ];
        for (name, text, expect) in cases {
            let err = match parse_snapshot(&text, "snap.yaml") {
                Ok(s) => panic!("{name}: read without error: {s:?}"),
                Err(e) => e,
            };
            match (&err, &expect) {
                (Error::Read { path, problem }, Expect::Read(needle)) => {
                    assert_eq!(path, "snap.yaml", "{name}");
                    assert!(problem.contains(needle), "{name}: {problem}");
                    assert!(!problem.contains('\n'), "{name}: one line: {problem}");
                }
                (
                    Error::Snapshot {
                        source_name,
                        doc,
                        object,
                        field,
                        problem,
                    },
                    Expect::Doc(want_doc, want_object, want_field, needle),
                ) => {
                    assert_eq!(source_name, "snap.yaml", "{name}");
                    assert_eq!(
                        (doc.as_str(), object.as_str(), field.as_str()),
                        (*want_doc, *want_object, *want_field),
                        "{name}: {err}"
                    );
                    assert!(problem.contains(needle), "{name}: {problem}");
                }
                _ => panic!("{name}: expected {expect:?}, got {err:?}"),
            }
            assert_eq!(err.exit(), crate::error::Exit::Error, "{name}");
        }
    }

    #[test]
    fn the_error_message_names_document_object_and_field() {
        let err = parse("apiVersion: valkey.io/v1alpha1\nkind: ValkeyNode\nmetadata: {name: cache-0-1, namespace: prod}\nstatus: {ready: maybe}\n")
            .expect_err("bad ready");
        let text = err.to_string();
        assert!(
            text.starts_with(
                "snap.yaml: document 1 (ValkeyNode prod/cache-0-1): field `status.ready`:"
            ),
            "{text}"
        );
    }

    /// Cuts and byte changes of valid input: whatever comes of it, an error
    /// is a Read or Snapshot error, and nothing panics.
    fn assert_no_panic(name: &str, text: &[u8]) {
        match parse_snapshot(text, "mutated.yaml") {
            Ok(_) | Err(Error::Read { .. } | Error::Snapshot { .. } | Error::NoObjects { .. }) => {}
            Err(other) => panic!("{name}: unexpected error kind {other:?}"),
        }
    }

    #[test]
    fn truncations_and_mutations_never_panic() {
        let small = LIST.as_bytes();
        for cut in (0..small.len()).step_by(3) {
            assert_no_panic(&format!("LIST cut at {cut}"), &small[..cut]);
        }
        let json = serde_json::to_vec(&list_value()).unwrap_or_default();
        for cut in (0..json.len()).step_by(7) {
            assert_no_panic(&format!("JSON cut at {cut}"), &json[..cut]);
        }
        let replacements: &[u8] = b":-\"'[]{}\t\n #&*!|>%@`9\x00\xff";
        for (i, at) in (0..small.len()).step_by(13).enumerate() {
            let mut text = small.to_vec();
            text[at] = replacements[i % replacements.len()];
            assert_no_panic(&format!("LIST byte {at} changed"), &text);
            let mut text = json.clone();
            let at = at * json.len() / small.len();
            text[at] = replacements[(i + 5) % replacements.len()];
            assert_no_panic(&format!("JSON byte {at} changed"), &text);
        }
        let lines: Vec<&str> = LIST.lines().collect();
        for drop in 0..lines.len() {
            let mut kept = lines.clone();
            kept.remove(drop);
            assert_no_panic(
                &format!("LIST line {drop} dropped"),
                kept.join("\n").as_bytes(),
            );
            let mut doubled = lines.clone();
            doubled.insert(drop, lines[drop]);
            assert_no_panic(
                &format!("LIST line {drop} doubled"),
                doubled.join("\n").as_bytes(),
            );
        }
        for cut in (0..JAMMED.len()).step_by(JAMMED.len() / 12) {
            assert_no_panic(&format!("jammed cut at {cut}"), &JAMMED[..cut]);
        }
    }

    #[test]
    fn examples_parse() {
        // (name, text, [clusters, nodes, statefulsets, deployments, pods, events])
        let cases: &[(&str, &[u8], [usize; 6])] = &[
            ("jammed", JAMMED, [1, 6, 6, 0, 6, 46]),
            ("jammed-p1", JAMMED_P1, [1, 6, 6, 0, 6, 50]),
            ("rolling", ROLLING, [1, 6, 6, 0, 6, 21]),
            ("converged", CONVERGED, [1, 6, 6, 0, 6, 88]),
        ];
        for (name, text, expected) in cases {
            let s = parse_snapshot(text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(counts(&s), *expected, "{name}");
        }
    }

    /// The holder's pod: its server container restarted 7 times and waits
    /// in CrashLoopBackOff after an OOMKill.
    fn assert_crash_looping(s: &Snapshot, pod_name: &str) {
        let pod = s
            .pods
            .iter()
            .find(|p| p.metadata.name.as_deref() == Some(pod_name))
            .expect("holder's pod");
        let server = pod
            .status
            .as_ref()
            .and_then(|st| st.container_statuses.as_ref())
            .and_then(|cs| cs.iter().find(|c| c.name == "server"))
            .expect("server container");
        assert_eq!(server.restart_count, 7);
        assert_eq!(
            server
                .state
                .as_ref()
                .and_then(|st| st.waiting.as_ref())
                .and_then(|w| w.reason.as_deref()),
            Some("CrashLoopBackOff")
        );
        assert_eq!(
            server
                .last_state
                .as_ref()
                .and_then(|st| st.terminated.as_ref())
                .and_then(|t| t.reason.as_deref()),
            Some("OOMKilled")
        );
    }

    fn node<'a>(s: &'a Snapshot, name: &str) -> &'a ValkeyNode {
        s.nodes
            .iter()
            .find(|n| n.name() == name)
            .unwrap_or_else(|| panic!("node {name}"))
    }

    #[test]
    fn jammed_example_tells_its_story() {
        // P2, Spec-driven: the holder was advanced to its new revision and
        // image; the nodes behind keep the old image; nothing asks.
        let s = parse_snapshot(JAMMED, "jammed").expect("reads");
        let cluster = &s.clusters[0];
        assert_eq!(cluster.spec.image.as_deref(), Some("valkey/valkey:9.0.1"));
        let holder = node(&s, "cache-1-0");
        assert_eq!(
            holder.spec.workload_revision.as_deref(),
            Some(P2_HOLDER_REVISION)
        );
        assert_eq!(holder.spec.image.as_deref(), Some("valkey/valkey:9.0.1"));
        assert_eq!(holder.status.as_ref().and_then(|st| st.ready), None);
        let behind: Vec<&str> = s
            .nodes
            .iter()
            .filter(|n| n.spec.image.as_deref() == Some("valkey/valkey:9.0.0"))
            .map(|n| n.name())
            .collect();
        assert_eq!(behind, ["cache-1-1", "cache-2-0", "cache-2-1"]);
        assert!(
            s.nodes
                .iter()
                .all(|n| n.condition(keys::COND_PENDING).is_none())
        );
        assert!(
            s.nodes
                .iter()
                .all(|n| n.annotation(keys::ANN_PERMIT).is_none())
        );
        assert_crash_looping(&s, "valkey-cache-1-0-0");
        let advanced: Vec<(String, String)> = s
            .events
            .iter()
            .filter(|e| e.reason.as_deref() == Some(keys::EVENT_NODE_UPDATED))
            .filter_map(|e| {
                Some((
                    e.related.as_ref()?.name.clone()?,
                    e.event_time.as_ref()?.0.to_string(),
                ))
            })
            .collect();
        assert_eq!(
            advanced,
            [
                (
                    "cache-0-0".to_string(),
                    "2026-11-29T10:00:31.618342Z".to_string()
                ),
                (
                    "cache-0-1".to_string(),
                    "2026-11-29T10:01:07.28447Z".to_string()
                ),
                (
                    "cache-1-0".to_string(),
                    "2026-11-29T10:02:10.482913Z".to_string()
                ),
            ]
        );
        let status = cluster.status.as_ref().expect("cluster status");
        assert_eq!(
            (status.state.as_deref(), status.reason.as_deref()),
            (Some("Reconciling"), Some("UpdatingNodes"))
        );
        // The spec edit's time is in the ValkeyCluster's managedFields.
        let patch = cluster
            .metadata
            .managed_fields
            .iter()
            .flatten()
            .find(|m| m.manager.as_deref() == Some("kubectl-patch"))
            .and_then(|m| m.time.as_ref())
            .map(|t| t.0.to_string());
        assert_eq!(patch.as_deref(), Some("2026-11-29T10:00:31Z"));
    }

    #[test]
    fn p1_jammed_example_tells_its_story() {
        let s = parse_snapshot(JAMMED_P1, "jammed-p1").expect("reads");
        let holder = node(&s, "cache-1-1");
        assert_eq!(holder.annotation(keys::ANN_PERMIT), Some(P1_PERMIT));
        assert_eq!(holder.annotation(keys::ANN_DESIRED), None);
        assert_eq!(holder.spec.workload_revision, None);
        let waiting: Vec<&str> = s
            .nodes
            .iter()
            .filter(|n| {
                n.annotation(keys::ANN_DESIRED).is_some()
                    && n.condition(keys::COND_DRIFT).is_some_and(|c| c.is_true())
            })
            .map(|n| n.name())
            .collect();
        assert_eq!(waiting, ["cache-1-0", "cache-2-0", "cache-2-1"]);
        assert_crash_looping(&s, "valkey-cache-1-1-0");
        let permitted: Vec<String> = s
            .events
            .iter()
            .filter(|e| e.reason.as_deref() == Some(keys::EVENT_PERMITTED))
            .filter(|e| e.related.as_ref().and_then(|r| r.name.as_deref()) == Some("cache-1-1"))
            .filter_map(|e| e.event_time.as_ref().map(|t| t.0.to_string()))
            .collect();
        assert_eq!(permitted, ["2026-11-29T10:02:10.482913Z"]);
    }

    #[test]
    fn p2_examples_carry_the_workload_revision() {
        let rolling = parse_snapshot(ROLLING, "rolling").expect("reads");
        let advanced: Vec<&str> = rolling
            .nodes
            .iter()
            .filter(|n| n.condition(keys::COND_PENDING).is_none())
            .map(|n| n.name())
            .collect();
        assert_eq!(advanced, ["sessions-0-1"]);
        assert!(
            rolling
                .nodes
                .iter()
                .all(|n| n.spec.workload_revision.is_some())
        );
        let converged = parse_snapshot(CONVERGED, "converged").expect("reads");
        // Each node's revision is its own (the template names the node).
        let revisions: std::collections::BTreeSet<_> = converged
            .nodes
            .iter()
            .filter_map(|n| n.spec.workload_revision.clone())
            .collect();
        assert_eq!(revisions.len(), 6);
        let ready = converged.clusters[0]
            .conditions()
            .iter()
            .find(|c| c.type_ == keys::COND_READY)
            .expect("Ready condition");
        assert!(ready.is_true());
        assert_eq!(
            ready.observed_generation,
            converged.clusters[0].metadata.generation
        );
    }
}

#[cfg(test)]
mod depth_and_words {
    use super::*;

    /// `levels` nested sequences in an annotation-free field of a kind the
    /// plugin ignores, as YAML flow and as JSON.
    fn nested(levels: usize, json: bool) -> Vec<u8> {
        let inner = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
        if json {
            format!(r#"{{"apiVersion": "v1", "kind": "ConfigMap", "spec": {inner}}}"#).into_bytes()
        } else {
            format!("apiVersion: v1\nkind: ConfigMap\nspec: {inner}\n").into_bytes()
        }
    }

    #[test]
    fn yaml_is_read_as_deep_as_json() {
        // The document is one level, `data` another.
        for json in [false, true] {
            for levels in [60, 100, MAX_DEPTH - 2] {
                assert!(
                    parse_snapshot(&nested(levels, json), "deep").is_ok(),
                    "{levels} levels, json {json}"
                );
            }
            let err = parse_snapshot(&nested(MAX_DEPTH + 10, json), "deep")
                .expect_err("too deep")
                .to_string();
            assert!(err.contains("nested deeper than 128 levels"), "{err}");
        }
    }

    #[test]
    fn parse_errors_are_in_a_kubectl_users_words() {
        // (case, text, wanted in the message)
        let cases: &[(&str, &[u8], &str)] = &[
            ("duplicate keys", b"kind: Pod\nkind: Pod\n", "duplicate"),
            ("too many aliases", b"", "aliases"),
            (
                "truncated JSON",
                br#"{"kind": "Pod", "metadata": {"#,
                "the text ends in the middle of a value",
            ),
            ("bad JSON", br#"{"kind": "Pod",, }"#, "line 1, column"),
            ("a word for a time", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x, creationTimestamp: yesterday}\n", "field `metadata.creationTimestamp`: not an RFC 3339 time"),
            ("month 13", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x, creationTimestamp: \"2026-13-01T00:00:00Z\"}\n", "not an RFC 3339 time"),
            ("a number for a time", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x, creationTimestamp: 5}\n", "expected an RFC 3339 time"),
            ("a word for a port", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x}\nspec: {containers: [{name: c, ports: [{containerPort: x}]}]}\n", "expected a whole number"),
            ("a fraction for a generation", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x, generation: 1.5}\n", "the number `1.5`, expected a whole number"),
            ("a list for an int-or-string", b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: p, namespace: x}\nspec: {selector: {}, template: {}, strategy: {rollingUpdate: {maxSurge: [1]}}}\n", "expected a number or a string"),
            ("a list for a quantity", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x}\nspec: {containers: [{name: c, resources: {limits: {cpu: [1]}}}]}\n", "expected a quantity"),
            ("YAML's n", b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: n}\n", "quote it"),
            ("YAML's y as a kind", b"kind: y\n", "found a boolean (YAML reads an unquoted y"),
            ("bad YAML in the third document", b"kind: X\n---\nkind: Z\n---\na: [1\n", "not valid YAML in document 3"),
            ("bad JSON in the second document", b"{\"kind\": \"X\"}\n{\"kind\": \"Y\",}", "not valid JSON in document 2: trailing comma (line 2, column 14)"),
        ];
        let aliases = format!("a: &a x\nb: [{}]\n", vec!["*a"; 60_000].join(", "));
        for (name, text, want) in cases {
            let text = if text.is_empty() {
                aliases.as_bytes()
            } else {
                text
            };
            let err = parse_snapshot(text, "snap.yaml")
                .expect_err(name)
                .to_string();
            assert!(err.contains(want), "{name}: {err}");
            for jargon in [
                "DuplicateKeyPolicy",
                "Options",
                " { ",
                "Option<",
                "Depth",
                "budget",
            ] {
                assert!(!err.contains(jargon), "{name}: {jargon:?} in {err}");
            }
        }
    }
}

#[cfg(test)]
mod ignored_items {
    use super::*;

    /// A List of many kinds: the items of kinds the plugin ignores are left
    /// out while they are read, the others read as before, and an error
    /// names the item by its index in the file.
    #[test]
    fn ignored_items_are_dropped_and_the_others_keep_their_index() {
        let item = |kind: &str, api: &str, name: &str| {
            format!(
                "- apiVersion: {api}\n  kind: {kind}\n  metadata: {{name: {name}, namespace: prod}}\n"
            )
        };
        let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
        for i in 0..5 {
            text.push_str(&item("ConfigMap", "v1", &format!("cm-{i}")));
        }
        text.push_str(&item("Pod", "v1", "valkey-cache-0-0-0"));
        text.push_str(&item("Secret", "v1", "s"));
        // Keys in another order: kept whole, judged as before.
        text.push_str("- metadata: {name: late, namespace: prod}\n  kind: Pod\n  apiVersion: v1\n");
        for json in [false, true] {
            let input = if json {
                let value: Value = serde_saphyr::from_str(&text).expect("yaml");
                serde_json::to_vec(&value).expect("json")
            } else {
                text.clone().into_bytes()
            };
            let s = parse_snapshot(&input, "list").expect("reads");
            let pods: Vec<&str> = s
                .pods
                .iter()
                .filter_map(|p| p.metadata.name.as_deref())
                .collect();
            assert_eq!(pods.len(), 2, "json {json}: {pods:?}");
            // An error in an item after skipped ones names its own index.
            let broken = format!(
                "{text}- apiVersion: v1\n  kind: Pod\n  metadata: {{name: bad, namespace: prod}}\n  status: {{phase: [x]}}\n"
            );
            let input = if json {
                let value: Value = serde_saphyr::from_str(&broken).expect("yaml");
                serde_json::to_vec(&value).expect("json")
            } else {
                broken.into_bytes()
            };
            let err = parse_snapshot(&input, "list").expect_err("broken");
            assert!(
                err.to_string()
                    .contains("document 1/items[8] (Pod prod/bad)"),
                "json {json}: {err}"
            );
        }
        // What is dropped is not kept: a tiny Doc for a List of ignored kinds.
        let mut many = String::from("apiVersion: v1\nkind: List\nitems:\n");
        for i in 0..1000 {
            many.push_str(&item("ConfigMap", "v1", &format!("cm-{i}")));
        }
        let doc: Doc = serde_saphyr::from_str(&many).expect("doc");
        assert_eq!(doc.value["items"], Value::Array(vec![]));
        assert_eq!(doc.kept.as_deref(), Some(&[][..]));
    }

    /// Keys no read kind has are skipped, never built (issue 22, item
    /// 1): at the top of a List, and in an item before its `kind`.
    #[test]
    fn keys_no_read_kind_has_are_not_built() {
        let json = br#"{"apiVersion":"v1","items":[{"apiVersion":"v1","data":{"k":"v"},"kind":"Pod","metadata":{"name":"p","namespace":"x"}}],"kind":"List","x":[1,1,1]}"#;
        let yaml = "apiVersion: v1\nitems:\n- apiVersion: v1\n  data: {k: v}\n  kind: Pod\n  metadata: {name: p, namespace: x}\nkind: List\nx: [1, 1, 1]\n";
        let docs: [Doc; 2] = [
            serde_json::from_slice(json).expect("json"),
            serde_saphyr::from_str(yaml).expect("yaml"),
        ];
        for doc in docs {
            assert_eq!(doc.value.get("x"), None, "{:?}", doc.value);
            let streamed = doc.streamed.as_ref().expect("streamed");
            assert_eq!(streamed.snapshot.pods.len(), 1);
            assert_eq!(streamed.seen, 1);
        }
        // An item kept as a value (no kind: a typed list's) loses them too.
        let typed = br#"{"kind":"PodList","items":[{"data":[1,2],"metadata":{"name":"p"}}]}"#;
        let doc: Doc = serde_json::from_slice(typed).expect("json");
        assert_eq!(doc.value["items"][0].get("data"), None, "{:?}", doc.value);
    }
}

/// Issue 22 (items 6, 7, 8): look-alike kinds, duplicate keys, numbers and
/// the library's words, each naming document, object and field.
#[cfg(test)]
mod round_two {
    use super::*;

    /// (case, text, the error's document, object, field, words in it)
    type Case = (
        &'static str,
        Vec<u8>,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    );

    fn assert_cases(cases: Vec<Case>) {
        for (name, text, doc_want, object_want, field_want, want) in cases {
            match parse_snapshot(&text, "snap") {
                Err(Error::Snapshot {
                    doc,
                    object,
                    field,
                    problem,
                    ..
                }) => {
                    assert_eq!(
                        (doc.as_str(), object.as_str(), field.as_str()),
                        (doc_want, object_want, field_want),
                        "{name}: {problem}"
                    );
                    assert!(problem.contains(want), "{name}: {problem}");
                    for jargon in [
                        "Options",
                        "policy",
                        "weak recursion",
                        "ignore_binary",
                        "i32",
                        "f64",
                        "1.8446744073709552e19",
                    ] {
                        assert!(!problem.contains(jargon), "{name}: {jargon:?} in {problem}");
                    }
                }
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    fn pod_yaml(metadata: &str, status: &str) -> Vec<u8> {
        format!("apiVersion: v1\nkind: Pod\nmetadata: {metadata}\nstatus: {status}\n").into_bytes()
    }

    #[test]
    fn look_alike_kinds_and_duplicate_keys_are_errors() {
        let in_list = |item: &str| {
            format!(r#"{{"apiVersion":"v1","kind":"List","items":[{item}]}}"#).into_bytes()
        };
        let cases: Vec<Case> = vec![
            (
                "a ValkeyNode at v1",
                b"apiVersion: v1\nkind: ValkeyNode\nmetadata: {name: node, namespace: prod}\n"
                    .to_vec(),
                "1",
                " (ValkeyNode prod/node)",
                "apiVersion",
                "`v1` is not the valkey.io group",
            ),
            (
                "a ValkeyCluster of another group",
                b"apiVersion: example.com/v1\nkind: ValkeyCluster\nmetadata: {name: c}\n".to_vec(),
                "1",
                " (ValkeyCluster c)",
                "apiVersion",
                "reads ValkeyCluster at valkey.io/v1alpha1 only",
            ),
            (
                "kind in lower case",
                in_list(
                    r#"{"apiVersion":"valkey.io/v1alpha1","kind":"valkeynode","metadata":{"name":"n"}}"#,
                ),
                "1/items[0]",
                " (valkeynode n)",
                "kind",
                "`valkeynode` is not a kind this plugin reads (it reads ValkeyNode",
            ),
            (
                "kind in upper case, plural",
                b"apiVersion: valkey.io/v1alpha1\nkind: VALKEYCLUSTERS\nmetadata: {name: c}\n"
                    .to_vec(),
                "1",
                " (VALKEYCLUSTERS c)",
                "kind",
                "it reads ValkeyCluster",
            ),
            (
                "a second kind in JSON",
                in_list(
                    r#"{"apiVersion":"valkey.io/v1alpha1","kind":"ValkeyNode","kind":"Pod","metadata":{"name":"n"}}"#,
                ),
                "1/items[0]",
                " (ValkeyNode)",
                "kind",
                "the key `kind` is in this mapping twice",
            ),
            (
                "a second name in JSON",
                br#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b"}}"#.to_vec(),
                "1",
                " (Pod)",
                "metadata.name",
                "twice",
            ),
            (
                "a second label in JSON",
                in_list(
                    r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"p","labels":{"x":"1","x":"2"}}}"#,
                ),
                "1/items[0]",
                " (Pod)",
                "metadata.labels.x",
                "twice",
            ),
            (
                "a second items in JSON",
                br#"{"apiVersion":"v1","kind":"List","items":[],"items":[]}"#.to_vec(),
                "1",
                " (List)",
                "items",
                "twice",
            ),
        ];
        assert_cases(cases);
    }

    #[test]
    fn numbers_read_and_said_as_written() {
        let restarts = |n: &str| format!("{{containerStatuses: [{{name: c, restartCount: {n}}}]}}");
        let json_pod = |generation: &str| {
            format!(r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p","namespace":"x","generation":{generation}}}}}"#)
                .into_bytes()
        };
        let m = "{name: p, namespace: x}";
        let cases: Vec<Case> = vec![
            (
                "2^64, JSON",
                json_pod("18446744073709551616"),
                "1",
                " (Pod x/p)",
                "metadata.generation",
                "the number `18446744073709551616` is out of range",
            ),
            (
                "2^64, YAML",
                pod_yaml("{name: p, namespace: x, generation: 18446744073709551616}", "{}"),
                "1",
                " (Pod x/p)",
                "metadata.generation",
                "the number `18446744073709551616` is out of range",
            ),
            (
                "int32 + 1",
                pod_yaml(m, &restarts("2147483648")),
                "1",
                " (Pod x/p)",
                "status.containerStatuses[0].restartCount",
                "the number `2147483648` is out of range (this field holds a whole number from -2147483648 to 2147483647)",
            ),
            (
                "a fraction is still not whole",
                pod_yaml(m, &restarts("1.5")),
                "1",
                " (Pod x/p)",
                "status.containerStatuses[0].restartCount",
                "the number `1.5`, expected a whole number",
            ),
            (
                "1e400 in JSON",
                br#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"x"},"status":{"containerStatuses":[{"name":"c","restartCount":1e400}]}}"#.to_vec(),
                "1",
                " (Pod x/p)",
                "status.containerStatuses[0].restartCount",
                "the number `1e400` is beyond what any number field holds",
            ),
            (
                "an empty name",
                pod_yaml("{name: '', namespace: x}", "{}"),
                "1",
                " (Pod)",
                "metadata.name",
                "empty",
            ),
            (
                "an empty kind",
                b"apiVersion: v1\nkind: ''\n".to_vec(),
                "1",
                "",
                "kind",
                "empty",
            ),
        ];
        assert_cases(cases);
        // -0 is 0, as Go and the API server read it.
        for text in [
            json_pod("-0"),
            json_pod("-0.0"),
            pod_yaml("{name: p, namespace: x, generation: -0}", "{}"),
        ] {
            let s = parse_snapshot(&text, "snap").expect("-0 reads");
            assert_eq!(s.pods[0].metadata.generation, Some(0));
        }
    }

    #[test]
    fn parse_errors_name_document_object_and_field_in_plain_words() {
        let m = "{name: p, namespace: x}";
        let list =
            |item: &str| format!("apiVersion: v1\nkind: List\nitems:\n- {item}\n").into_bytes();
        let cases: Vec<Case> = vec![
            (
                ".nan",
                list(&format!("apiVersion: v1\n  kind: Pod\n  metadata: {m}\n  status: {{containerStatuses: [{{name: c, restartCount: .nan}}]}}")),
                "1/items[0]",
                " (Pod x/p)",
                "status.containerStatuses[0].restartCount",
                "`.nan` is not a number any field of a Kubernetes object holds",
            ),
            (
                "-.inf",
                pod_yaml(m, "{containerStatuses: [{name: c, restartCount: -.inf}]}"),
                "1",
                " (Pod x/p)",
                "status.containerStatuses[0].restartCount",
                "is not a number any field",
            ),
            (
                "a recursive alias",
                b"apiVersion: v1\nkind: Pod\nmetadata: &m {name: p, namespace: x, labels: *m}\n".to_vec(),
                "1",
                " (Pod)",
                "metadata.labels",
                "an alias (*name) inside the anchor (&name) it repeats",
            ),
            (
                "!!binary that is not text",
                b"apiVersion: v1\nkind: Pod\nmetadata: {name: !!binary //79, namespace: x}\n".to_vec(),
                "1",
                " (Pod)",
                "metadata.name",
                "a !!binary value that is not UTF-8 text",
            ),
            (
                "a bad item after good ones",
                format!(
                    "apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: ConfigMap}}\n- apiVersion: v1\n  kind: Pod\n  metadata: {m}\n  status: {{phase: .nan}}\n"
                )
                .into_bytes(),
                "1/items[1]",
                " (Pod x/p)",
                "status.phase",
                "`.nan`",
            ),
            (
                "a YAML duplicate key",
                b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  name: q\n".to_vec(),
                "1",
                " (Pod)",
                "metadata",
                "duplicate",
            ),
        ];
        assert_cases(cases);
        // No object and field to name: the document and the bound.
        let nested = format!("{}1{}", "{a: ".repeat(200), "}".repeat(200));
        let comment = format!("# {}\napiVersion: v1\n", "x".repeat(65 * 1024 * 1024));
        for (name, text, want) in [
            (
                "a YAML flow mapping 200 deep",
                nested.as_bytes(),
                "not valid YAML in document 1: nested deeper than 128 levels",
            ),
            (
                "a 65 MiB comment",
                comment.as_bytes(),
                "more than 64 MiB of comments",
            ),
        ] {
            let err = parse_snapshot(text, "snap").expect_err(name).to_string();
            assert!(err.contains(want), "{name}: {err}");
            assert!(!err.contains("JSON"), "{name}: {err}");
        }
    }
}
