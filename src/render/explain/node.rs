//! One node's prose: its facts, why it has its state, and what a person
//! could do next.

use super::cluster::vr;
use crate::render::step::Step;
use crate::render::table::protocol_word;
use crate::render::words;
use crate::report::{ClusterReport, EvidenceKind, GrantSource, NodeReport, NodeState, Protocol};
use crate::shell::CommandLine;
use crate::snapshot::{ValkeyNode, WorkloadKind};
use crate::units::{age, human, human_or, timestamp};
use jiff::Timestamp;

/// The nodes ahead of a waiting one that its explanation names; the
/// others are counted (a node late in a walk of thousands would list
/// thousands, and the dashboard sends every node's explanation).
const AHEAD_NAMED: usize = 10;

/// One node seen with its cluster: the pieces of prose are built here.
pub(super) struct NodeProse<'a> {
    pub cluster: &'a ClusterReport,
    pub node: &'a NodeReport,
    pub object: Option<&'a ValkeyNode>,
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn or_dash(s: &Option<String>) -> String {
    s.clone().unwrap_or_else(|| "-".into())
}

impl NodeProse<'_> {
    fn ns(&self) -> &str {
        &self.cluster.namespace
    }

    fn threshold(&self) -> String {
        human(self.cluster.stall_threshold_seconds)
    }

    /// P2's words: a node is advanced and then in flight; P1's holds a
    /// permit.
    fn p2(&self) -> bool {
        self.cluster.protocol == Protocol::P2
    }

    /// `holds the permit` / `is in flight`.
    fn holds(&self) -> &'static str {
        if self.p2() {
            "is in flight"
        } else {
            "holds the permit"
        }
    }

    /// "cluster prod/cache (JAMMED, P1) · shard 1, index 1 · replica"
    pub(super) fn place(&self) -> String {
        let n = self.node;
        let mut parts = vec![format!(
            "cluster {}/{} ({}, {})",
            self.cluster.namespace,
            self.cluster.name,
            self.cluster.verdict.to_string().to_uppercase(),
            protocol_word(self.cluster.protocol)
        )];
        match (n.shard, n.index) {
            (Some(s), Some(i)) => parts.push(format!("shard {s}, index {i}")),
            (Some(s), None) => parts.push(format!("shard {s}")),
            _ => {}
        }
        let role = match n.role {
            Some(_) => crate::render::words::role_cell(n),
            None => "role unknown".to_string(),
        };
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

    pub(super) fn facts(&self, now: Timestamp) -> Vec<(&'static str, String)> {
        let n = self.node;
        let f = &n.facts;
        let p2 = self.p2();
        let mut rows = vec![
            (
                if p2 { "workloadRevision" } else { "permit" },
                or_dash(&n.permit),
            ),
            (
                "desired revision",
                match &n.desired_revision {
                    Some(h) => h.clone(),
                    None if f.asks => "asks, revision unknown".into(),
                    None => "- (asks for nothing)".into(),
                },
            ),
            ("lastRolloutHash", or_dash(&n.last_rollout_hash)),
            ("role", words::role_row(n, self.cluster.status_role_live)),
            ("ready", yes_no(n.ready).into()),
            (
                "healthy",
                if f.healthy {
                    "yes".into()
                } else if f.unhealthy_because.is_empty() {
                    "no".into()
                } else {
                    format!("no: {}", words::joined(&f.unhealthy_because))
                },
            ),
            (
                "cluster-owned",
                if f.cluster_by_owner {
                    format!(
                        "yes: {} by its owner reference (it has no valkey.io/cluster label)",
                        self.cluster.name
                    )
                } else {
                    yes_no(f.cluster_owned).into()
                },
            ),
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
        if f.holder || (!p2 && n.permit.is_some()) || n.granted_at.is_some() {
            rows.push((
                if p2 { "advanced at" } else { "granted at" },
                self.grant_time(now),
            ));
            if let Some(by) = &n.granted_by {
                rows.push((if p2 { "advanced by" } else { "granted by" }, by.clone()));
            }
            if let Some(reason) = &n.grant_reason {
                rows.push(("reason given", reason.clone()));
            }
            rows.push((
                if p2 { "in flight for" } else { "held for" },
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
            rows.push((
                "not available",
                words::Unheard(source, self.cluster.protocol).to_string(),
            ));
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
            .filter(|e| e.kind.is_failure())
            .map(|e| e.finding.to_string())
            .collect()
    }

    /// Failure evidence other than the superseded pod (whose fix is its
    /// deletion, not the template).
    fn has_failure_beyond_superseded(&self) -> bool {
        self.node
            .evidence
            .iter()
            .any(|e| e.kind.is_failure() && e.kind != EvidenceKind::SupersededPod)
    }

    /// Nodes ahead of this one in walk order that the walk must pass first.
    /// The first [`AHEAD_NAMED`] nodes ahead of this one in the walk
    /// (waiting or blocking), each with its state, and how many there are.
    fn ahead(&self) -> (Vec<String>, usize) {
        let mut named = Vec::new();
        let mut count = 0;
        for n in &self.cluster.nodes {
            if n.name == self.node.name {
                break;
            }
            if matches!(n.state, NodeState::Waiting | NodeState::Blocking) {
                if named.len() < AHEAD_NAMED {
                    named.push(format!("{} ({})", n.name, n.state));
                }
                count += 1;
            }
        }
        (named, count)
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

    pub(super) fn reasoning(&self, now: Timestamp) -> Vec<String> {
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
            NodeState::Standalone => out.push(format!(
                "It has no controlling ValkeyCluster owner, so {} do not apply: its node \
                 controller applies template changes at once.",
                if self.p2() {
                    "staged rolls"
                } else {
                    "roll permits"
                }
            )),
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
                        "It {} and its pod or workload shows failure: {}. Its roll cannot \
                         complete until that is fixed.",
                        self.holds(),
                        failures.join("; ")
                    ));
                }
                out.extend(self.superseded_trap());
                if self.has(EvidenceKind::NotReleased) {
                    let complete = match f.complete_since {
                        Some(t) => format!("has been complete for {}", age(t, now)),
                        None if self.p2() => {
                            format!("is complete (since an unknown time; advanced {held} ago)")
                        }
                        None => format!("is complete (since an unknown time; held {held})"),
                    };
                    out.push(if self.p2() {
                        format!(
                            "Its roll {complete} and it still counts as in flight, past the \
                             stall threshold {}: the node controller has not marked it done.",
                            self.threshold()
                        )
                    } else {
                        format!(
                            "Its roll {complete} and the permit is still held, past the stall \
                             threshold {}: the node controller has not released it.",
                            self.threshold()
                        )
                    });
                } else if self.has(EvidenceKind::HeldOverThreshold) {
                    out.push(format!(
                        "Its roll is not complete after {held}, more than the stall threshold \
                         {}.",
                        self.threshold()
                    ));
                }
                if out.is_empty() {
                    out.push(format!(
                        "It {} and is judged stuck after {held}.",
                        self.holds()
                    ));
                }
                out.push(if self.p2() {
                    format!(
                        "While it is in flight the cluster controller advances no other node: \
                         {behind}."
                    )
                } else {
                    format!(
                        "While it holds the permit the cluster controller grants no other node: \
                         {behind}."
                    )
                });
            }
            NodeState::Settling => out.push(format!(
                "Its roll is complete{}, and {}, which normally takes seconds.",
                f.complete_since
                    .map(|t| format!(" (pod Ready since {})", timestamp(t)))
                    .unwrap_or_default(),
                if self.p2() {
                    "it still counts as in flight: the controller has yet to see it done"
                } else {
                    "the permit is still held: the controller has yet to release it"
                }
            )),
            NodeState::Rolling => {
                let doing = match (f.template_roll_in_progress, f.pod_ready) {
                    (Some(true), _) => "its workload is rolling the new template",
                    (_, Some(false)) => "its new pod is not Ready yet",
                    _ => "its roll has not completed yet",
                };
                out.push(if self.p2() {
                    format!(
                        "It is in flight and {doing}; advanced {held} ago, within the {} stall \
                         threshold, with no failure seen.",
                        self.threshold()
                    )
                } else {
                    format!(
                        "It holds the permit and {doing}; held {held} of the {} stall \
                         threshold, with no failure seen.",
                        self.threshold()
                    )
                });
            }
            NodeState::Waiting => {
                let queue = n
                    .queue_position
                    .map(|q| format!(", queue position {q}"))
                    .unwrap_or_default();
                if let Some(b) = &n.facts.behind {
                    out.push(behind_prose(b, &queue));
                } else {
                    let asked = n
                        .desired_revision
                        .clone()
                        .unwrap_or_else(|| "a revision".into());
                    out.push(format!(
                        "It asks for {asked} and waits for the cluster controller's walk to \
                         reach it{queue}. The controller {} one node at a time, in walk order.",
                        if self.p2() { "advances" } else { "grants" }
                    ));
                }
                let holders = self.holders_besides_me();
                if !holders.is_empty() {
                    out.push(if self.p2() {
                        format!(
                            "{} in flight; no other node is advanced until its roll is done.",
                            holders.join(", ")
                        )
                    } else {
                        format!(
                            "The permit is held by {}; no grant happens until it is released.",
                            holders.join(", ")
                        )
                    });
                }
                match self.ahead() {
                    (_, 0) => out.push("No node is ahead of it: it is the walk's front.".into()),
                    (named, count) if count > named.len() => out.push(format!(
                        "Ahead of it: {}, and {} more (status lists them all).",
                        named.join(", "),
                        count - named.len()
                    )),
                    (named, _) => out.push(format!("Ahead of it: {}.", named.join(", "))),
                }
            }
            NodeState::Blocking => {
                let why = if f.unhealthy_because.is_empty() {
                    "it is not healthy".to_string()
                } else {
                    words::joined(&f.unhealthy_because)
                };
                out.push(format!(
                    "It {} and asks for nothing, but {why}. The cluster controller's walk stops \
                     at the first node that is not healthy, so every node after it in walk \
                     order waits.",
                    if self.p2() {
                        "is not in flight"
                    } else {
                        "holds no permit"
                    }
                ));
                if self.cluster.front.as_deref() == Some(n.name.as_str()) {
                    out.push(format!("It is the walk's front: {behind}."));
                }
                let failures = self.failures();
                if !failures.is_empty() {
                    out.push(format!("Failure evidence: {}.", failures.join("; ")));
                }
            }
            NodeState::Converged => out.push(format!(
                "It {}, asks for nothing and is healthy: nothing to do.",
                if self.p2() {
                    "is not in flight"
                } else {
                    "holds no permit"
                }
            )),
        }
        if n.state != NodeState::Stuck {
            out.extend(self.superseded_trap());
        }
        out
    }

    pub(super) fn next_steps(&self) -> Vec<Step> {
        let n = self.node;
        let ns = self.ns();
        let name = &n.name;
        let p2 = self.cluster.protocol == Protocol::P2;
        let mut steps = Vec::new();
        // Exactly the predicate replace-pod plans on (PR #410's): not Ready,
        // and on a revision other than the StatefulSet's update revision.
        if n.facts.pod_superseded_not_ready {
            let pod = n.pod.as_deref().unwrap_or("<pod>");
            steps.push(
                Step::say(format!(
                    "Replace the superseded pod {pod} so the StatefulSet recreates it on its \
                     current revision:"
                ))
                .run(
                    CommandLine::new("kubectl valkey-roll replace-pod")
                        .arg(name)
                        .opt("-n", ns)
                        .switch("--reason \"...\""),
                )
                .then("Reverting the template alone does not help."),
            );
        }
        let pod_hint = |steps: &mut Vec<Step>| {
            if let Some(pod) = &n.pod {
                let describe = CommandLine::new("kubectl describe pod")
                    .arg(pod)
                    .opt("-n", ns);
                let step = if self.has(EvidenceKind::CrashLoopBackOff)
                    || self.has(EvidenceKind::OomKilled)
                {
                    Step::say("Look at the pod and at its previous container's log:")
                        .run(describe)
                        .run(
                            CommandLine::new("kubectl logs")
                                .arg(pod)
                                .opt("-n", ns)
                                .switch("--previous"),
                        )
                } else {
                    Step::say("Look at the pod:").run(describe)
                };
                steps.push(step);
            }
        };
        match n.state {
            NodeState::Stuck => {
                if !self.failures().is_empty() {
                    pod_hint(&mut steps);
                    if self.has_failure_beyond_superseded() {
                        steps.push(self.fix_cause().into());
                    }
                } else if self.has(EvidenceKind::NotReleased) {
                    steps.push(Step::say(format!(
                        "Check that the valkey-operator is running and look at its logs: the \
                         node controller {} once the roll is rolled out.",
                        if p2 {
                            "marks the node done"
                        } else {
                            "releases the permit"
                        }
                    )));
                } else {
                    steps.push(
                        Step::say("See why the roll is slow:").run(
                            CommandLine::new("kubectl describe")
                                .arg(&self.workload())
                                .opt("-n", ns),
                        ),
                    );
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
                    steps.push(
                        Step::say("Remove its permit:")
                            .run(
                                vr("revoke")
                                    .arg(name)
                                    .opt("-n", ns)
                                    .switch("--reason \"...\""),
                            )
                            .then(format!(
                                "It does not roll the pod back, and the controller still waits \
                                 for {name} to become Ready before it moves on, so it stays a \
                                 block until it is fixed."
                            )),
                    );
                    let force = match self
                        .cluster
                        .front
                        .as_deref()
                        .filter(|f| *f != name.as_str())
                    {
                        Some(front) => vr("force").arg(front),
                        None => vr("force").switch("OTHER"),
                    };
                    steps.push(
                        Step::say(format!(
                            "To roll another node first (this revokes {name}'s permit in the \
                             same command):"
                        ))
                        .run(force.opt("-n", ns).switch("--takeover --reason \"...\"")),
                    );
                }
            }
            NodeState::StalePermit => {
                steps.push(
                    "Wait a few seconds: the node controller drops a stale permit on its next \
                     pass. If it stays, check that the valkey-operator is running."
                        .into(),
                );
                if !p2 {
                    steps.push(
                        Step::say("To remove it by hand:").run(
                            vr("revoke")
                                .arg(name)
                                .opt("-n", ns)
                                .opt("--reason", "stale permit"),
                        ),
                    );
                }
            }
            NodeState::Settling => steps.push(Step::say(format!(
                "Nothing: the controller {} within seconds. If it stays past the stall \
                 threshold, the node turns Stuck.",
                if p2 {
                    "sees it done"
                } else {
                    "releases the permit"
                }
            ))),
            NodeState::Rolling => steps.push(
                Step::say("Nothing yet: follow it, or wait for it:")
                    .run(
                        vr("status")
                            .arg(&self.cluster.name)
                            .opt("-n", ns)
                            .switch("--watch"),
                    )
                    .run(vr("wait").arg(&self.cluster.name).opt("-n", ns)),
            ),
            NodeState::Waiting if n.facts.behind.is_some() => {
                steps.push(
                    "Nothing: the controller advances it when its walk reaches it (a node \
                     behind asks for no revision, so there is nothing to grant by hand)."
                        .into(),
                );
                for holder in self.holders_besides_me() {
                    steps.push(
                        Step::say(format!(
                            "If {} looks stuck:",
                            if p2 {
                                "the node in flight"
                            } else {
                                "the holder"
                            }
                        ))
                        .run(vr("explain").arg(holder).opt("-n", ns)),
                    );
                }
            }
            NodeState::Waiting => {
                steps.push(Step::say(format!(
                    "Nothing: the controller {} it when its walk reaches it.",
                    if p2 { "advances" } else { "grants" }
                )));
                for holder in self.holders_besides_me() {
                    steps.push(
                        Step::say(format!(
                            "If {} looks stuck:",
                            if p2 {
                                "the node in flight"
                            } else {
                                "the holder"
                            }
                        ))
                        .run(vr("explain").arg(holder).opt("-n", ns)),
                    );
                }
                let is_front = self.ahead().1 == 0;
                if self.holders_besides_me().is_empty() {
                    let mut grant = Step::say(format!(
                        "To {} it by hand:",
                        if p2 { "advance" } else { "grant" }
                    ))
                    .run(
                        vr("grant")
                            .arg(name)
                            .opt("-n", ns)
                            .switch("--reason \"...\""),
                    );
                    if n.facts.is_primary {
                        grant = grant.then(if p2 {
                            "It is the shard's primary: add --allow-primary; the controller's \
                             failover does not run for a revision advanced by hand."
                        } else {
                            "It is the shard's primary: add --allow-primary; the controller's \
                             failover does not run for a permit given by hand."
                        });
                    }
                    if !is_front {
                        grant = grant.then(if p2 {
                            "Refused in P2 while it is not the walk's front."
                        } else {
                            "It is not the walk's front, so the tool warns."
                        });
                    }
                    steps.push(grant);
                }
            }
            NodeState::Blocking => {
                let f = &n.facts;
                if !self.has(EvidenceKind::SupersededPod) {
                    pod_hint(&mut steps);
                }
                if self.has_failure_beyond_superseded() {
                    steps.push(self.fix_cause().into());
                }
                if f.unhealthy_because.is_empty() && self.failures().is_empty() {
                    steps.push(
                        "Check the node's conditions above and the valkey-operator's logs.".into(),
                    );
                } else {
                    steps.push(Step::say(format!(
                        "Once it is healthy the walk moves on by itself; {} elsewhere does not \
                         get past it.",
                        if p2 { "a grant" } else { "a permit" }
                    )));
                }
            }
            NodeState::Converged => steps.push("Nothing.".into()),
            NodeState::Standalone => steps.push(Step::say(format!(
                "Nothing: {} do not apply to a standalone node.",
                if p2 { "staged rolls" } else { "permits" }
            ))),
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

/// Why a node behind its cluster's spec waits: the fields that differ
/// (the images named when the image is one), and what the controller does.
fn behind_prose(b: &crate::report::Behind, queue: &str) -> String {
    use crate::snapshot::SpecField;
    let image = b.fields.contains(&SpecField::Image);
    let others: Vec<String> = b
        .fields
        .iter()
        .filter(|f| **f != SpecField::Image)
        .map(|f| {
            if f.live() {
                format!("spec.{} (keys set live)", f.key())
            } else {
                format!("spec.{}", f.key())
            }
        })
        .collect();
    let what = match (image, others.as_slice()) {
        (false, []) => {
            return format!(
                "Its spec is at the ValkeyCluster's, but another node asks for a new \
                 revision with its spec unchanged (the operator's own build renders a new \
                 pod template) and the operator has not written this node's status since: \
                 presumed still to roll{queue}. The cluster controller advances it when its \
                 walk reaches it, one node at a time."
            );
        }
        (true, []) => format!(
            "Its spec.image is {}, the ValkeyCluster's is {}",
            b.image, b.cluster_image
        ),
        (true, more) => format!(
            "Its spec.image is {}, the ValkeyCluster's is {}, and its {} differ",
            b.image,
            b.cluster_image,
            more.join(", ")
        ),
        (false, [one]) => format!("Its {one} differs from what the ValkeyCluster asks"),
        (false, more) => format!(
            "Its {} differ from what the ValkeyCluster asks",
            more.join(", ")
        ),
    };
    let live = b.fields.iter().all(|f| f.live());
    // (`fields` is not empty here.)
    let then = if live {
        "The cluster controller copies the new spec into it when the walk does, one node \
         at a time; the server takes the new values live, its pod is not replaced."
    } else {
        "The cluster controller copies the new spec (and its new revision) into it when \
         the walk does, one node at a time."
    };
    format!("{what}: a Spec-driven roll whose walk has not reached it yet{queue}. {then}")
}

#[cfg(test)]
mod behind_tests {
    use super::behind_prose;
    use crate::report::Behind;
    use crate::snapshot::SpecField;

    #[test]
    fn a_node_behind_names_the_fields_that_differ() {
        let behind = |fields: Vec<SpecField>| Behind {
            image: "valkey/valkey:9.0.0".into(),
            cluster_image: "valkey/valkey:9.0.1".into(),
            fields,
        };
        let cases: Vec<(Vec<SpecField>, &str)> = vec![
            (
                vec![SpecField::Image],
                "Its spec.image is valkey/valkey:9.0.0, the ValkeyCluster's is \
                 valkey/valkey:9.0.1: a Spec-driven roll",
            ),
            (
                vec![SpecField::Resources, SpecField::Config],
                "Its spec.resources, spec.config differ from what the ValkeyCluster asks: \
                 a Spec-driven roll whose walk has not reached it yet, queue position 2. \
                 The cluster controller copies the new spec (and its new revision)",
            ),
            (
                vec![SpecField::LiveConfig],
                "Its spec.config (keys set live) differs from what the ValkeyCluster asks: \
                 a Spec-driven roll whose walk has not reached it yet, queue position 2. \
                 The cluster controller copies the new spec into it when the walk does, one \
                 node at a time; the server takes the new values live, its pod is not \
                 replaced.",
            ),
            (
                vec![],
                "another node asks for a new revision with its spec unchanged",
            ),
        ];
        for (fields, want) in cases {
            let got = behind_prose(&behind(fields.clone()), ", queue position 2");
            assert!(got.contains(want), "{fields:?}: {got}");
        }
    }
}
