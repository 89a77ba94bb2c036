//! `explain`: one node, or one cluster, as facts, a timeline of events, the
//! reasoning behind its state in plain words, and what a person could do
//! next.
//!
//! The report carries the verdicts and the facts the classifier derived; the
//! snapshot's own objects (when in view) add what a person wants to see
//! as-is: the conditions and the ValkeyCluster's message.

use super::duration::{age, human, human_or, timestamp};
use super::style::{clean, paint, state_tone, strong};
use super::table::{borderless, headline, state_cell};
use crate::report::{
    ClusterReport, EvidenceKind, GrantSource, NodeReport, NodeState, Protocol, TimelineEntry,
    Verdict,
};
use crate::snapshot::{Condition, ValkeyCluster, ValkeyNode, WorkloadKind};
use comfy_table::Cell;
use jiff::Timestamp;
use serde::Serialize;
use std::fmt::Write as _;

/// `explain NODE -o json|yaml`: the node's entry of the status document with
/// its events added as `timeline`.
#[derive(Debug, Serialize)]
pub struct NodeExplanation<'a> {
    #[serde(flatten)]
    pub node: &'a NodeReport,
    pub timeline: &'a [TimelineEntry],
}

/// `explain CLUSTER -o json|yaml`: the cluster's entry of the status
/// document with its events added as `timeline`.
#[derive(Debug, Serialize)]
pub struct ClusterExplanation<'a> {
    #[serde(flatten)]
    pub cluster: &'a ClusterReport,
    pub timeline: &'a [TimelineEntry],
}

/// Everything known about one node, and why it got its state.
///
/// `object` is the ValkeyNode as read (for its conditions and workload
/// kind), when in view.
pub fn explain_node(
    cluster: &ClusterReport,
    node: &NodeReport,
    object: Option<&ValkeyNode>,
    timeline: &[TimelineEntry],
    now: Timestamp,
    color: bool,
) -> String {
    let x = NodeView {
        cluster,
        node,
        object,
    };
    let mut out = String::new();
    let state_word = paint(
        &node.state.to_string().to_uppercase(),
        state_tone(node.state),
        true,
        color,
    );
    let _ = writeln!(
        out,
        "ValkeyNode {}  {state_word}",
        clean(&format!("{}/{}", cluster.namespace, node.name))
    );
    let _ = writeln!(out, "  {}", clean(&x.place()));
    if !node.reason.is_empty() {
        let _ = writeln!(out, "  {}", clean(&node.reason));
    }

    section(&mut out, "Facts", color);
    for (key, value) in x.facts(now) {
        let _ = writeln!(out, "  {key:<18} {}", clean(&value));
    }

    section(&mut out, "Evidence", color);
    if node.evidence.is_empty() {
        out.push_str("  none\n");
    } else {
        let rows = node
            .evidence
            .iter()
            .map(|e| vec![Cell::new(e.kind.to_string()), Cell::new(clean(&e.message))])
            .collect();
        out.push_str(&borderless(&["KIND", "MESSAGE"], rows, "  ", color));
    }

    if let Some(object) = object {
        section(&mut out, "Conditions", color);
        out.push_str(&conditions(object.conditions(), now, color));
    }

    section(&mut out, "Timeline", color);
    out.push_str(&timeline_table(timeline, now, color));

    section(&mut out, &format!("Why {}", node.state), color);
    for paragraph in x.reasoning(now) {
        let _ = writeln!(out, "  {}", clean(&paragraph));
    }

    section(&mut out, "What you could do next", color);
    for step in x.next_steps() {
        let _ = writeln!(out, "  - {}", clean(&step));
    }
    out
}

/// Why a cluster's queue is or is not moving: the holder, or the walk's
/// front and why, or the ValkeyCluster's own word.
///
/// `object` is the ValkeyCluster as read (for its conditions and message),
/// when in view.
pub fn explain_cluster(
    cluster: &ClusterReport,
    object: Option<&ValkeyCluster>,
    timeline: &[TimelineEntry],
    now: Timestamp,
    color: bool,
) -> String {
    let mut out = String::from("ValkeyCluster ");
    out.push_str(&headline(cluster, color));

    let why = match cluster.verdict {
        Verdict::Converged => "Why it is at rest",
        Verdict::Rolling => "Why the queue is moving",
        _ => "Why the queue is not moving",
    };
    section(&mut out, why, color);
    for paragraph in cluster_reasoning(cluster, object) {
        let _ = writeln!(out, "  {}", clean(&paragraph));
    }

    if let Some(object) = object {
        section(&mut out, "Conditions", color);
        out.push_str(&conditions(object.conditions(), now, color));
    }

    section(&mut out, "Nodes, in walk order", color);
    if cluster.nodes.is_empty() {
        out.push_str("  none\n");
    } else {
        let rows = cluster
            .nodes
            .iter()
            .map(|n| {
                vec![
                    Cell::new(clean(&n.name)),
                    state_cell(n.state, color),
                    Cell::new(
                        n.queue_position
                            .map_or_else(|| "-".into(), |q| q.to_string()),
                    ),
                    Cell::new(if n.reason.is_empty() {
                        "-".to_string()
                    } else {
                        clean(&n.reason)
                    }),
                ]
            })
            .collect();
        out.push_str(&borderless(
            &["NODE", "STATE", "QUEUE", "REASON"],
            rows,
            "  ",
            color,
        ));
    }

    section(&mut out, "Timeline", color);
    out.push_str(&timeline_table(timeline, now, color));

    section(&mut out, "What you could do next", color);
    for step in cluster_next_steps(cluster) {
        let _ = writeln!(out, "  - {}", clean(&step));
    }
    out
}

