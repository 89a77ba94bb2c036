//! One node's objects (ValkeyNode, workload, pod) and the plain facts read
//! from them: asks, asked-for revision, permit, holder, healthy, template
//! roll in progress, rolled out (docs/plugin.md, "Words").

use super::index::Index;
use super::text::hash_in;
use crate::report::{Protocol, Role, Unhealthy};
use crate::snapshot::{
    Deployment, Metadata, Pod, PodCondition, StatefulSet, ValkeyNode, WorkloadKind, keys,
};
use jiff::Timestamp;
use k8s_openapi::api::core::v1::Event;

/// How long after an advance the node controller marks the node not ready
/// (in the recordings, within the second; an operator under load takes
/// longer).
const NOT_READY_AFTER_ADVANCE: jiff::SignedDuration = jiff::SignedDuration::from_secs(60);

/// Condition times have whole seconds, event times microseconds, and the
/// event recorder writes asynchronously: an event can land after the
/// write it tells of.
const ADVANCE_SLACK: jiff::SignedDuration = jiff::SignedDuration::from_secs(2);

/// A ValkeyNode with the objects found for it in the snapshot.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NodeObjects<'a> {
    pub node: &'a ValkeyNode,
    pub pod: Option<&'a Pod>,
    pub sts: Option<&'a StatefulSet>,
    pub deployment: Option<&'a Deployment>,
    /// The events that name the node ([`Index::events_naming`]), looked up
    /// once: progress, the roll's start, the estimate and the history each
    /// read them.
    pub events: &'a [&'a Event],
}

fn label<'a>(m: &'a impl Metadata, key: &str) -> Option<&'a str> {
    m.label(key)
}

/// A non-empty string, else None (an empty annotation is no annotation).
fn non_empty(s: Option<&str>) -> Option<&str> {
    s.filter(|v| !v.trim().is_empty())
}

impl<'a> NodeObjects<'a> {
    /// Finds the node's workload (`valkey-<node>`, of its workload type) and
    /// its pod: `status.podName` when set and present; otherwise the pod
    /// labelled `app.kubernetes.io/instance=<node>`, preferring one that is
    /// not being deleted, then the newest.
    pub(crate) fn new(index: &'a Index<'a>, node: &'a ValkeyNode) -> Self {
        let ns = node.namespace();
        let workload = node.workload_name();
        let (sts, deployment) = match node.workload_kind() {
            WorkloadKind::StatefulSet => (index.stateful_set(ns, &workload), None),
            WorkloadKind::Deployment => (None, index.deployment(ns, &workload)),
        };
        let by_name = node
            .status
            .as_ref()
            .and_then(|s| non_empty(s.pod_name.as_deref()))
            .and_then(|p| index.pod(ns, p));
        let pod = by_name.or_else(|| {
            index
                .pods_of_instance(ns, node.name())
                .iter()
                .copied()
                .max_by_key(|p| {
                    (
                        p.metadata.deletion_timestamp.is_none(),
                        p.metadata.creation_timestamp.as_ref().map(|t| t.0),
                        p.metadata.name.clone(),
                    )
                })
        });
        NodeObjects {
            node,
            pod,
            sts,
            deployment,
            events: index.events_of(node),
        }
    }

