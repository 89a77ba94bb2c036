//! One cluster's prose: why its queue is or is not moving, and what a
//! person could do next.

use crate::render::step::Step;
use crate::render::words;
use crate::report::{ClusterReport, NodeState, Protocol, RoleSource, Verdict};
use crate::shell::CommandLine;
use crate::snapshot::{LeaseRead, ValkeyCluster};
use crate::units::{human, human_or};

/// `kubectl valkey-roll VERB`, to which each value is added quoted for
/// the shell ([`crate::shell`]): names from a file may hold anything.
/// Placeholders (`NODE`, `"..."`) go in as switches, as written.
pub(super) fn vr(verb: &str) -> CommandLine {
    CommandLine::new(&format!("kubectl valkey-roll {verb}"))
}

pub(super) fn cluster_reasoning(
    cluster: &ClusterReport,
    object: Option<&ValkeyCluster>,
) -> Vec<String> {
    let find = |name: &str| cluster.nodes.iter().find(|n| n.name == name);
    let waiting = match cluster.waiting {
        1 => "1 node waits".to_string(),
        w => format!("{w} nodes wait"),
    };
    let p2 = cluster.protocol == Protocol::P2;
    // P2 advances nodes, which are then in flight; P1 grants permits.
    let no_holder = if p2 {
        "No node is in flight."
    } else {
        "No node holds a permit."
    };
    let mut out = Vec::new();
    match cluster.verdict {
        Verdict::Conflict if p2 => out.push(format!(
            "{} nodes are in flight at once ({}): the one-at-a-time rule is broken. A grant \
             by hand off the walk's front usually does this; each of them rolls at the same \
             time.",
            cluster.holders.len(),
            cluster.holders.join(", ")
        )),
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
                let reason = words::Said(&holder.reason, cluster.protocol);
                out.push(if p2 {
                    format!(
                        "{} is in flight and is {} ({reason}); advanced {held} ago (time from \
                         {}). While it is in flight, the cluster controller advances no other \
                         node: {waiting} behind it.",
                        holder.name, holder.state, holder.granted_at_source,
                    )
                } else {
                    format!(
                        "{} holds the permit and is {} ({reason}); held {held} (grant time from \
                         {}). While it holds, the cluster controller grants no other node: \
                         {waiting} behind it.",
                        holder.name, holder.state, holder.granted_at_source,
                    )
                });
            } else if let Some(front) = cluster.front.as_deref().and_then(find) {
                out.push(format!(
                    "{no_holder} The walk's front, {}, is {} with failure evidence ({}); the \
                     cluster controller waits on it, and {waiting} behind it.",
                    front.name,
                    front.state,
                    front
                        .evidence
                        .iter()
                        .map(|e| e.finding.to_string())
                        .collect::<Vec<_>>()
                        .join("; ")
                ));
            } else {
                out.push(words::ClusterSaid(&cluster.reason, cluster.protocol).to_string());
            }
        }
        Verdict::Stalled | Verdict::Waiting => {
            let quiet = human_or(cluster.quiet_for_seconds, "an unknown time");
            let threshold = human(cluster.stall_threshold_seconds);
            match cluster.front.as_deref().and_then(find) {
                Some(front) if front.state == NodeState::Blocking => out.push(format!(
                    "{no_holder} The walk's front, {}, is Blocking: {}. The controller waits \
                     for it to become healthy before it {} anyone.",
                    front.name,
                    if front.facts.unhealthy_because.is_empty() {
                        "it is not healthy".to_string()
                    } else {
                        words::joined(&front.facts.unhealthy_because)
                    },
                    if p2 { "advances" } else { "grants" }
                )),
                Some(front) => out.push(format!(
                    "{no_holder} The walk's front, {}, asks for {} and is due {}.",
                    front.name,
                    front.desired_revision.as_deref().unwrap_or("a revision"),
                    if p2 { "to be advanced" } else { "a grant" }
                )),
                None => out.push(format!(
                    "{} and none waits, but the ValkeyCluster reports that it is not done{}.",
                    no_holder.trim_end_matches('.'),
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
        Verdict::Converged => out.push(format!(
            "{}, none asks for a revision, every node is healthy and the ValkeyCluster does \
             not report an unfinished roll.",
            no_holder.trim_end_matches('.')
        )),
    }
    // What is under way beside the verdict.
    if let crate::report::ClusterReason::OperatorSilent { silence, .. } = &cluster.reason {
        out.push(format!(
            "{}. The verdict is what the objects say, but nobody may be acting on them: \
             check that the valkey-operator runs (its pod, its logs, its Lease).",
            upper_first(&silence.to_string())
        ));
    }
    for aside in words::asides(cluster) {
        out.push(format!("{}.", upper_first(&aside)));
    }
    out.push(walk_order(cluster));
    if !cluster.cluster_found {
        out.push(
            "The ValkeyCluster object itself was not in view; this report is built from the \
             nodes that carry its label."
                .into(),
        );
    }
    out
}

/// `The …`: a sentence's first letter up.
fn upper_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The operator's Lease in one line: who leads and when it last renewed,
/// or why it was not read.
pub(super) fn lease_line(lease: &LeaseRead, now: jiff::Timestamp) -> String {
    let name = crate::snapshot::LEASE_NAME;
    match lease {
        LeaseRead::Read(l) => format!(
            "The operator's leader-election Lease {}/{name}: held by {}, last renewed {}.",
            l.namespace,
            l.holder.as_deref().unwrap_or("nobody"),
            l.renewed_at.map_or_else(
                || "never".to_string(),
                |t| format!("{} ago", crate::units::age(t, now))
            )
        ),
        LeaseRead::Forbidden { namespace } => format!(
            "The operator's Lease {namespace}/{name} could not be read: get on leases in \
             {namespace} is forbidden (optional; see the README's Role)."
        ),
        LeaseRead::NotFound { namespace } => format!(
            "No Lease {namespace}/{name}: the operator runs in another namespace \
             (--operator-namespace), or without leader election."
        ),
        LeaseRead::Offline => {
            "The operator's Lease is not in a snapshot file; read live to see who leads it.".into()
        }
        LeaseRead::Failed(why) => format!("The operator's Lease could not be read: {why}."),
    }
}

/// How the controller orders the walk, and which node was taken as each
/// shard's primary where that decides it. The plugin cannot read the live
/// Valkey topology the controller reads; the judged roles stand in for it.
fn walk_order(cluster: &ClusterReport) -> String {
    if !cluster.walk_by_primary {
        return format!(
            "No node asks, {} or is behind, so the controller reads no topology: it walks \
             every shard by node index descending.",
            holds_word(cluster)
        );
    }
    let mut shards: Vec<Option<u32>> = cluster.nodes.iter().map(|n| n.shard).collect();
    shards.dedup();
    let per_shard: Vec<String> = shards
        .iter()
        .flatten()
        .map(|&shard| {
            match cluster
                .nodes
                .iter()
                .find(|n| n.shard == Some(shard) && n.facts.is_primary)
            {
                Some(p) => format!(
                    "shard {shard}: {} is taken as primary and goes last",
                    p.name
                ),
                None => format!(
                    "shard {shard}: no primary known (no single ready node judged primary), \
                     so node index descending"
                ),
            }
        })
        .collect();
    format!(
        "Some node asks, {} or is behind, so the controller walks each shard's other \
         nodes by node index ascending and its primary last ({}). The primary is the one \
         ready node judged primary: {}.",
        holds_word(cluster),
        per_shard.join("; "),
        roles_from(cluster)
    )
}

/// Where the judged roles came from, naming the way this operator writes
/// status.role (docs/roles.md, "Which operator writes status.role"): live
/// from the server (#320, v0.6.0 on), or a last reading that lags
/// (c33988f).
fn roles_from(cluster: &ClusterReport) -> String {
    let api = if cluster.status_role_live {
        "the operator's events (slots given, failovers completed), the walk and replaced \
         pods, and status.role, which this operator writes live from each server (v0.6.0 \
         on)"
    } else {
        "the operator's events (slots given, failovers completed), the walk and replaced \
         pods, and status.role only where nothing newer speaks (this operator's status.role \
         lags failovers and reads primary for a freshly restarted replica)"
    };
    let servers = cluster
        .nodes
        .iter()
        .any(|n| n.role_source == Some(RoleSource::Server));
    if servers {
        format!("from each node's own server where it was read, else from {api}")
    } else {
        format!("from {api}")
    }
}

/// `holds` (P1) or `is in flight` (P2).
fn holds_word(cluster: &ClusterReport) -> &'static str {
    if cluster.protocol == Protocol::P2 {
        "is in flight"
    } else {
        "holds"
    }
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

pub(super) fn cluster_next_steps(cluster: &ClusterReport) -> Vec<Step> {
    let ns = &cluster.namespace;
    let name = &cluster.name;
    let p2 = cluster.protocol == Protocol::P2;
    let mut steps = Vec::new();
    match cluster.verdict {
        Verdict::Conflict => {
            let mut each = Step::say("Look at each holder:");
            for holder in &cluster.holders {
                each = each.run(vr("explain").arg(holder).opt("-n", ns));
            }
            steps.push(each);
            if p2 {
                steps.push(
                    "In P2 there is no revoke: let the rolls finish, fixing any that fail.".into(),
                );
            } else {
                steps.push(
                    Step::say(
                        "Keep one: revoke each of the others (revoking does not roll a pod \
                         back):",
                    )
                    .run(
                        vr("revoke")
                            .switch("NODE")
                            .opt("-n", ns)
                            .switch("--reason \"...\""),
                    ),
                );
            }
        }
        Verdict::Jammed => {
            let culprit = cluster.holders.first().or(cluster.front.as_ref());
            if let Some(node) = culprit {
                steps.push(
                    Step::say("See the evidence and the ways out:")
                        .run(vr("explain").arg(node).opt("-n", ns)),
                );
            }
            if !p2 && let Some(holder) = cluster.holders.first() {
                steps.push(
                    Step::say("Fix the cause, or remove the permit:")
                        .run(vr("revoke").arg(holder).opt("-n", ns))
                        .then("or move the permit:")
                        .run(
                            vr("force")
                                .switch("OTHER")
                                .opt("-n", ns)
                                .switch("--takeover --reason \"...\""),
                        ),
                );
            }
            if p2 {
                steps.push(
                    "There is no revoke in P2; fixing the cause (template or image) is the way \
                     out."
                        .into(),
                );
                if let Some(node) =
                    culprit.and_then(|c| cluster.nodes.iter().find(|n| &n.name == c))
                    && node.facts.pod_superseded_not_ready
                {
                    steps.push(
                        Step::say("Its pod is trapped on a superseded revision (OrderedReady):")
                            .run(
                                vr("replace-pod")
                                    .arg(&node.name)
                                    .opt("-n", ns)
                                    .switch("--reason \"...\""),
                            ),
                    );
                }
            }
        }
        Verdict::Rolling => steps.push(
            Step::say("Nothing yet: follow it, or wait for it:")
                .run(vr("status").arg(name).opt("-n", ns).switch("--watch"))
                .run(vr("wait").arg(name).opt("-n", ns)),
        ),
        Verdict::Stalled => {
            steps.push("Check that the valkey-operator is running and look at its logs.".into());
            if let Some(front) = &cluster.front {
                steps.push(
                    Step::say("See why the front waits:")
                        .run(vr("explain").arg(front).opt("-n", ns)),
                );
                let front_waits = cluster
                    .nodes
                    .iter()
                    .any(|n| &n.name == front && n.state == NodeState::Waiting);
                if front_waits {
                    steps.push(
                        Step::say(format!(
                            "{} it by hand (add --allow-primary for a primary):",
                            if p2 { "Advance" } else { "Grant" }
                        ))
                        .run(
                            vr("grant")
                                .arg(front)
                                .opt("-n", ns)
                                .switch("--reason \"...\""),
                        ),
                    );
                }
            } else {
                steps.push(
                    Step::say("Look at the ValkeyCluster's status:").run(
                        CommandLine::new("kubectl describe valkeycluster")
                            .arg(name)
                            .opt("-n", ns),
                    ),
                );
            }
        }
        Verdict::Waiting => steps.push(Step::say(format!(
            "Nothing yet: {} is due. If nothing moves for {}, the verdict turns Stalled.",
            if p2 { "an advance" } else { "a grant" },
            human(cluster.stall_threshold_seconds)
        ))),
        Verdict::Converged => steps.push("Nothing.".into()),
    }
    steps
}