fn section(out: &mut String, title: &str, color: bool) {
    out.push('\n');
    out.push_str(&strong(title, color));
    out.push('\n');
}

fn conditions(conditions: &[Condition], now: Timestamp, color: bool) -> String {
    if conditions.is_empty() {
        return "  none\n".into();
    }
    let rows = conditions
        .iter()
        .map(|c| {
            let text = |s: &Option<String>| s.as_deref().map_or_else(|| "-".into(), clean);
            vec![
                Cell::new(clean(&c.type_)),
                Cell::new(clean(&c.status)),
                Cell::new(text(&c.reason)),
                Cell::new(
                    c.last_transition_time
                        .as_ref()
                        .map_or_else(|| "-".into(), |t| age(t.0, now)),
                ),
                Cell::new(text(&c.message)),
            ]
        })
        .collect();
    borderless(
        &["TYPE", "STATUS", "REASON", "AGE", "MESSAGE"],
        rows,
        "  ",
        color,
    )
}

fn timeline_table(timeline: &[TimelineEntry], now: Timestamp, color: bool) -> String {
    if timeline.is_empty() {
        return "  no events found (events expire, after one hour by default)\n".into();
    }
    let rows = timeline
        .iter()
        .map(|e| {
            vec![
                Cell::new(e.time.map_or_else(|| "-".into(), timestamp)),
                Cell::new(e.time.map_or_else(|| "-".into(), |t| age(t, now))),
                Cell::new(clean(&e.reason)),
                Cell::new(clean(&e.regarding)),
                Cell::new(clean(&e.message)),
            ]
        })
        .collect();
    borderless(
        &["TIME", "AGE", "REASON", "ABOUT", "MESSAGE"],
        rows,
        "  ",
        color,
    )
}

/// One node seen with its cluster: the pieces of prose are built here.
struct NodeView<'a> {
    cluster: &'a ClusterReport,
    node: &'a NodeReport,
    object: Option<&'a ValkeyNode>,
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn or_dash(s: &Option<String>) -> String {
    s.clone().unwrap_or_else(|| "-".into())
}