    pub(crate) fn name(&self) -> &'a str {
        self.node.name()
    }

    /// The events that name the node, as [`Index::events_naming`] gives them.
    pub(crate) fn events_naming(&self) -> impl Iterator<Item = &'a Event> + use<'a> {
        self.events.iter().copied()
    }

    pub(crate) fn namespace(&self) -> &'a str {
        self.node.namespace()
    }

    /// Owned by a controlling ValkeyCluster: permits apply.
    pub(crate) fn cluster_owned(&self) -> bool {
        self.node.controller_cluster().is_some()
    }

    fn condition_true(&self, type_: &str) -> Option<&'a crate::snapshot::Condition> {
        self.node.condition(type_).filter(|c| c.is_true())
    }

    /// P1: WorkloadDrift True or the desired annotation set. P2:
    /// WorkloadRollPending True. Unknown protocol: P1's rule (nothing is
    /// staged there, so it finds nothing).
    pub(crate) fn asks(&self, protocol: Protocol) -> bool {
        match protocol {
            Protocol::P2 => self.condition_true(keys::COND_PENDING).is_some(),
            Protocol::P1 | Protocol::Unknown => {
                self.condition_true(keys::COND_DRIFT).is_some()
                    || non_empty(self.node.annotation(keys::ANN_DESIRED)).is_some()
            }
        }
    }

    /// The asked-for revision. P1: the desired annotation, else the hash in
    /// the True WorkloadDrift condition's message. P2: the hash in the True
    /// WorkloadRollPending condition's message.
    pub(crate) fn asked_for(&self, protocol: Protocol) -> Option<&'a str> {
        let in_message = |type_| {
            self.condition_true(type_)
                .and_then(|c| c.message.as_deref())
                .and_then(hash_in)
        };
        match protocol {
            Protocol::P2 => in_message(keys::COND_PENDING),
            Protocol::P1 | Protocol::Unknown => non_empty(self.node.annotation(keys::ANN_DESIRED))
                .or_else(|| in_message(keys::COND_DRIFT)),
        }
    }

    /// P1: the permit annotation; P2: `spec.workloadRevision`.
    pub(crate) fn permit(&self, protocol: Protocol) -> Option<&'a str> {
        match protocol {
            Protocol::P2 => non_empty(self.node.spec.workload_revision.as_deref()),
            Protocol::P1 | Protocol::Unknown => non_empty(self.node.annotation(keys::ANN_PERMIT)),
        }
    }

    pub(crate) fn last_rollout_hash(&self) -> Option<&'a str> {
        non_empty(self.node.status.as_ref()?.last_rollout_hash.as_deref())
    }

    pub(crate) fn role(&self) -> Option<&'a str> {
        non_empty(self.node.status.as_ref()?.role.as_deref())
    }

    /// `status.role` as a role (anything but `primary` or `replica`, such
    /// as an empty string, is none).
    pub(crate) fn status_role(&self) -> Option<Role> {
        match self.role()? {
            "primary" => Some(Role::Primary),
            "replica" => Some(Role::Replica),
            _ => None,
        }
    }

    /// The address of the node's server: `status.podIP`, else its pod's IP.
    pub(crate) fn pod_ip(&self) -> Option<&'a str> {
        let from_node = self
            .node
            .status
            .as_ref()
            .and_then(|s| non_empty(s.pod_ip.as_deref()));
        from_node.or_else(|| non_empty(self.pod?.status.as_ref()?.pod_ip.as_deref()))
    }

    /// `status.ready` is true.
    pub(crate) fn node_ready(&self) -> bool {
        self.node.status.as_ref().and_then(|s| s.ready) == Some(true)
    }

    /// `status.observedGeneration` has caught up with `metadata.generation`
    /// (true where either is not set).
    pub(crate) fn generation_observed(&self) -> bool {
        match (
            self.node.metadata.generation,
            self.node
                .status
                .as_ref()
                .and_then(|s| s.observed_generation),
        ) {
            (Some(g), Some(o)) => o >= g,
            _ => true,
        }
    }

    pub(crate) fn pod_name(&self) -> Option<String> {
        self.pod.and_then(|p| p.metadata.name.clone()).or_else(|| {
            self.node
                .status
                .as_ref()
                .and_then(|s| non_empty(s.pod_name.as_deref()))
                .map(str::to_string)
        })
    }

    fn pod_ready_condition(&self) -> Option<&'a PodCondition> {
        self.pod?
            .status
            .as_ref()?
            .conditions
            .as_ref()?
            .iter()
            .find(|c| c.type_ == "Ready")
    }

    /// The pod is Ready (None: no pod found). A pod being deleted is going
    /// away, so it does not count as Ready whatever its condition says.
    pub(crate) fn pod_ready(&self) -> Option<bool> {
        let pod = self.pod?;
        if pod.metadata.deletion_timestamp.is_some() {
            return Some(false);
        }
        Some(
            self.pod_ready_condition()
                .is_some_and(|c| c.status == "True"),
        )
    }

    /// When the pod became Ready (its Ready=True condition's transition).
    pub(crate) fn pod_ready_since(&self) -> Option<Timestamp> {
        if self.pod_ready() != Some(true) {
            return None;
        }
        self.pod_ready_condition()?
            .last_transition_time
            .as_ref()
            .map(|t| t.0)
    }

    /// When the pod stopped being Ready (its Ready=False condition's
    /// transition); None when Ready or unknown.
    pub(crate) fn pod_not_ready_since(&self) -> Option<Timestamp> {
        let c = self.pod_ready_condition()?;
        if c.status == "True" {
            return None;
        }
        c.last_transition_time.as_ref().map(|t| t.0)
    }

    /// The times of the managedFields entries owning `spec.workloadRevision`:
    /// the operator's spec entry owns it with the rest of the spec, so its
    /// time is that of the operator's latest spec write (an advance, or the
    /// creation).
    pub(crate) fn revision_written_times(&self) -> impl Iterator<Item = Timestamp> + use<'a> {
        crate::snapshot::field_written_times(&self.node.metadata, &["f:spec", "f:workloadRevision"])
    }

    /// The times the node was advanced, as far as its objects tell: each
    /// occurrence of a ValkeyNodeUpdated or WorkloadRollApplied naming it
    /// (the first, and a series' last), and the time of the managedFields
    /// entry owning `spec.workloadRevision` (events expire, or may not be
    /// readable; that time moves with any spec write of its manager, so it
    /// is the latest advance at most; the node's creation, which writes the
    /// field too, is not an advance).
    pub(crate) fn advance_times(&self) -> impl Iterator<Item = Timestamp> + use<'a> {
        let from_events = self
            .events_naming()
            .filter(|e| {
                matches!(
                    super::events::reason(e),
                    keys::EVENT_NODE_UPDATED | keys::EVENT_APPLIED
                )
            })
            .flat_map(|e| [super::events::first_time(e), super::events::time(e)])
            .flatten();
        let revision_written = self.revision_written_times();
        let created = self.node.metadata.creation_timestamp.as_ref().map(|t| t.0);
        let after_creation =
            move |t: &Timestamp| created.is_none_or(|c| t.duration_since(c) > ADVANCE_SLACK);
        from_events.chain(revision_written.filter(after_creation))
    }

    /// When the node's own Ready condition turned False (the node
    /// controller's write); None when it is not False or has no time.
    pub(crate) fn node_not_ready_since(&self) -> Option<Timestamp> {
        self.node
            .condition(keys::COND_READY)
            .filter(|c| c.is_false())
            .and_then(|c| c.last_transition_time.as_ref())
            .map(|t| t.0)
    }

    /// Not ready since an advance: its status is not ready for its
    /// generation, and its Ready condition turned False when it was
    /// advanced (the node controller marks a node not ready in the pass
    /// that applies its new template). A node that went not ready on its
    /// own, long after its last advance, is not rolling.
    pub(crate) fn not_ready_since_advance(&self) -> bool {
        if self.node_ready() && self.generation_observed() {
            return false;
        }
        let Some(turned) = self.node_not_ready_since() else {
            return false;
        };
        self.advance_times().any(|a| {
            let d = turned.duration_since(a);
            d >= -ADVANCE_SLACK && d <= NOT_READY_AFTER_ADVANCE
        })
    }

    /// Healthy (docs/plugin.md), and the reasons it is not.
    pub(crate) fn unhealthy_because(&self) -> Vec<Unhealthy> {
        let mut why = Vec::new();
        if !self.node_ready() {
            why.push(Unhealthy::NodeNotReady);
        }
        if self.pod_ready() == Some(false) {
            let pod = self.pod_name().unwrap_or_default();
            if self
                .pod
                .is_some_and(|p| p.metadata.deletion_timestamp.is_some())
            {
                why.push(Unhealthy::PodBeingDeleted { pod });
            } else {
                why.push(Unhealthy::PodNotReady { pod });
            }
        }
        if !self.generation_observed() {
            why.push(Unhealthy::GenerationNotObserved {
                generation: self.node.metadata.generation.unwrap_or_default(),
                observed: self
                    .node
                    .status
                    .as_ref()
                    .and_then(|s| s.observed_generation)
                    .unwrap_or_default(),
            });
        }
        if self
            .node
            .condition(keys::COND_LIVE_CONFIG)
            .is_some_and(|c| c.is_false())
        {
            why.push(Unhealthy::LiveConfigNotApplied);
        }
        why
    }

    /// Template roll in progress (None: no workload found).
    /// StatefulSet: observedGeneration behind generation, or current and
    /// update revisions differ. Deployment: observedGeneration behind
    /// generation, or fewer updated replicas than wanted, or old pods left.
    /// A missing observedGeneration counts as not yet observed.
    pub(crate) fn template_roll_in_progress(&self) -> Option<bool> {
        if let Some(sts) = self.sts {
            let st = sts.status.as_ref();
            let behind = behind(
                sts.metadata.generation,
                st.and_then(|s| s.observed_generation),
            );
            let cur = st.and_then(|s| s.current_revision.as_deref());
            let upd = st.and_then(|s| s.update_revision.as_deref());
            return Some(behind || cur != upd);
        }
        if let Some(d) = self.deployment {
            let st = d.status.as_ref();
            let behind = behind(
                d.metadata.generation,
                st.and_then(|s| s.observed_generation),
            );
            let wanted = d.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
            let updated = st.and_then(|s| s.updated_replicas).unwrap_or(0);
            let replicas = st.and_then(|s| s.replicas).unwrap_or(0);
            return Some(behind || updated < wanted || replicas > updated);
        }
        None
    }

    /// Rolled out (None: no workload found): no template roll in progress
    /// and ready replicas; for a StatefulSet also the pod's
    /// `controller-revision-hash` equal to the update revision when the
    /// label is there.
    pub(crate) fn rolled_out(&self) -> Option<bool> {
        let in_progress = self.template_roll_in_progress()?;
        if let Some(sts) = self.sts {
            let st = sts.status.as_ref();
            let ready = st.and_then(|s| s.ready_replicas).unwrap_or(0) >= 1;
            let upd = st.and_then(|s| s.update_revision.as_deref());
            let pod_on_update = self.pod_revision().is_none_or(|r| Some(r) == upd);
            return Some(!in_progress && ready && pod_on_update);
        }
        if let Some(d) = self.deployment {
            let wanted = d.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
            let ready = d
                .status
                .as_ref()
                .and_then(|s| s.ready_replicas)
                .unwrap_or(0);
            return Some(!in_progress && ready >= wanted);
        }
        None
    }

    /// The workload has been observed by its controller at least once
    /// (`status.observedGeneration` set and above 0). None: no workload
    /// found. A workload just created has an empty status for a moment:
    /// that is a node being created, not a roll in progress.
    pub(crate) fn workload_observed(&self) -> Option<bool> {
        let observed = if let Some(sts) = self.sts {
            sts.status.as_ref().and_then(|s| s.observed_generation)
        } else {
            self.deployment?
                .status
                .as_ref()
                .and_then(|s| s.observed_generation)
        };
        Some(observed.is_some_and(|g| g > 0))
    }

    /// The StatefulSet pod runs a revision other than the StatefulSet's
    /// `status.updateRevision` (false where either is unknown). After a
    /// revert under OrderedReady the StatefulSet can report its revisions
    /// equal while the pod still runs the other one.
    pub(crate) fn pod_superseded(&self) -> bool {
        self.sts.is_some()
            && matches!((self.pod_revision(), self.update_revision()), (Some(p), Some(u)) if p != u)
    }

    /// The StatefulSet pod runs the StatefulSet's update revision (None
    /// where either revision is unknown, or for a Deployment).
    pub(crate) fn pod_on_update_revision(&self) -> Option<bool> {
        self.sts?;
        Some(self.pod_revision()? == self.update_revision()?)
    }

    /// The StatefulSet pod is being replaced: it is being deleted, or it
    /// is gone and not yet recreated (the node's `status.podName` names a
    /// pod that is not there, so one existed).
    pub(crate) fn pod_being_replaced(&self) -> bool {
        if self.sts.is_none() {
            return false;
        }
        match self.pod {
            Some(p) => p.metadata.deletion_timestamp.is_some(),
            None => self
                .node
                .status
                .as_ref()
                .and_then(|s| non_empty(s.pod_name.as_deref()))
                .is_some(),
        }
    }

    /// The node's `spec.image` (the server image it runs or will run).
    pub(crate) fn image(&self) -> Option<&'a str> {
        non_empty(self.node.spec.image.as_deref())
    }

    /// The pod's `controller-revision-hash` label.
    pub(crate) fn pod_revision(&self) -> Option<&'a str> {
        label(&self.pod?.metadata, keys::LABEL_CONTROLLER_REVISION)
    }

    /// The StatefulSet's `status.updateRevision`.
    pub(crate) fn update_revision(&self) -> Option<&'a str> {
        self.sts?.status.as_ref()?.update_revision.as_deref()
    }
}

