//! docs/plugin.md's rules for each action: what refuses a grant (P1, P2), a
//! revoke and a force, what only warns, and the patches, Events, undo and
//! confirmation of a plan that goes ahead.

use super::patch::{
    EventType, event_message, grant_patch, may_be_primary, node_event, node_rv, revoke_patch,
};
use super::refusal::{Confirmation, HolderInfo, Overridden, PodTrouble, Refusal, Warning};
use super::servers;
use super::undo::undo_of;
use super::{Plan, RuleInput};
use crate::report::{NodeReport, Protocol};
use crate::snapshot::keys;

/// The value a grant or force writes: `--revision`, `*` for `--any`, else
/// the asked-for revision. Refuses when there is none.
fn value_to_write(c: &RuleInput<'_>, protocol: Protocol) -> Result<String, Refusal> {
    if let Some(given) = c.request.steer.value_given() {
        return Ok(given);
    }
    let node = c.node.name.clone();
    match (&c.node.desired_revision, c.node.facts.asks) {
        (Some(h), _) => Ok(h.clone()),
        (None, true) => Err(Refusal::AskedRevisionUnknown { node, protocol }),
        (None, false) => Err(Refusal::AsksNothing { node, protocol }),
    }
}

/// A grant is refused while another node holds: one refusal per holder.
fn other_holders(c: &RuleInput<'_>) -> Vec<Refusal> {
    c.others
        .iter()
        .map(|o| Refusal::OtherHolder(HolderInfo::of(o)))
        .collect()
}

/// A grant of the shard's primary needs `--allow-primary`.
fn primary_without_allow(c: &RuleInput<'_>) -> Option<Refusal> {
    let unsure = may_be_primary(c.node)?;
    (!c.request.steer.allow_primary()).then(|| Refusal::Primary {
        node: c.node.name.clone(),
        unsure,
        source: c.node.role_source,
    })
}

/// The warning that the node may be its shard's primary.
fn primary_warning(c: &RuleInput<'_>) -> Option<Warning> {
    may_be_primary(c.node).map(|unsure| Warning::Primary {
        node: c.node.name.clone(),
        unsure,
        source: c.node.role_source,
    })
}

/// Refuses the plan for every refusal found; true when there was one.
fn refuse_all(plan: &mut Plan, refusals: Vec<Refusal>) -> bool {
    let refused = !refusals.is_empty();
    for r in refusals {
        plan.refuse(r);
    }
    refused
}

pub(super) fn grant_p1(c: &RuleInput<'_>, plan: &mut Plan) {
    let mut refusals = other_holders(c);
    let value = value_to_write(c, Protocol::P1);
    if let Err(r) = &value {
        refusals.push(r.clone());
    }
    refusals.extend(primary_without_allow(c));
    refusals.extend(servers::refusal(c.cluster, c.node));
    if let Ok(v) = &value
        && c.node.facts.holder
        && c.node.permit.as_deref() == Some(v.as_str())
    {
        refusals.push(Refusal::AlreadyHeld {
            node: c.node.name.clone(),
            revision: v.clone(),
        });
    }
    if refuse_all(plan, refusals) {
        return;
    }
    let Ok(value) = value else { return };
    plan.warnings.extend(primary_warning(c));
    common_grant_warnings(c, plan, &value, Protocol::P1);
    not_front_warning(c, plan);
    servers::warnings(c.node, plan);
    plan.patches.push(grant_patch(c, &value, Protocol::P1));
    plan.events.push(node_event(
        c,
        EventType::Normal,
        c.node,
        keys::EVENT_MANUAL_GRANTED,
        event_message(c, "granted the roll permit", Some(&value), None),
    ));
    plan.undo = undo_of(c.request, &plan.patches, std::slice::from_ref(&c.node.name));
    plan.revision = Some(value);
}

