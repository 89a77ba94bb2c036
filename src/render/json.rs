//! `-o json` and `-o yaml`: the documents of docs/plugin.md, as they are.
//!
//! The field names and words come from the serde attributes of
//! [`crate::report`]; this module adds nothing and drops nothing, so the
//! document is exactly docs/plugin.md's: absent values are `null`, never
//! omitted. The tests below hold the status document to docs/plugin.md's example,
//! so renaming a field fails a test.

use crate::error::{Error, Result};
use serde::Serialize;

/// Pretty JSON with a trailing newline.
pub fn to_json<T: Serialize>(value: &T) -> Result<String> {
    let mut out = write_json(value, serde_json::ser::PrettyFormatter::new())?;
    out.push('\n');
    Ok(out)
}

/// One line of JSON (`status --watch -o json`), no trailing newline.
pub(crate) fn to_json_line<T: Serialize>(value: &T) -> Result<String> {
    write_json(value, serde_json::ser::CompactFormatter)
}

fn write_json<T: Serialize, F: serde_json::ser::Formatter>(value: &T, inner: F) -> Result<String> {
    let mut out = Vec::with_capacity(4096);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Escaping(inner));
    value.serialize(&mut ser).map_err(|e| encode("JSON", e))?;
    String::from_utf8(out).map_err(|e| encode("JSON", e))
}

/// serde_json's formatter, escaping in strings also what it passes on as
/// it is: DEL, the C1 controls and the invisible characters that
/// [`clean`](crate::render::style::clean) shows by their code. Each becomes
/// a `\uXXXX` escape (a surrogate pair above U+FFFF): the same string to a
/// JSON reader, but nothing that drives or hides from a terminal.
struct Escaping<F>(F);

macro_rules! delegate {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        $(fn $name<W: ?Sized + std::io::Write>(&mut self, w: &mut W $(, $arg: $ty)*) -> std::io::Result<()> {
            self.0.$name(w $(, $arg)*)
        })*
    };
}

impl<F: serde_json::ser::Formatter> serde_json::ser::Formatter for Escaping<F> {
    delegate! {
        begin_array();
        end_array();
        begin_array_value(first: bool);
        end_array_value();
        begin_object();
        end_object();
        begin_object_key(first: bool);
        end_object_key();
        begin_object_value();
        end_object_value();
    }

    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut start = 0;
        for (at, c) in fragment.char_indices() {
            if crate::render::style::needs_cleaning(c) {
                w.write_all(&fragment.as_bytes()[start..at])?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(w, "\\u{unit:04x}")?;
                }
                start = at + c.len_utf8();
            }
        }
        w.write_all(&fragment.as_bytes()[start..])
    }
}

/// The same document as YAML.
///
/// Written with serde-saphyr rather than serde_yaml: serde_yaml is archived
/// and unmaintained, while serde-saphyr is maintained, panic-free, already in
/// the dependency tree through kube, and is what reads snapshot files too,
/// so one YAML library serves both directions.
///
/// serde-saphyr escapes control characters (in a double-quoted scalar) but
/// passes invisible ones (zero-width, bidirectional controls) on as they
/// are. Where a string has one, each is written as a `\u` escape, which
/// only a double-quoted scalar can carry: the value is first re-written
/// with each such character (and every U+0001, to keep the mark unique)
/// as U+0001 HEX U+0001, a control character that makes serde-saphyr
/// double-quote the string and write `\x01`; the marks are then turned
/// into `\uXXXX` (`\UXXXXXXXX` above U+FFFF).
pub fn to_yaml<T: Serialize>(value: &T) -> Result<String> {
    let out = write_yaml(value)?;
    if !out.chars().any(is_yaml_invisible) {
        return Ok(out);
    }
    let mut tree = serde_json::to_value(value).map_err(|e| encode("YAML", e))?;
    mark_invisible(&mut tree);
    Ok(unmark(&write_yaml(&tree)?))
}

