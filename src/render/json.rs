//! `-o json` and `-o yaml`: the documents of PLUGIN.md, as they are.
//!
//! The field names and words come from the serde attributes of
//! [`crate::report`]; this module adds nothing and drops nothing, so the
//! document is exactly PLUGIN.md's: absent values are `null`, never
//! omitted. The tests below hold the status document to PLUGIN.md's example,
//! so renaming a field fails a test.

use crate::error::{Error, Result};
use serde::Serialize;

/// Pretty JSON with a trailing newline.
pub fn to_json<T: Serialize>(value: &T) -> Result<String> {
    let mut out = serde_json::to_string_pretty(value)
        .map_err(|e| Error::Other(format!("cannot write JSON: {e}")))?;
    out.push('\n');
    Ok(out)
}

/// The same document as YAML.
///
/// Written with serde-saphyr rather than serde_yaml: serde_yaml is archived
/// and unmaintained, while serde-saphyr is maintained, panic-free, already in
/// the dependency tree through kube, and is what reads snapshot files too,
/// so one YAML library serves both directions.
///
/// Strings stay on one line (no folded `>` blocks), as kubectl writes them,
/// so `grep` and line-based tools keep working on the output.
pub fn to_yaml<T: Serialize>(value: &T) -> Result<String> {
    let mut options = serde_saphyr::SerializerOptions::default();
    options.prefer_block_scalars = false;
    let mut out = serde_saphyr::to_string_with_options(value, options)
        .map_err(|e| Error::Other(format!("cannot write YAML: {e}")))?;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::sample;
    use serde_json::Value;
    use std::collections::BTreeSet;

    /// PLUGIN.md's example document, verbatim.
    const PLUGIN_EXAMPLE: &str = r#"
{
  "clusters": [{
    "namespace": "prod", "name": "cache", "protocol": "P1",
    "verdict": "Jammed", "reason": "cache-1-1 holds the permit and its pod is CrashLoopBackOff (restarts 7) for 14m",
    "holders": ["cache-1-1"], "front": "cache-0-0", "waiting": 4, "blocking": 0, "total": 6, "done": 1,
    "quietForSeconds": 840,
    "state": "Reconciling", "stateReason": "UpdatingNodes",
    "nodes": [{
      "name": "cache-1-1", "shard": 1, "index": 1, "role": "replica",
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
        // Added since PLUGIN.md's example (issue 14, the roll estimate;
        // README "Machine-readable output").
        for added in ["perNodeSeconds", "etaSeconds", "etaBasis"] {
            want.insert(format!(".clusters[].{added}"));
        }
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
            assert_eq!(&got_node[key], want, "node {key}");
        }
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
        report.clusters[0].reason = long.trim_end().to_string();
        report.clusters[0].nodes[0].reason = "two\nlines: and a # hash".into();
        let yaml = to_yaml(&report).unwrap();
        let reason_line = yaml
            .lines()
            .find(|l| l.trim_start().starts_with("reason: x x"))
            .unwrap_or_else(|| panic!("long reason not on one line:\n{yaml}"));
        assert!(reason_line.ends_with("x x"), "{reason_line}");
        let back: Value = serde_saphyr::from_str(&yaml).unwrap();
        assert_eq!(
            back["clusters"][0]["nodes"][0]["reason"],
            "two\nlines: and a # hash"
        );
    }
}