pub(super) fn grant_p2(c: &RuleInput<'_>, plan: &mut Plan) {
    let mut refusals = other_holders(c);
    if c.request.steer.any() {
        refusals.push(Refusal::NoAnyInP2);
    }
    let value = value_to_write(c, Protocol::P2);
    if let Err(r) = &value {
        refusals.push(r.clone());
    }
    refusals.extend(primary_without_allow(c));
    refusals.extend(servers::refusal(c.cluster, c.node));
    if c.cluster.front.as_deref() != Some(c.node.name.as_str()) {
        refusals.push(Refusal::NotFront {
            node: c.node.name.clone(),
            front: c.cluster.front.clone(),
        });
    }
    if let Ok(v) = &value
        && c.node.permit.as_deref() == Some(v.as_str())
    {
        refusals.push(Refusal::AlreadyHeld {
            node: c.node.name.clone(),
            revision: v.clone(),
        });
    }
    if refuse_all(plan, refusals) {
        return;
    }
    let Ok(value) = value else { return };
    plan.warnings.extend(primary_warning(c));
    common_grant_warnings(c, plan, &value, Protocol::P2);
    plan.warnings.push(Warning::NoUndoInP2 {
        node: c.node.name.clone(),
    });
    servers::warnings(c.node, plan);
    plan.patches.push(grant_patch(c, &value, Protocol::P2));
    plan.events.push(node_event(
        c,
        EventType::Normal,
        c.node,
        keys::EVENT_MANUAL_GRANTED,
        event_message(c, "set spec.workloadRevision", Some(&value), None),
    ));
    plan.revision = Some(value);
}

pub(super) fn revoke_p1(c: &RuleInput<'_>, plan: &mut Plan) {
    let Some(old) = c.node.permit.clone().filter(|_| c.node.facts.holder) else {
        plan.refuse(Refusal::HoldsNothing {
            node: c.node.name.clone(),
        });
        return;
    };
    plan.warnings.push(Warning::RevokeDoesNotRollBack {
        node: c.node.name.clone(),
    });
    if !c.node.facts.healthy {
        plan.warnings.push(Warning::NotHealthy {
            node: c.node.name.clone(),
            because: c.node.facts.unhealthy_because.clone(),
        });
    }
    // docs/plugin.md asks before revoking a holder whose *pod* is unhealthy; a
    // Settling holder (pod Ready, node status not ready yet) goes ahead.
    if let Some(because) = pod_unhealthy_because(c.node) {
        plan.confirmation = Some(Confirmation::Revoke {
            node: c.node.name.clone(),
            permit: old.clone(),
            because,
        });
    }
    servers::warnings(c.node, plan);
    plan.patches.push(revoke_patch(c.node, c.rv.clone()));
    plan.events.push(node_event(
        c,
        EventType::Normal,
        c.node,
        keys::EVENT_MANUAL_REVOKED,
        event_message(c, "revoked the roll permit", Some(&old), None),
    ));
    // The other holders keep theirs: giving the permit back then needs force.
    plan.undo = undo_of(c.request, &plan.patches, &plan.other_holders);
}