impl NodeView<'_> {
    fn ns(&self) -> &str {
        &self.cluster.namespace
    }

    fn threshold(&self) -> String {
        human(self.cluster.stall_threshold_seconds)
    }

    /// "cluster prod/cache (JAMMED, P1) · shard 1, index 1 · replica"
    fn place(&self) -> String {
        let n = self.node;
        let mut parts = vec![format!(
            "cluster {}/{} ({}, {})",
            self.cluster.namespace,
            self.cluster.name,
            self.cluster.verdict.to_string().to_uppercase(),
            match self.cluster.protocol {
                Protocol::Unknown => "protocol unknown".to_string(),
                p => p.to_string(),
            }
        )];
        match (n.shard, n.index) {
            (Some(s), Some(i)) => parts.push(format!("shard {s}, index {i}")),
            (Some(s), None) => parts.push(format!("shard {s}")),
            _ => {}
        }
        let role = n.role.clone().unwrap_or_else(|| "no role reported".into());
        parts.push(if n.facts.is_primary {
            format!("{role} (the shard's primary)")
        } else {
            role
        });
        parts.join(" · ")
    }

    fn workload(&self) -> String {
        let kind = match self.object.map(ValkeyNode::workload_kind) {
            Some(WorkloadKind::Deployment) => "deployment",
            _ => "statefulset",
        };
        format!("{kind}/valkey-{}", self.node.name)
    }

    fn facts(&self, now: Timestamp) -> Vec<(&'static str, String)> {
        let n = self.node;
        let f = &n.facts;
        let mut rows = vec![
            ("permit", or_dash(&n.permit)),
            (
                "desired revision",
                match &n.desired_revision {
                    Some(h) => h.clone(),
                    None if f.asks => "asks, revision unknown".into(),
                    None => "- (asks for nothing)".into(),
                },
            ),
            ("lastRolloutHash", or_dash(&n.last_rollout_hash)),
            ("ready", yes_no(n.ready).into()),
            (
                "healthy",
                if f.healthy {
                    "yes".into()
                } else if f.unhealthy_because.is_empty() {
                    "no".into()
                } else {
                    format!("no: {}", f.unhealthy_because.join("; "))
                },
            ),
            ("cluster-owned", yes_no(f.cluster_owned).into()),
            (
                "pod",
                match (&n.pod, f.pod_ready) {
                    (Some(pod), Some(r)) => format!("{pod} (Ready: {})", yes_no(r)),
                    (Some(pod), None) => format!("{pod} (not found)"),
                    (None, _) => "- (status.podName is not set)".into(),
                },
            ),
            ("workload", self.workload_facts()),
        ];
        if f.holder || n.permit.is_some() || n.granted_at.is_some() {
            rows.push(("granted at", self.grant_time(now)));
            if let Some(by) = &n.granted_by {
                rows.push(("granted by", by.clone()));
            }
            if let Some(reason) = &n.grant_reason {
                rows.push(("grant reason", reason.clone()));
            }
            rows.push((
                "held for",
                format!(
                    "{} (stall threshold {})",
                    human_or(n.held_for_seconds, "unknown"),
                    self.threshold()
                ),
            ));
            rows.push((
                "roll complete",
                match (f.complete, f.complete_since) {
                    (true, Some(t)) => format!("yes, for {} (since {})", age(t, now), timestamp(t)),
                    (true, None) => "yes, since an unknown time".into(),
                    (false, _) => "no".into(),
                },
            ));
        }
        for source in &f.unavailable_sources {
            rows.push(("not available", source.clone()));
        }
        if let Some(q) = n.queue_position {
            rows.push(("queue position", q.to_string()));
        }
        if let Some(w) = n.waiting_for_seconds {
            let since = f
                .waiting_since
                .map(|t| format!(" (since {})", timestamp(t)))
                .unwrap_or_default();
            rows.push(("waiting for", format!("{}{since}", human(w))));
        }
        if let Some(rv) = &f.resource_version {
            rows.push(("resourceVersion", rv.clone()));
        }
        rows
    }

    fn workload_facts(&self) -> String {
        let f = &self.node.facts;
        let mut words = Vec::new();
        match f.template_roll_in_progress {
            Some(true) => words.push("template roll in progress"),
            Some(false) => words.push("no template roll in progress"),
            None => {}
        }
        match f.workload_rolled_out {
            Some(true) => words.push("rolled out"),
            Some(false) => words.push("not rolled out"),
            None => {}
        }
        if words.is_empty() {
            format!("{} (not found)", self.workload())
        } else {
            format!("{}: {}", self.workload(), words.join(", "))
        }
    }

    fn grant_time(&self, now: Timestamp) -> String {
        let n = self.node;
        match (n.granted_at, n.granted_at_source) {
            (Some(t), source) => format!(
                "{} ({} ago; source: {source}{})",
                timestamp(t),
                age(t, now),
                if source == GrantSource::ManagedFields {
                    ", an upper bound"
                } else {
                    ""
                }
            ),
            (None, _) => "unknown (no source had it; see below)".into(),
        }
    }

    fn has(&self, kind: EvidenceKind) -> bool {
        self.node.evidence.iter().any(|e| e.kind == kind)
    }

    /// Failure evidence from the pod or workload (not the clock's).
    fn failures(&self) -> Vec<String> {
        self.node
            .evidence
            .iter()
            .filter(|e| {
                !matches!(
                    e.kind,
                    EvidenceKind::HeldOverThreshold | EvidenceKind::NotReleased
                )
            })
            .map(|e| e.message.clone())
            .collect()
    }

    /// Failure evidence other than the superseded pod (whose fix is its
    /// deletion, not the template).
    fn has_failure_beyond_superseded(&self) -> bool {
        self.node.evidence.iter().any(|e| {
            !matches!(
                e.kind,
                EvidenceKind::HeldOverThreshold
                    | EvidenceKind::NotReleased
                    | EvidenceKind::SupersededPod
            )
        })
    }

    /// Nodes ahead of this one in walk order that the walk must pass first.
    fn ahead(&self) -> Vec<String> {
        let mut ahead = Vec::new();
        for n in &self.cluster.nodes {
            if n.name == self.node.name {
                break;
            }
            if matches!(n.state, NodeState::Waiting | NodeState::Blocking) {
                ahead.push(format!("{} ({})", n.name, n.state));
            }
        }
        ahead
    }

    fn holders_besides_me(&self) -> Vec<&str> {
        self.cluster
            .holders
            .iter()
            .filter(|h| **h != self.node.name)
            .map(String::as_str)
            .collect()
    }

    fn superseded_trap(&self) -> Option<String> {
        if !self.has(EvidenceKind::SupersededPod) {
            return None;
        }
        let pod = self.node.pod.as_deref().unwrap_or("its pod");
        Some(format!(
            "Its pod {pod} runs a superseded revision of {} and is not Ready. Under the \
             OrderedReady policy the StatefulSet will not replace a pod until it is Ready, so \
             it will not replace this one, even after the template is reverted \
             (kubernetes#67250, valkey-operator#408). Deleting the pod is the fix.",
            self.workload()
        ))
    }

    fn reasoning(&self, now: Timestamp) -> Vec<String> {
        let n = self.node;
        let f = &n.facts;
        let waiting = self.cluster.waiting;
        let behind = match waiting {
            0 => "no node waits behind it".to_string(),
            1 => "1 node waits behind it".to_string(),
            w => format!("{w} nodes wait behind it"),
        };
        let held = human_or(n.held_for_seconds, "an unknown time");
        let mut out = Vec::new();
        match n.state {
            NodeState::Standalone => out.push(
                "It has no controlling ValkeyCluster owner, so roll permits do not apply: its \
                 node controller applies template changes at once."
                    .into(),
            ),
            NodeState::StalePermit => out.push(format!(
                "It holds the permit {}, but asks for {} and its lastRolloutHash is {}: the \
                 permit is for a revision it does not build. The node controller drops such a \
                 permit within seconds when it runs; this one has been held {held}. While it \
                 stays, the cluster controller grants no other node; {behind}.",
                or_dash(&n.permit),
                or_dash(&n.desired_revision),
                or_dash(&n.last_rollout_hash),
            )),
            NodeState::Stuck => {
                let failures = self.failures();
                if !failures.is_empty() {
                    out.push(format!(
                        "It holds the permit and its pod or workload shows failure: {}. Its \
                         roll cannot complete until that is fixed.",
                        failures.join("; ")
                    ));
                }
                out.extend(self.superseded_trap());
                if self.has(EvidenceKind::NotReleased) {
                    let complete = match f.complete_since {
                        Some(t) => format!("has been complete for {}", age(t, now)),
                        None => format!("is complete (since an unknown time; held {held})"),
                    };
                    out.push(format!(
                        "Its roll {complete} and the permit is still held, past the stall \
                         threshold {}: the node controller has not released it.",
                        self.threshold()
                    ));
                } else if self.has(EvidenceKind::HeldOverThreshold) {
                    out.push(format!(
                        "Its roll is not complete after {held}, more than the stall threshold \
                         {}.",
                        self.threshold()
                    ));
                }
                if out.is_empty() {
                    out.push(format!(
                        "It holds the permit and is judged stuck after {held}."
                    ));
                }
                out.push(format!(
                    "While it holds the permit the cluster controller grants no other node: \
                     {behind}."
                ));
            }
            NodeState::Settling => out.push(format!(
                "Its roll is complete{}, and the permit is still held: the controller has yet \
                 to release it, which normally takes seconds.",
                f.complete_since
                    .map(|t| format!(" (pod Ready since {})", timestamp(t)))
                    .unwrap_or_default()
            )),
            NodeState::Rolling => {
                let doing = match (f.template_roll_in_progress, f.pod_ready) {
                    (Some(true), _) => "its workload is rolling the new template",
                    (_, Some(false)) => "its new pod is not Ready yet",
                    _ => "its roll has not completed yet",
                };
                out.push(format!(
                    "It holds the permit and {doing}; held {held} of the {} stall threshold, \
                     with no failure seen.",
                    self.threshold()
                ));
            }
            NodeState::Waiting => {
                let asked = n
                    .desired_revision
                    .clone()
                    .unwrap_or_else(|| "a revision".into());
                let queue = n
                    .queue_position
                    .map(|q| format!(", queue position {q}"))
                    .unwrap_or_default();
                out.push(format!(
                    "It asks for {asked} and waits for the cluster controller's walk to reach \
                     it{queue}. The controller grants one node at a time, in walk order."
                ));
                let holders = self.holders_besides_me();
                if !holders.is_empty() {
                    out.push(format!(
                        "The permit is held by {}; no grant happens until it is released.",
                        holders.join(", ")
                    ));
                }
                let ahead = self.ahead();
                if ahead.is_empty() {
                    out.push("No node is ahead of it: it is the walk's front.".into());
                } else {
                    out.push(format!("Ahead of it: {}.", ahead.join(", ")));
                }
            }
            NodeState::Blocking => {
                let why = if f.unhealthy_because.is_empty() {
                    "it is not healthy".to_string()
                } else {
                    f.unhealthy_because.join("; ")
                };
                out.push(format!(
                    "It holds no permit and asks for nothing, but {why}. The cluster \
                     controller's walk stops at the first node that is not healthy, so every \
                     node after it in walk order waits."
                ));
                if self.cluster.front.as_deref() == Some(n.name.as_str()) {
                    out.push(format!("It is the walk's front: {behind}."));
                }
                let failures = self.failures();
                if !failures.is_empty() {
                    out.push(format!("Failure evidence: {}.", failures.join("; ")));
                }
            }
            NodeState::Converged => out
                .push("It holds no permit, asks for nothing and is healthy: nothing to do.".into()),
        }
        if n.state != NodeState::Stuck {
            out.extend(self.superseded_trap());
        }
        out
    }

    fn next_steps(&self) -> Vec<String> {
        let n = self.node;
        let ns = self.ns();
        let name = &n.name;
        let p2 = self.cluster.protocol == Protocol::P2;
        let mut steps = Vec::new();
        if self.has(EvidenceKind::SupersededPod) {
            let pod = n.pod.as_deref().unwrap_or("<pod>");
            steps.push(format!(
                "Delete the superseded pod so the StatefulSet replaces it on its current \
                 revision: `kubectl delete pod {pod} -n {ns}`. Reverting the template alone \
                 does not help."
            ));
        }
        let pod_hint = |steps: &mut Vec<String>| {
            if let Some(pod) = &n.pod {
                let logs = if self.has(EvidenceKind::CrashLoopBackOff)
                    || self.has(EvidenceKind::OomKilled)
                {
                    format!(" and `kubectl logs {pod} -n {ns} --previous`")
                } else {
                    String::new()
                };
                steps.push(format!(
                    "Look at the pod: `kubectl describe pod {pod} -n {ns}`{logs}."
                ));
            }
        };
        match n.state {
            NodeState::Stuck => {
                if !self.failures().is_empty() {
                    pod_hint(&mut steps);
                    if self.has_failure_beyond_superseded() {
                        steps.push(self.fix_cause());
                    }
                } else if self.has(EvidenceKind::NotReleased) {
                    steps.push(
                        "Check that the valkey-operator is running and look at its logs: the \
                         node controller releases the permit once the roll is rolled out."
                            .into(),
                    );
                } else {
                    steps.push(format!(
                        "See why the roll is slow: `kubectl describe {} -n {ns}`.",
                        self.workload()
                    ));
                    pod_hint(&mut steps);
                    steps.push(
                        "If it is only slow, wait, or judge with a longer --stall-threshold."
                            .into(),
                    );
                }
                if p2 {
                    steps.push(
                        "There is no revoke in protocol P2: the cluster controller owns \
                         spec.workloadRevision and would put it back. Fixing the cause is the \
                         way out."
                            .into(),
                    );
                } else {
                    steps.push(format!(
                        "`kubectl valkey-roll revoke {name} -n {ns} --reason \"...\"` removes \
                         its permit. It does not roll the pod back, and the controller still \
                         waits for {name} to become Ready before it moves on, so it stays a \
                         block until it is fixed."
                    ));
                    let other = self
                        .cluster
                        .front
                        .as_deref()
                        .filter(|f| *f != name.as_str())
                        .unwrap_or("OTHER");
                    steps.push(format!(
                        "To roll another node first: `kubectl valkey-roll force {other} -n {ns} \
                         --takeover --reason \"...\"` (revokes {name}'s permit in the same \
                         command)."
                    ));
                }
            }
            NodeState::StalePermit => {
                steps.push(
                    "Wait a few seconds: the node controller drops a stale permit on its next \
                     pass. If it stays, check that the valkey-operator is running."
                        .into(),
                );
                if !p2 {
                    steps.push(format!(
                        "`kubectl valkey-roll revoke {name} -n {ns} --reason \"stale permit\"` \
                         removes it by hand."
                    ));
                }
            }
            NodeState::Settling => steps.push(
                "Nothing: the controller releases the permit within seconds. If it stays \
                 past the stall threshold, the node turns Stuck."
                    .into(),
            ),
            NodeState::Rolling => steps.push(format!(
                "Nothing yet: follow it with `kubectl valkey-roll status {} -n {ns} --watch`, \
                 or `kubectl valkey-roll wait {} -n {ns}`.",
                self.cluster.name, self.cluster.name
            )),
            NodeState::Waiting => {
                steps.push("Nothing: the controller grants it when its walk reaches it.".into());
                for holder in self.holders_besides_me() {
                    steps.push(format!(
                        "If the holder looks stuck: `kubectl valkey-roll explain {holder} -n \
                         {ns}`."
                    ));
                }
                let is_front = self.ahead().is_empty();
                if self.holders_besides_me().is_empty() {
                    let mut grant = format!(
                        "To grant it by hand: `kubectl valkey-roll grant {name} -n {ns} --reason \
                         \"...\"`"
                    );
                    if n.facts.is_primary {
                        grant.push_str(
                            " (it is the shard's primary: add --allow-primary; the \
                             controller's failover does not run for a permit given by hand)",
                        );
                    }
                    if !is_front {
                        grant.push_str(if p2 {
                            "; refused in P2 while it is not the walk's front"
                        } else {
                            "; it is not the walk's front, so the tool warns"
                        });
                    }
                    grant.push('.');
                    steps.push(grant);
                }
            }
            NodeState::Blocking => {
                let f = &n.facts;
                if !self.has(EvidenceKind::SupersededPod) {
                    pod_hint(&mut steps);
                }
                if self.has_failure_beyond_superseded() {
                    steps.push(self.fix_cause());
                }
                if f.unhealthy_because.is_empty() && self.failures().is_empty() {
                    steps.push(
                        "Check the node's conditions above and the valkey-operator's logs.".into(),
                    );
                } else {
                    steps.push(
                        "Once it is healthy the walk moves on by itself; a permit elsewhere \
                         does not get past it."
                            .into(),
                    );
                }
            }
            NodeState::Converged => steps.push("Nothing.".into()),
            NodeState::Standalone => {
                steps.push("Nothing: permits do not apply to a standalone node.".into());
            }
        }
        steps
    }

    fn fix_cause(&self) -> String {
        let image = [
            EvidenceKind::ImagePullBackOff,
            EvidenceKind::ErrImagePull,
            EvidenceKind::InvalidImageName,
        ]
        .into_iter()
        .any(|k| self.has(k));
        let what = if image {
            "the image name, tag or pull secret"
        } else if self.has(EvidenceKind::Unschedulable) {
            "the pod's resources, affinity or node capacity"
        } else if self.has(EvidenceKind::OomKilled) {
            "the memory limit or the maxmemory setting"
        } else {
            "the template or the image (revert the ValkeyCluster change that started the roll)"
        };
        format!(
            "Fix the cause: {what}. The node controller then builds a new revision and the \
             roll goes on."
        )
    }
}