fn behind(generation: Option<i64>, observed: Option<i64>) -> bool {
    match (generation, observed) {
        (Some(g), Some(o)) => o < g,
        (Some(_), None) => true,
        _ => false,
    }
}

/// A node's pod as `replace-pod` needs it: which workload owns it, its
/// identity (UID, resourceVersion) and the two revisions the OrderedReady
/// trap is read from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct NodePod {
    /// The node's workload is a Deployment (which replaces its pods itself).
    pub deployment: bool,
    /// `valkey-<node>`.
    pub workload: String,
    /// The workload was found in the snapshot.
    pub workload_found: bool,
    /// The StatefulSet's `status.updateRevision`.
    pub update_revision: Option<String>,
    /// The pod, when one was found.
    pub pod: Option<PodFacts>,
}

/// One pod's identity and state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PodFacts {
    pub name: String,
    pub uid: Option<String>,
    pub resource_version: Option<String>,
    /// The Ready condition is True (and the pod is not being deleted).
    pub ready: bool,
    pub being_deleted: bool,
    /// The `controller-revision-hash` label.
    pub revision: Option<String>,
}

/// The predicate of the operator's PR #410: a StatefulSet pod that is not
/// Ready and whose `controller-revision-hash` differs from the
/// StatefulSet's `status.updateRevision` (a pod already being deleted is on
/// its way out and does not count).
pub(crate) fn superseded_not_ready(
    deployment: bool,
    workload_found: bool,
    pod: Option<(bool, bool, Option<&str>)>,
    update_revision: Option<&str>,
) -> bool {
    let Some((ready, being_deleted, revision)) = pod else {
        return false;
    };
    !deployment
        && workload_found
        && !ready
        && !being_deleted
        && matches!((revision, update_revision), (Some(r), Some(u)) if r != u)
}