fn write_yaml<T: Serialize>(value: &T) -> Result<String> {
    let mut options = serde_saphyr::SerializerOptions::default();
    options.prefer_block_scalars = false;
    let mut out =
        serde_saphyr::to_string_with_options(value, options).map_err(|e| encode("YAML", e))?;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

/// Characters [`clean`](crate::render::style::clean) escapes that
/// serde-saphyr passes on.
fn is_yaml_invisible(c: char) -> bool {
    crate::render::style::needs_cleaning(c) && !c.is_control()
}

fn mark_invisible(value: &mut serde_json::Value) {
    use serde_json::Value;
    let mark = |s: &str| -> String {
        let mut out = String::with_capacity(s.len() + 16);
        for c in s.chars() {
            if c == '\u{1}' || is_yaml_invisible(c) {
                out.push_str(&format!("\u{1}{:X}\u{1}", c as u32));
            } else {
                out.push(c);
            }
        }
        out
    };
    match value {
        Value::String(s) if s.chars().any(|c| c == '\u{1}' || is_yaml_invisible(c)) => {
            *s = mark(s);
        }
        Value::Array(items) => items.iter_mut().for_each(mark_invisible),
        Value::Object(map) => {
            // Keys are the document's own field names: no data there.
            map.values_mut().for_each(mark_invisible);
        }
        _ => {}
    }
}

/// Turns each `\x01HEX\x01` serde-saphyr wrote back into `\uXXXX`; a
/// backslash it wrote for a backslash of the data (`\\`) is passed over
/// whole, so the data's own text is never taken for a mark.
fn unmark(yaml: &str) -> String {
    let mut out = String::with_capacity(yaml.len());
    let mut rest = yaml;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("\\\\") {
            out.push_str("\\\\");
            rest = after;
            continue;
        }
        if let Some(body) = tail.strip_prefix("\\x01")
            && let Some(end) = body.find("\\x01")
            && let Ok(code) = u32::from_str_radix(&body[..end], 16)
        {
            if code > 0xFFFF {
                out.push_str(&format!("\\U{code:08X}"));
            } else {
                out.push_str(&format!("\\u{code:04X}"));
            }
            rest = &body[end + 4..];
            continue;
        }
        out.push('\\');
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

/// The error of an encoder that failed (it never should: every report is
/// plain data).
fn encode(format: &'static str, err: impl std::fmt::Display) -> Error {
    Error::Encode {
        format,
        problem: err.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;
    use crate::report::{ClusterReason, NodeReason, Protocol, RollStep};
    use serde_json::Value;
    use std::collections::BTreeSet;

    /// docs/plugin.md's example document, verbatim.
    const PLUGIN_EXAMPLE: &str = r#"
{
  "clusters": [{
    "namespace": "prod", "name": "cache", "protocol": "P1",
    "verdict": "Jammed", "reason": "cache-1-1 holds the permit and its pod is CrashLoopBackOff (restarts 7) for 14m",
    "holders": ["cache-1-1"], "front": "cache-0-0", "waiting": 4, "blocking": 0, "total": 6, "done": 1,
    "quietForSeconds": 840, "failover": null, "operator": null, "risks": [], "pendingScale": null,
    "state": "Reconciling", "stateReason": "UpdatingNodes",
    "nodes": [{
      "name": "cache-1-1", "shard": 1, "index": 1, "role": "replica", "roleSource": "event", "roleNote": null,
      "state": "Stuck", "queuePosition": null,
      "permit": "9f2c…", "desiredRevision": null, "lastRolloutHash": "41ab…",
      "ready": false, "pod": "valkey-cache-1-1-0",
      "heldForSeconds": 840, "grantedAt": "2026-11-29T10:02:11Z", "grantedAtSource": "event",
      "grantedBy": null, "grantReason": null,
      "waitingForSeconds": null,
      "reason": "pod valkey-cache-1-1-0 CrashLoopBackOff (restarts 7)",
      "evidence": [{"kind": "CrashLoopBackOff", "message": "container server waiting: CrashLoopBackOff (restarts 7)"},
                   {"kind": "HeldOverThreshold", "message": "held 14m > stall threshold 10m"}]
    }]
  }]
}"#;

    /// Every object's keys, by path (`clusters[].nodes[]`), arrays merged.
    fn shape(value: &Value, path: &str, out: &mut BTreeSet<String>) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    out.insert(format!("{path}.{key}"));
                    shape(child, &format!("{path}.{key}"), out);
                }
            }
            Value::Array(items) => {
                for item in items {
                    shape(item, &format!("{path}[]"), out);
                }
            }
            _ => {}
        }
    }

    fn keys(value: &Value) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        shape(value, "", &mut out);
        out
    }

    fn stuck_node(doc: &Value) -> &Value {
        &doc["clusters"][0]["nodes"][2]
    }

    #[test]
    fn status_document_has_exactly_plugin_md_fields() {
        let example: Value = serde_json::from_str(PLUGIN_EXAMPLE).unwrap();
        let ours: Value = serde_json::from_str(&to_json(&sample::jammed()).unwrap()).unwrap();
        let (mut want, got) = (keys(&example), keys(&ours));
        // Added since docs/plugin.md's example (issue 14, the roll estimate;
        // README "Machine-readable output").
        for added in ["perNodeSeconds", "etaSeconds", "etaBasis"] {
            want.insert(format!(".clusters[].{added}"));
        }
        // Issue 24: the kubeconfig context of each cluster (null unless
        // several were read; docs/metrics.md, README).
        want.insert(".clusters[].context".to_string());
        // Issue 12, "Last words": the container's last termination on
        // evidence about a container (README "Machine-readable output").
        let evidence = ".clusters[].nodes[].evidence[].lastTermination";
        want.insert(evidence.to_string());
        for added in ["container", "exitCode", "reason", "signal", "finishedAt"] {
            want.insert(format!("{evidence}.{added}"));
        }
        // Issue 31, what the servers say (PLUGIN.md "What the servers
        // say"; docs/servers.md).
        for added in ["deferred", "servers"] {
            want.insert(format!(".clusters[].{added}"));
        }
        want.insert(".clusters[].nodes[].server".to_string());
        // Issue 41 item 5: the operator writes status.role live (#320;
        // docs/roles.md, "Which operator writes status.role").
        want.insert(".clusters[].statusRoleLive".to_string());
        let missing: Vec<_> = want.difference(&got).collect();
        let extra: Vec<_> = got.difference(&want).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "missing {missing:?}, extra {extra:?}"
        );
    }

    #[test]
    fn values_match_plugin_md_example() {
        let example: Value = serde_json::from_str(PLUGIN_EXAMPLE).unwrap();
        let ours: Value = serde_json::from_str(&to_json(&sample::jammed()).unwrap()).unwrap();
        let (want_cluster, got_cluster) = (&example["clusters"][0], &ours["clusters"][0]);
        for key in [
            "namespace",
            "name",
            "protocol",
            "verdict",
            "reason",
            "holders",
            "front",
            "waiting",
            "blocking",
            "total",
            "done",
            "quietForSeconds",
            "state",
            "stateReason",
        ] {
            assert_eq!(got_cluster[key], want_cluster[key], "cluster {key}");
        }
        let (want_node, got_node) = (&example["clusters"][0]["nodes"][0], stuck_node(&ours));
        for (key, want) in want_node.as_object().unwrap() {
            if matches!(
                key.as_str(),
                "permit" | "lastRolloutHash" | "desiredRevision"
            ) {
                continue; // the example elides hashes
            }
            if key == "evidence" {
                // lastTermination was added since the example.
                let mut got = got_node[key].clone();
                for e in got.as_array_mut().unwrap() {
                    e.as_object_mut().unwrap().remove("lastTermination");
                }
                assert_eq!(&got, want, "node {key}");
                continue;
            }
            assert_eq!(&got_node[key], want, "node {key}");
        }
        let evidence = &got_node["evidence"];
        assert_eq!(
            evidence[0]["lastTermination"],
            serde_json::json!({"container": "server", "exitCode": 1, "reason": "Error",
                "signal": null, "finishedAt": "2026-11-29T10:14:40Z"})
        );
        assert_eq!(evidence[1]["lastTermination"], Value::Null);
    }

    #[test]
    fn absent_values_are_null_not_omitted() {
        let doc: Value = serde_json::from_str(&to_json(&sample::jammed()).unwrap()).unwrap();
        let node = stuck_node(&doc);
        for key in [
            "queuePosition",
            "desiredRevision",
            "grantedBy",
            "grantReason",
            "waitingForSeconds",
        ] {
            assert_eq!(node.get(key), Some(&Value::Null), "{key}");
        }
        let converged: Value =
            serde_json::from_str(&to_json(&sample::converged()).unwrap()).unwrap();
        let cluster = &converged["clusters"][0];
        for key in ["front", "quietForSeconds", "stateReason"] {
            assert_eq!(cluster.get(key), Some(&Value::Null), "{key}");
        }
        assert_eq!(cluster["protocol"], "P2");
        assert_eq!(cluster["nodes"][0]["grantedAtSource"], "unknown");
    }

    #[test]
    fn json_is_pretty_with_a_trailing_newline() {
        let out = to_json(&sample::converged()).unwrap();
        assert!(out.starts_with("{\n  \"clusters\""), "{out}");
        assert!(out.ends_with("}\n"));
    }

    #[test]
    fn yaml_is_the_same_document() {
        let report = sample::jammed();
        let yaml = to_yaml(&report).unwrap();
        assert!(yaml.contains("grantedBy: null"), "{yaml}");
        let from_yaml: Value = serde_saphyr::from_str(&yaml).unwrap();
        let from_json: Value = serde_json::from_str(&to_json(&report).unwrap()).unwrap();
        assert_eq!(from_yaml, from_json);
        assert!(yaml.ends_with('\n'));
    }

    #[test]
    fn yaml_keeps_long_and_odd_strings_on_one_line() {
        let mut report = sample::jammed();
        let long = "x ".repeat(80);
        report.clusters[0].reason = ClusterReason::HolderHeldOver {
            holder: long.trim_end().to_string(),
            protocol: Protocol::P1,
            held: Some(840),
            threshold: 600,
        };
        report.clusters[0].nodes[0].reason = NodeReason::Rolling(RollStep::PodNotReady {
            pod: Some("two\nlines: and a # hash".into()),
        });
        let yaml = to_yaml(&report).unwrap();
        let reason_line = yaml
            .lines()
            .find(|l| l.trim_start().starts_with("reason: x x"))
            .unwrap_or_else(|| panic!("long reason not on one line:\n{yaml}"));
        assert!(
            reason_line.ends_with(
                "x x holds the permit and has not finished rolling for 14m (stall threshold 10m)"
            ),
            "{reason_line}"
        );
        let back: Value = serde_saphyr::from_str(&yaml).unwrap();
        assert_eq!(
            back["clusters"][0]["nodes"][0]["reason"],
            "pod two\nlines: and a # hash not Ready yet"
        );
    }

    #[test]
    fn invisible_characters_are_escaped_and_the_document_is_the_same() {
        // (case, string)
        let cases: &[(&str, &str)] = &[
            ("plain", "cache-0-1"),
            ("escape", "a\u{1b}[31mb"),
            ("C1", "a\u{85}b\u{9b}c"),
            ("DEL", "a\u{7f}"),
            ("zero-width", "a\u{200b}b\u{200d}"),
            ("bidi", "x\u{202e}y\u{2066}z"),
            ("separators", "l\u{2028}p\u{2029}"),
            ("BOM", "\u{feff}x"),
            ("astral tag", "a\u{e0041}"),
            ("a U+0001 with it", "\u{1}200B\u{1}\u{200b}"),
            ("the mark's text", r"\x01200B\x01\u{200b}"),
            ("backslashes", "a\\\\x01\u{200b}"),
            ("newline", "a\nb\u{200b}"),
            ("non-ASCII letters", "caf\u{e9} \u{4e2d}"),
        ];
        for (name, text) in cases {
            let doc = serde_json::json!({"name": text, "list": [text, 1, null]});
            let json = to_json(&doc).expect("json");
            let line = to_json_line(&doc).expect("json line");
            let yaml = to_yaml(&doc).expect("yaml");
            for (format, out) in [("json", &json), ("line", &line), ("yaml", &yaml)] {
                assert!(
                    !out.chars()
                        .any(|c| crate::render::style::needs_cleaning(c) && c != '\n'),
                    "{name}: {format} passes on a raw character: {out:?}"
                );
            }
            let back: Value = serde_json::from_str(&json).expect("json reads");
            assert_eq!(back, doc, "{name}: json");
            let back: Value = serde_json::from_str(&line).expect("line reads");
            assert_eq!(back, doc, "{name}: line");
            let back: Value = serde_saphyr::from_str(&yaml).expect("yaml reads");
            assert_eq!(back, doc, "{name}: yaml {yaml}");
        }
        // Nothing to escape: the text is serde_json's own.
        let doc = serde_json::json!({"a": "b", "c": [1, 2]});
        assert_eq!(
            to_json(&doc).expect("json"),
            format!("{}\n", serde_json::to_string_pretty(&doc).expect("pretty"))
        );
    }
}
