//! The result of `grant`, `revoke`, `force` and `replace-pod`: text for people, and the
//! steering document of docs/plugin.md for `-o json|yaml`.
//!
//! Every word a person reads about steering is here, one file per kind of
//! thing said; the planner and the executor hand over facts.
//! - `refusal`: why nothing is written ([`refusal()`](refusal::refusal)), and what changed
//!   between two plans ([`change()`](refusal::change)).
//! - `warning`: what to know about a plan that goes ahead ([`warning_in()`]).
//! - `confirmation`: what a command says before it asks ([`confirmation()`]).
//! - `note`: what happened on the way ([`note_in()`]).
//! - `holder`: a holder of a permit, as all of them name it.
//! - `way_out`: what a refused command says to do next.

mod confirmation;
mod holder;
mod note;
// Reached by path from steer's tests (`refusal`, `change`).
pub(crate) mod refusal;
mod servers;
mod warning;
mod way_out;

pub(crate) use confirmation::confirmation;
pub(crate) use note::note_in;
pub(crate) use refusal::refusal_in;
pub(crate) use warning::warning_in;
pub(crate) use way_out::{way_out, way_out_text};

use crate::render::fit::{Screen, paragraph};
use crate::render::style::{Tone, clean, paint, strong};
use crate::steer::Steered;
use crate::steer::plan::DryRun;
use crate::steer::plan::{
    Action, Confirmation, Decision, EventPlan, PodDelete, Refusal, Unread, Warning,
};
use serde::Serialize;
use serde_json::Value;

/// docs/plugin.md's steering document, field for field.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SteerDocument {
    pub action: Action,
    pub namespace: String,
    pub cluster: String,
    pub node: String,
    /// `none`, `client` or `server`.
    pub dry_run: &'static str,
    pub decision: Decision,
    pub reasons: Vec<SaidDocument>,
    pub warnings: Vec<SaidDocument>,
    /// The servers of the node's shard as the plan used them; null where
    /// none was read (a `ServersUnread` warning says why).
    pub servers: Option<servers::ServersDocument>,
    pub patches: Vec<PatchDocument>,
    pub undo: Option<String>,
    /// A refusal's way out: the next commands that can help (none of
    /// them refused in turn); left out when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub next: Vec<String>,
    /// replace-pod: the pod delete and its preconditions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_delete: Option<PodDelete>,
    /// The `v1` Events the plan records (or recorded): what is sent, but
    /// the time, the host and the node's resourceVersion after its write.
    pub events: Vec<EventPlan>,
    pub exit_code: u8,
}

/// A reason or a warning of the steering document: its stable `code` (the
/// Refusal's, Warning's or note's variant name), its words, and the facts
/// scripts read of the kinds that have them (`roleSource` of a Primary;
/// `shard` and `replicas` of a NoSyncedReplica; ...).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct SaidDocument {
    pub code: &'static str,
    pub text: String,
    #[serde(flatten)]
    pub facts: serde_json::Map<String, Value>,
}

impl SaidDocument {
    fn new(code: &'static str, text: String) -> SaidDocument {
        SaidDocument {
            code,
            text,
            facts: serde_json::Map::new(),
        }
    }

    fn with(mut self, key: &str, value: impl Serialize) -> SaidDocument {
        self.facts.insert(
            key.to_string(),
            serde_json::to_value(value).unwrap_or(Value::Null),
        );
        self
    }
}

impl SaidDocument {
    /// A Primary refusal's or warning's facts.
    fn primary(self, node: &str, source: Option<crate::report::RoleSource>) -> SaidDocument {
        self.with("node", node).with("roleSource", source)
    }

    /// A NoSyncedReplica refusal's or warning's facts.
    fn no_synced_replica(
        self,
        node: &str,
        shard: u32,
        replicas: &[crate::report::ReplicaLink],
    ) -> SaidDocument {
        self.with("node", node)
            .with("shard", shard)
            .with("replicas", replicas_facts(replicas))
    }
}

/// The replicas of a shard with none synced, as the document lists them.
fn replicas_facts(replicas: &[crate::report::ReplicaLink]) -> Value {
    Value::Array(
        replicas
            .iter()
            .map(|r| {
                serde_json::json!({
                    "node": r.node,
                    "link": r.link,
                    "syncing": r.syncing,
                    "lagBytes": r.lag_bytes,
                    "why": crate::render::words::ReplicaSaid(r, true).to_string(),
                })
            })
            .collect(),
    )
}

fn reason_document(r: &Refusal, protocol: crate::report::Protocol) -> SaidDocument {
    let said = SaidDocument::new(r.code(), refusal_in(r, protocol));
    match r {
        Refusal::Primary { node, source, .. } => said.primary(node, *source),
        Refusal::NoSyncedReplica {
            node,
            shard,
            replicas,
        } => said.no_synced_replica(node, *shard, replicas),
        _ => said,
    }
}