pub(super) fn force_p1(c: &RuleInput<'_>, plan: &mut Plan) {
    let value = match value_to_write(c, Protocol::P1) {
        Ok(v) => v,
        Err(r) => {
            plan.refuse(r);
            return;
        }
    };
    // Force goes past the checks grant would refuse on; each one becomes a
    // warning, and the confirmation repeats them.
    let mut overridden: Vec<Overridden> = Vec::new();
    for o in c.others {
        let holder = HolderInfo::of(o);
        overridden.push(Overridden::Holder {
            holder: holder.clone(),
            takeover: c.request.steer.takeover(),
        });
        plan.warnings.push(Warning::OtherHolder {
            holder,
            takeover: c.request.steer.takeover(),
        });
    }
    if let Some(unsure) = may_be_primary(c.node) {
        overridden.push(Overridden::Primary {
            node: c.node.name.clone(),
            unsure: unsure.clone(),
            source: c.node.role_source,
        });
        plan.warnings.extend(primary_warning(c));
    }
    if let Some(refusal) = servers::force_past(c.cluster, c.node, c.request, &mut overridden, plan)
    {
        plan.refuse(refusal);
        return;
    }
    if let Some(front) = c.cluster.front.as_deref()
        && front != c.node.name
    {
        overridden.push(Overridden::NotFront {
            node: c.node.name.clone(),
            front: front.to_string(),
        });
    }
    not_front_warning(c, plan);
    common_grant_warnings(c, plan, &value, Protocol::P1);
    servers::warnings(c.node, plan);

    if c.request.steer.takeover() {
        for o in c.others {
            let rv = node_rv(c.snapshot, &c.request.namespace, o);
            plan.patches.push(revoke_patch(o, rv));
            plan.events.push(node_event(
                c,
                EventType::Normal,
                o,
                keys::EVENT_MANUAL_REVOKED,
                event_message(
                    c,
                    "revoked the roll permit",
                    o.permit.as_deref(),
                    Some(&format!("force --takeover for {}", c.node.name)),
                ),
            ));
        }
    } else {
        plan.kept_holders = plan.other_holders.clone();
    }
    plan.patches.push(grant_patch(c, &value, Protocol::P1));
    plan.events.push(node_event(
        c,
        EventType::Warning,
        c.node,
        keys::EVENT_MANUAL_FORCED,
        event_message(c, "forced the roll permit", Some(&value), None),
    ));

    let mut holding = plan.kept_holders.clone();
    holding.push(c.node.name.clone());
    plan.undo = undo_of(c.request, &plan.patches, &holding);

    plan.confirmation = Some(Confirmation::Force {
        node: c.node.name.clone(),
        value: value.clone(),
        overridden,
    });
    plan.revision = Some(value);
}

/// Why the node's pod (or its workload) is unhealthy, or `None` when its
/// pod is Ready and neither shows failure evidence. A pod that cannot be
/// found counts as unhealthy: nothing says it runs.
fn pod_unhealthy_because(n: &NodeReport) -> Option<Vec<PodTrouble>> {
    let mut because = Vec::new();
    match n.facts.pod_ready {
        Some(true) => {}
        Some(false) => because.push(PodTrouble::NotReady { pod: n.pod.clone() }),
        None => because.push(PodTrouble::NotFound),
    }
    because.extend(
        n.evidence
            .iter()
            .filter(|e| e.kind.is_failure())
            .map(|e| PodTrouble::Evidence(e.finding.clone())),
    );
    (!because.is_empty()).then_some(because)
}

fn not_front_warning(c: &RuleInput<'_>, plan: &mut Plan) {
    if c.cluster.front.as_deref() != Some(c.node.name.as_str()) {
        plan.warnings.push(Warning::NotFront {
            node: c.node.name.clone(),
            front: c.cluster.front.clone(),
        });
    }
}

fn common_grant_warnings(c: &RuleInput<'_>, plan: &mut Plan, value: &str, protocol: Protocol) {
    if !c.node.facts.healthy {
        plan.warnings.push(Warning::NotHealthy {
            node: c.node.name.clone(),
            because: c.node.facts.unhealthy_because.clone(),
        });
    }
    if value != "*" && c.node.desired_revision.as_deref() != Some(value) {
        plan.warnings.push(Warning::RevisionDiffers {
            node: c.node.name.clone(),
            written: value.to_string(),
            asked: c.node.desired_revision.clone(),
            protocol,
        });
    }
    if protocol == Protocol::P1
        && c.node.facts.holder
        && let Some(old) = c.node.permit.as_deref()
        && old != value
    {
        plan.warnings.push(Warning::ReplacesPermit {
            node: c.node.name.clone(),
            old: old.to_string(),
        });
    }
}