impl NodeObjects<'_> {
    /// [`superseded_not_ready`] of `self.node_pod()` without copying the
    /// pod's strings: the report asks it of every node.
    pub(crate) fn pod_superseded_not_ready(&self) -> bool {
        superseded_not_ready(
            self.node.workload_kind() == WorkloadKind::Deployment,
            self.sts.is_some() || self.deployment.is_some(),
            self.pod.map(|p| {
                (
                    self.pod_ready() == Some(true),
                    p.metadata.deletion_timestamp.is_some(),
                    self.pod_revision(),
                )
            }),
            self.update_revision(),
        )
    }

    pub(crate) fn node_pod(&self) -> NodePod {
        NodePod {
            deployment: self.node.workload_kind() == WorkloadKind::Deployment,
            workload: self.node.workload_name(),
            workload_found: self.sts.is_some() || self.deployment.is_some(),
            update_revision: self.update_revision().map(str::to_string),
            pod: self.pod.map(|p| PodFacts {
                name: p.metadata.name.clone().unwrap_or_default(),
                uid: p.metadata.uid.clone(),
                resource_version: p.metadata.resource_version.clone(),
                ready: self.pod_ready() == Some(true),
                being_deleted: p.metadata.deletion_timestamp.is_some(),
                revision: self.pod_revision().map(str::to_string),
            }),
        }
    }
}