fn warning_document(w: &Warning, protocol: crate::report::Protocol) -> SaidDocument {
    let said = SaidDocument::new(w.code(), warning_in(w, protocol));
    match w {
        Warning::Primary { node, source, .. } => said.primary(node, *source),
        Warning::NoSyncedReplica {
            node,
            shard,
            replicas,
        } => said.no_synced_replica(node, *shard, replicas),
        Warning::ReplicaLags {
            replica,
            primary,
            lag_bytes,
        } => said
            .with("node", replica)
            .with("primary", primary)
            .with("lagBytes", lag_bytes),
        Warning::ServersUnread { shard, why } => {
            let unread: Vec<Value> = match why {
                Unread::Servers(missing) => missing
                    .iter()
                    .map(|(node, note)| serde_json::json!({"node": node, "why": note.to_string()}))
                    .collect(),
                _ => Vec::new(),
            };
            let cause = match why {
                Unread::Off => "off",
                Unread::Cluster { .. } => "cluster",
                Unread::NotInFile => "not in file",
                Unread::Servers(_) => "servers",
            };
            said.with("shard", shard)
                .with("cause", cause)
                .with("servers", unread)
        }
        _ => said,
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PatchDocument {
    pub kind: &'static str,
    pub name: String,
    pub resource_version: Option<String>,
    pub patch: Value,
}

pub(crate) fn dry_run_word(d: DryRun) -> &'static str {
    match d {
        DryRun::None => "none",
        DryRun::Client => "client",
        DryRun::Server => "server",
    }
}

/// The steering document of a result.
pub(crate) fn document(s: &Steered) -> SteerDocument {
    let p = &s.plan;
    SteerDocument {
        action: p.action,
        namespace: p.namespace.clone(),
        cluster: p.cluster.clone(),
        node: p.node.clone(),
        dry_run: dry_run_word(p.dry_run),
        decision: p.decision,
        reasons: p
            .reasons
            .iter()
            .map(|r| reason_document(r, p.protocol))
            .collect(),
        warnings: p
            .warnings
            .iter()
            .map(|w| warning_document(w, p.protocol))
            .chain(
                s.notes
                    .iter()
                    .map(|n| SaidDocument::new(n.code(), note_in(n, p.protocol))),
            )
            .collect(),
        servers: servers::document(p.servers.as_ref()),
        patches: p
            .patches
            .iter()
            .map(|x| PatchDocument {
                kind: x.kind,
                name: x.name.clone(),
                resource_version: x.resource_version.clone(),
                patch: x.patch.clone(),
            })
            .collect(),
        undo: p.undo.clone(),
        next: way_out(p),
        pod_delete: p.pod_delete.clone(),
        events: p.events.clone(),
        exit_code: s.exit.code(),
    }
}

/// What a terminal shows before it reads the answer: the plan, the
/// question, and `Proceed? [y/N] `. The plan text is cleaned by [`text`];
/// the question names nodes, so it is cleaned here.
pub(crate) fn prompt(planned: &Steered, question: &Confirmation, color: bool) -> String {
    format!(
        "{}\n{}\nProceed? [y/N] ",
        text(planned, color),
        clean(&confirmation(question))
    )
}

/// A node name given without `-n` that is found in several namespaces.
pub(crate) fn several_namespaces(node: &str, namespaces: &[&str]) -> String {
    format!(
        "ValkeyNode {node} exists in several namespaces ({}): say which with -n",
        crate::render::words::listed(namespaces)
    )
}

/// The result for people: the decision, the reasons, the warnings, each
/// patch, the Events and the undo command.
pub(crate) fn text(s: &Steered, screen: impl Into<Screen>) -> String {
    let screen: Screen = screen.into();
    let (color, width) = (screen.color, screen.width);
    let p = &s.plan;
    let mut out = String::new();
    let target = format!("{} {}/{}", p.action, p.namespace, p.node);
    let context = if p.cluster.is_empty() {
        format!("protocol {}", p.protocol)
    } else {
        format!("ValkeyCluster {}, {}", p.cluster, p.protocol)
    };
    let (word, tone) = match (p.decision, p.dry_run) {
        (Decision::Refused, _) => ("REFUSED: nothing was written", Tone::Bad),
        (Decision::Written, _) if s.exit.code() != 0 => ("WRITTEN, but check below", Tone::Warn),
        (Decision::Written, _) => ("written", Tone::Good),
        (Decision::Planned, DryRun::Client) => ("planned (dry run: nothing sent)", Tone::Queue),
        (Decision::Planned, DryRun::Server) => (
            "planned (server dry run: the API server accepted the patches, nothing stored)",
            Tone::Queue,
        ),
        (Decision::Planned, DryRun::None) => ("planned", Tone::Queue),
    };
    out.push_str(&paragraph(
        &format!(
            "{} ({}): {}",
            strong(&clean(&target), color),
            clean(&context),
            paint(word, tone, true, color)
        ),
        width,
        "",
        "    ",
    ));
    for r in &p.reasons {
        out.push_str(&paragraph(
            &clean(&refusal_in(r, p.protocol)),
            width,
            "  - ",
            "    ",
        ));
    }
    if !p.way_out.is_empty() {
        out.push_str(&strong("way out:", color));
        out.push('\n');
        out.push_str(&way_out_text(p, width));
    }
    for n in &s.notes {
        out.push_str(&paragraph(
            &clean(&note_in(n, p.protocol)),
            width,
            &format!("{} ", paint("note:", Tone::Warn, true, color)),
            "  ",
        ));
    }
    for w in &p.warnings {
        out.push_str(&paragraph(
            &clean(&warning_in(w, p.protocol)),
            width,
            &format!("{} ", paint("warning:", Tone::Warn, true, color)),
            "  ",
        ));
    }
    // What the servers said, before any write or question.
    out.push_str(&servers::text(p.servers.as_ref()));
    let sent = match (p.decision, p.dry_run) {
        (Decision::Written, _) => "sent",
        (_, DryRun::Server) => "sent with dryRun=All",
        _ => "to send",
    };
    for x in &p.patches {
        out.push_str(&format!(
            "patch {} {} (resourceVersion {}, {sent}):\n  {}\n",
            x.kind,
            clean(&x.name),
            clean(x.resource_version.as_deref().unwrap_or("none")),
            clean(&x.patch.to_string())
        ));
    }
    if let Some(d) = &p.pod_delete {
        out.push_str(&paragraph(
            &format!(
                "delete pod {} (preconditions uid {}, resourceVersion {}; {sent}): revision {}, StatefulSet {} wants {}",
                clean(&d.pod),
                clean(&d.uid),
                clean(&d.resource_version),
                clean(&d.revision),
                clean(&d.stateful_set),
                clean(&d.update_revision)
            ),
            width,
            "",
            "  ",
        ));
    }
    let recorded = if p.decision == Decision::Written {
        "recorded"
    } else {
        "to record"
    };
    for e in &p.events {
        out.push_str(&paragraph(
            &format!(
                "event {} on {} ({recorded}): {}",
                e.reason,
                clean(e.node()),
                clean(&e.note)
            ),
            width,
            "",
            "  ",
        ));
    }
    if let Some(confirm) = &p.confirmation
        && p.decision == Decision::Planned
    {
        out.push_str(&paragraph(
            &format!("a real run asks first: {}", clean(&confirmation(confirm))),
            width,
            "",
            "  ",
        ));
    }
    if let Some(undo) = &p.undo {
        let label = if p.decision == Decision::Written {
            "undo with:"
        } else {
            "undo would be:"
        };
        // A command to paste stays on one line: on its own when the label
        // leaves it too little room.
        let line = format!("{label} {}", clean(undo));
        match width {
            Some(w) if crate::render::fit::columns(&line) > w => {
                out.push_str(&format!("{label}\n  {}\n", clean(undo)));
            }
            _ => out.push_str(&format!("{line}\n")),
        }
    }
    out
}

/// `cache-0-0 is its shard's primary`, or, when its judged role is unsure,
/// `cache-0-0 may be its shard's primary (its role is unsure: why)`.
fn is_primary(
    node: &str,
    unsure: Option<&crate::report::RoleNote>,
    source: Option<crate::report::RoleSource>,
) -> String {
    match (unsure, source) {
        (None, Some(crate::report::RoleSource::Server)) => {
            format!("{node} is its shard's primary (its own server says so)")
        }
        (None, _) => format!("{node} is its shard's primary"),
        (Some(why), _) => {
            format!("{node} may be its shard's primary (its role is unsure: {why})")
        }
    }
}

/// Each replica of a shard with none synced, and why it is not:
/// `cache-1-1 link down for 3m, cache-1-2 syncing`.
fn replicas_not_synced(replicas: &[crate::report::ReplicaLink]) -> String {
    if replicas.is_empty() {
        return "it has no replica".to_string();
    }
    replicas
        .iter()
        .map(|r| crate::render::words::ReplicaSaid(r, false).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Exit;
    use crate::steer::plan::{
        EventPlan, EventType, NodePatch, PatchEffect, Plan, Refusal, Warning,
    };
    use serde_json::json;
    use std::collections::BTreeSet;

    fn planned() -> Plan {
        let mut p = crate::fixture::sample::plan(Action::Grant, "cache-0-1");
        p.dry_run = DryRun::Client;
        p.warnings = vec![Warning::NotFront {
            node: "cache-0-1".into(),
            front: Some("cache-0-2".into()),
        }];
        p.patches = vec![NodePatch {
            kind: "ValkeyNode",
            name: "cache-0-1".into(),
            resource_version: Some("41".into()),
            patch: json!({"metadata": {"resourceVersion": "41"}}),
            effect: PatchEffect::Grant,
            previous: None,
            primary: false,
        }];
        p.events = vec![EventPlan::about_node(
            EventType::Normal,
            "cache-0-1",
            Some("uid-1".into()),
            "ManualRollPermitGranted",
            "alice granted".into(),
        )];
        p.undo = Some("kubectl valkey-roll revoke cache-0-1 -n prod".into());
        p.revision = Some("h1".into());
        p
    }

    #[test]
    fn document_has_exactly_plugin_md_fields() {
        let doc = serde_json::to_value(document(&Steered::planned(planned()))).unwrap();
        let got: BTreeSet<&str> = doc
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let want: BTreeSet<&str> = [
            "action",
            "namespace",
            "cluster",
            "node",
            "dryRun",
            "decision",
            "reasons",
            "warnings",
            "servers",
            "patches",
            "undo",
            "events",
            "exitCode",
        ]
        .into_iter()
        .collect();
        assert_eq!(got, want);
        let patch_keys: BTreeSet<&str> = doc["patches"][0]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            patch_keys,
            ["kind", "name", "resourceVersion", "patch"]
                .into_iter()
                .collect()
        );
        assert_eq!(doc["action"], "grant");
        assert_eq!(doc["dryRun"], "client");
        assert_eq!(doc["decision"], "planned");
        assert_eq!(doc["exitCode"], 0);
        assert_eq!(doc["patches"][0]["resourceVersion"], "41");
    }

    #[test]
    fn refusal_document_has_null_undo_and_exit_4() {
        let mut p = planned();
        p.refuse(Refusal::HoldsNothing {
            node: "cache-0-1".into(),
        });
        let doc = serde_json::to_value(document(&Steered::planned(p))).unwrap();
        assert_eq!(doc["decision"], "refused");
        assert_eq!(doc["undo"], Value::Null);
        assert_eq!(doc["exitCode"], 4);
        assert_eq!(doc["patches"], json!([]));
        assert_eq!(
            doc["reasons"],
            json!([{"code": "HoldsNothing", "text": "cache-0-1 holds no permit: nothing to revoke"}])
        );
    }

    #[test]
    fn notes_join_the_warnings_and_exit_6_shows() {
        let mut p = planned();
        p.decision = Decision::Written;
        p.dry_run = DryRun::None;
        let s = Steered {
            plan: p,
            exit: Exit::OtherHolder,
            notes: vec![crate::steer::Note::HolderAppeared {
                holder: "cache-0-2".into(),
                state: crate::report::NodeState::Rolling,
                node: "cache-0-1".into(),
            }],
        };
        let doc = serde_json::to_value(document(&s)).unwrap();
        assert_eq!(doc["exitCode"], 6);
        assert_eq!(doc["warnings"].as_array().map(Vec::len), Some(2));
        let t = text(&s, false);
        assert!(t.contains("WRITTEN, but check below"), "{t}");
        assert!(
            t.contains("note: after the write, cache-0-2 holds a permit too (Rolling)"),
            "{t}"
        );
        assert!(
            t.contains("undo with: kubectl valkey-roll revoke cache-0-1 -n prod"),
            "{t}"
        );
    }

    #[test]
    fn text_names_decision_patch_event_and_undo() {
        let t = text(&Steered::planned(planned()), false);
        for want in [
            "grant prod/cache-0-1 (ValkeyCluster cache, P1): planned (dry run: nothing sent)",
            "warning: cache-0-1 is not the walk's front (cache-0-2 is)",
            "patch ValkeyNode cache-0-1 (resourceVersion 41, to send):",
            "event ManualRollPermitGranted on cache-0-1 (to record): alice granted",
            "undo would be: kubectl valkey-roll revoke cache-0-1 -n prod",
        ] {
            assert!(t.contains(want), "missing {want:?} in\n{t}");
        }
        assert!(!t.contains('\u{1b}'));
    }

    #[test]
    fn control_characters_from_a_reason_do_not_reach_the_terminal() {
        let mut p = planned();
        p.events[0].note = "alice granted: evil\u{1b}[2J\nline".into();
        let t = text(&Steered::planned(p), false);
        assert!(!t.contains('\u{1b}'), "{t}");
        assert!(t.contains(r"evil\u{1b}[2J line"), "{t}");
    }
}