fn cluster_reasoning(cluster: &ClusterReport, object: Option<&ValkeyCluster>) -> Vec<String> {
    let find = |name: &str| cluster.nodes.iter().find(|n| n.name == name);
    let waiting = match cluster.waiting {
        1 => "1 node waits".to_string(),
        w => format!("{w} nodes wait"),
    };
    let mut out = Vec::new();
    match cluster.verdict {
        Verdict::Conflict => out.push(format!(
            "{} nodes hold a permit at once ({}): the one-at-a-time rule is broken. A grant \
             by hand or a forced permit usually does this; each holder rolls at the same \
             time.",
            cluster.holders.len(),
            cluster.holders.join(", ")
        )),
        Verdict::Jammed | Verdict::Rolling => {
            if let Some(holder) = cluster.holders.first().and_then(|h| find(h)) {
                let held = human_or(holder.held_for_seconds, "an unknown time");
                out.push(format!(
                    "{} holds the permit and is {} ({}); held {held} (grant time from {}). While \
                     it holds, the cluster controller grants no other node: {waiting} behind \
                     it.",
                    holder.name,
                    holder.state,
                    if holder.reason.is_empty() {
                        "no reason given"
                    } else {
                        &holder.reason
                    },
                    holder.granted_at_source,
                ));
            } else if let Some(front) = cluster.front.as_deref().and_then(find) {
                out.push(format!(
                    "No node holds a permit. The walk's front, {}, is {} with failure \
                     evidence ({}); the cluster controller waits on it, and {waiting} behind \
                     it.",
                    front.name,
                    front.state,
                    front
                        .evidence
                        .iter()
                        .map(|e| e.message.as_str())
                        .collect::<Vec<_>>()
                        .join("; ")
                ));
            } else {
                out.push(cluster.reason.clone());
            }
        }
        Verdict::Stalled | Verdict::Waiting => {
            let quiet = human_or(cluster.quiet_for_seconds, "an unknown time");
            let threshold = human(cluster.stall_threshold_seconds);
            match cluster.front.as_deref().and_then(find) {
                Some(front) if front.state == NodeState::Blocking => out.push(format!(
                    "No node holds a permit. The walk's front, {}, is Blocking: {}. The \
                     controller waits for it to become healthy before it grants anyone.",
                    front.name,
                    if front.facts.unhealthy_because.is_empty() {
                        "it is not healthy".to_string()
                    } else {
                        front.facts.unhealthy_because.join("; ")
                    }
                )),
                Some(front) => out.push(format!(
                    "No node holds a permit. The walk's front, {}, asks for {} and is due a \
                     grant.",
                    front.name,
                    front.desired_revision.as_deref().unwrap_or("a revision")
                )),
                None => out.push(format!(
                    "No node holds a permit and none waits, but the ValkeyCluster reports \
                     that it is not done{}.",
                    cluster_word(cluster, object)
                )),
            }
            if cluster.verdict == Verdict::Stalled {
                out.push(format!(
                    "Nothing has moved for {quiet}, more than the stall threshold \
                     {threshold}: the cluster controller may be down, or deferring a primary's \
                     roll because its shard has no synced replica to fail over to."
                ));
            } else {
                out.push(format!(
                    "Quiet for {quiet} (stall threshold {threshold}): still within the \
                     normal pace of a roll."
                ));
            }
        }
        Verdict::Converged => out.push(
            "No node holds a permit, none asks for a revision, every node is healthy and the \
             ValkeyCluster does not report an unfinished roll."
                .into(),
        ),
    }
    if !cluster.cluster_found {
        out.push(
            "The ValkeyCluster object itself was not in view; this report is built from the \
             nodes that carry its label."
                .into(),
        );
    }
    out
}

/// " (state Reconciling/UpdatingNodes: message)" from the report and object.
fn cluster_word(cluster: &ClusterReport, object: Option<&ValkeyCluster>) -> String {
    let mut word = match (&cluster.state, &cluster.state_reason) {
        (Some(s), Some(r)) => format!("{s}/{r}"),
        (Some(s), None) => s.clone(),
        (None, Some(r)) => r.clone(),
        (None, None) => String::new(),
    };
    if let Some(message) = object
        .and_then(|o| o.status.as_ref())
        .and_then(|s| s.message.as_deref())
        .filter(|m| !m.is_empty())
    {
        if !word.is_empty() {
            word.push_str(": ");
        }
        word.push_str(message);
    }
    if word.is_empty() {
        word
    } else {
        format!(" (state {word})")
    }
}

fn cluster_next_steps(cluster: &ClusterReport) -> Vec<String> {
    let ns = &cluster.namespace;
    let name = &cluster.name;
    let p2 = cluster.protocol == Protocol::P2;
    let mut steps = Vec::new();
    match cluster.verdict {
        Verdict::Conflict => {
            for holder in &cluster.holders {
                steps.push(format!("`kubectl valkey-roll explain {holder} -n {ns}`"));
            }
            if p2 {
                steps.push(
                    "In P2 there is no revoke: let the rolls finish, fixing any that fail.".into(),
                );
            } else {
                steps.push(format!(
                    "Keep one: `kubectl valkey-roll revoke NODE -n {ns} --reason \"...\"` for \
                     each of the others (revoking does not roll a pod back)."
                ));
            }
        }
        Verdict::Jammed => {
            let culprit = cluster.holders.first().or(cluster.front.as_ref());
            if let Some(node) = culprit {
                steps.push(format!(
                    "See the evidence and the ways out: `kubectl valkey-roll explain {node} -n \
                     {ns}`."
                ));
            }
            if !p2 && let Some(holder) = cluster.holders.first() {
                steps.push(format!(
                    "Fix the cause, or `kubectl valkey-roll revoke {holder} -n {ns}`, or move \
                     the permit: `kubectl valkey-roll force OTHER -n {ns} --takeover --reason \
                     \"...\"`."
                ));
            }
            if p2 {
                steps.push(
                    "There is no revoke in P2; fixing the cause (template or image) is the way \
                     out."
                        .into(),
                );
            }
        }
        Verdict::Rolling => steps.push(format!(
            "Nothing yet: `kubectl valkey-roll status {name} -n {ns} --watch`, or `kubectl \
             valkey-roll wait {name} -n {ns}`."
        )),
        Verdict::Stalled => {
            steps.push("Check that the valkey-operator is running and look at its logs.".into());
            if let Some(front) = &cluster.front {
                steps.push(format!(
                    "See why the front waits: `kubectl valkey-roll explain {front} -n {ns}`."
                ));
                let front_waits = cluster
                    .nodes
                    .iter()
                    .any(|n| &n.name == front && n.state == NodeState::Waiting);
                if front_waits {
                    steps.push(format!(
                        "Grant it by hand: `kubectl valkey-roll grant {front} -n {ns} --reason \
                         \"...\"` (add --allow-primary for a primary)."
                    ));
                }
            } else {
                steps.push(format!(
                    "Look at the ValkeyCluster's status: `kubectl describe valkeycluster \
                     {name} -n {ns}`."
                ));
            }
        }
        Verdict::Waiting => steps.push(format!(
            "Nothing yet: a grant is due. If nothing moves for {}, the verdict turns Stalled.",
            human(cluster.stall_threshold_seconds)
        )),
        Verdict::Converged => steps.push("Nothing.".into()),
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::json::to_json;
    use crate::render::sample;
    use crate::report::Evidence;

    fn jammed() -> ClusterReport {
        sample::jammed().clusters.remove(0)
    }

    fn node<'a>(cluster: &'a ClusterReport, name: &str) -> &'a NodeReport {
        cluster
            .nodes
            .iter()
            .find(|n| n.name == name)
            .unwrap_or_else(|| panic!("no node {name}"))
    }

    #[test]
    fn stuck_node_snapshot() {
        let cluster = jammed();
        let out = explain_node(
            &cluster,
            node(&cluster, "cache-1-1"),
            None,
            &sample::stuck_timeline(),
            sample::now(),
            false,
        );
        insta::assert_snapshot!(out);
    }

    #[test]
    fn jammed_cluster_snapshot() {
        let cluster = jammed();
        let out = explain_cluster(
            &cluster,
            None,
            &sample::stuck_timeline(),
            sample::now(),
            false,
        );
        insta::assert_snapshot!(out);
    }

    #[test]
    fn stuck_node_says_what_to_do() {
        let cluster = jammed();
        let out = explain_node(
            &cluster,
            node(&cluster, "cache-1-1"),
            None,
            &sample::stuck_timeline(),
            sample::now(),
            false,
        );
        for want in [
            "CrashLoopBackOff",
            "2026-11-29T10:02:11Z (14m ago; source: event)",
            "not available",
            "managedFields",
            "4 nodes wait behind it",
            "kubectl logs valkey-cache-1-1-0 -n prod --previous",
            "kubectl valkey-roll revoke cache-1-1 -n prod",
            "kubectl valkey-roll force cache-0-0 -n prod --takeover",
            "WorkloadRollPermitted",
        ] {
            assert!(out.contains(want), "{want:?} missing from:\n{out}");
        }
    }

    #[test]
    fn state_specific_prose() {
        let cluster = jammed();
        let mut superseded = node(&cluster, "cache-1-1").clone();
        superseded.evidence.push(Evidence {
            kind: EvidenceKind::SupersededPod,
            message: "pod valkey-cache-1-1-0 on revision old, not Ready for 5m".into(),
        });
        let mut p2 = cluster.clone();
        p2.protocol = Protocol::P2;
        let mut blocking = node(&cluster, "cache-0-1").clone();
        blocking.state = NodeState::Blocking;
        blocking.facts.healthy = false;
        blocking.facts.unhealthy_because = vec!["LiveConfigApplied is False".into()];
        let mut front = cluster.clone();
        front.front = Some("cache-0-1".into());

        // (name, cluster, node, must appear, must not appear)
        type Case<'a> = (
            &'a str,
            &'a ClusterReport,
            NodeReport,
            &'a [&'a str],
            &'a [&'a str],
        );
        let cases: Vec<Case> = vec![
            (
                "superseded pod trap",
                &cluster,
                superseded,
                &[
                    "will not replace",
                    "even after the template is reverted",
                    "kubernetes#67250",
                    "valkey-operator#408",
                    "kubectl delete pod valkey-cache-1-1-0 -n prod",
                ],
                &[],
            ),
            (
                "P2 has no revoke",
                &p2,
                node(&cluster, "cache-1-1").clone(),
                &["There is no revoke in protocol P2"],
                &["valkey-roll revoke", "force"],
            ),
            (
                "waiting: queue and who is ahead",
                &cluster,
                node(&cluster, "cache-1-0").clone(),
                &[
                    "queue position 2",
                    "The permit is held by cache-1-1",
                    "Ahead of it: cache-0-0 (Waiting)",
                    "kubectl valkey-roll explain cache-1-1 -n prod",
                ],
                &["valkey-roll grant"],
            ),
            (
                "waiting at the front",
                &cluster,
                node(&cluster, "cache-0-0").clone(),
                &["it is the walk's front"],
                &[],
            ),
            (
                "blocking",
                &front,
                blocking,
                &[
                    "LiveConfigApplied is False",
                    "walk stops at the first node that is not healthy",
                    "It is the walk's front: 4 nodes wait behind it",
                ],
                &["revoke"],
            ),
            (
                "converged",
                &cluster,
                node(&cluster, "cache-0-1").clone(),
                &["nothing to do", "- Nothing."],
                &["revoke", "grant"],
            ),
        ];
        for (name, cluster, node, wants, unwanted) in cases {
            let out = explain_node(cluster, &node, None, &[], sample::now(), false);
            for want in wants {
                assert!(out.contains(want), "{name}: {want:?} missing from:\n{out}");
            }
            for bad in unwanted {
                assert!(!out.contains(bad), "{name}: {bad:?} present in:\n{out}");
            }
        }
    }

    #[test]
    fn no_events_says_they_may_have_expired() {
        let cluster = jammed();
        let out = explain_node(
            &cluster,
            node(&cluster, "cache-0-1"),
            None,
            &[],
            sample::now(),
            false,
        );
        assert!(out.contains("no events found (events expire"), "{out}");
    }

    #[test]
    fn conditions_from_the_object() {
        let cluster = jammed();
        let object: ValkeyNode = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "cache-1-1", "namespace": "prod"},
            "status": {"conditions": [{
                "type": "Ready", "status": "False", "reason": "PodNotReady",
                "message": "pod is not ready", "lastTransitionTime": "2026-11-29T10:04:11Z"
            }]}
        }))
        .unwrap();
        let out = explain_node(
            &cluster,
            node(&cluster, "cache-1-1"),
            Some(&object),
            &[],
            sample::now(),
            false,
        );
        assert!(
            out.contains("Ready  False   PodNotReady  12m  pod is not ready"),
            "{out}"
        );
    }

    #[test]
    fn stalled_cluster_names_front_and_why() {
        let mut cluster = sample::converged().clusters.remove(0);
        cluster.verdict = Verdict::Stalled;
        cluster.front = Some("sessions-0-1".into());
        cluster.quiet_for_seconds = Some(1800);
        cluster.nodes[0].state = NodeState::Blocking;
        cluster.nodes[0].facts.unhealthy_because =
            vec!["status.observedGeneration 3 is behind generation 4".into()];
        let out = explain_cluster(&cluster, None, &[], sample::now(), false);
        for want in [
            "Why the queue is not moving",
            "The walk's front, sessions-0-1, is Blocking",
            "observedGeneration 3 is behind generation 4",
            "Nothing has moved for 30m",
            "valkey-roll explain sessions-0-1 -n prod",
        ] {
            assert!(out.contains(want), "{want:?} missing from:\n{out}");
        }

        cluster.front = None;
        cluster.nodes[0].state = NodeState::Converged;
        cluster.state = Some("Reconciling".into());
        cluster.state_reason = Some("UpdatingNodes".into());
        let out = explain_cluster(&cluster, None, &[], sample::now(), false);
        assert!(
            out.contains("reports that it is not done (state Reconciling/UpdatingNodes)"),
            "{out}"
        );
    }

    #[test]
    fn colour_only_when_asked() {
        let cluster = jammed();
        let stuck = node(&cluster, "cache-1-1");
        let timeline = sample::stuck_timeline();
        let plain = explain_node(&cluster, stuck, None, &timeline, sample::now(), false);
        assert!(!plain.contains('\u{1b}'));
        let plain = explain_cluster(&cluster, None, &timeline, sample::now(), false);
        assert!(!plain.contains('\u{1b}'));
        let coloured = explain_node(&cluster, stuck, None, &timeline, sample::now(), true);
        assert!(coloured.contains('\u{1b}'));
    }

    #[test]
    fn json_entry_is_the_status_entry_plus_timeline() {
        let cluster = jammed();
        let stuck = node(&cluster, "cache-1-1");
        let timeline = sample::stuck_timeline();
        let entry: serde_json::Value = serde_json::from_str(
            &to_json(&NodeExplanation {
                node: stuck,
                timeline: &timeline,
            })
            .unwrap(),
        )
        .unwrap();
        let mut status_entry = serde_json::to_value(stuck).unwrap();
        let serde_json::Value::Object(map) = &mut status_entry else {
            panic!("a node entry is an object")
        };
        map.insert("timeline".into(), serde_json::to_value(&timeline).unwrap());
        assert_eq!(entry, status_entry);
        assert_eq!(entry["timeline"][1]["reason"], "WorkloadRollPermitted");

        let entry: serde_json::Value = serde_json::from_str(
            &to_json(&ClusterExplanation {
                cluster: &cluster,
                timeline: &[],
            })
            .unwrap(),
        )
        .unwrap();
        assert_eq!(entry["verdict"], "Jammed");
        assert_eq!(entry["timeline"], serde_json::json!([]));
        assert_eq!(entry["nodes"].as_array().map(Vec::len), Some(6));
    }
}
