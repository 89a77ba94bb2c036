//! The vocabulary the one-shot LIST ([`super::live`]) and the watch
//! ([`super::watch`]) share: the six kinds `status` reads, how each is
//! selected, and which names a selector can carry. Neither reader imports
//! the other's selection.

use crate::error::{Error, Result};
use crate::snapshot::{VALKEY_API_VERSION, ValkeyCluster, keys};
use k8s_openapi::api::apps::v1::{Deployment, StatefulSet};
use k8s_openapi::api::core::v1::{Event, Pod};
use kube::api::ApiResource;

/// The six kinds, in the order of [`Snapshot`]'s fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    ValkeyClusters,
    ValkeyNodes,
    StatefulSets,
    Deployments,
    Pods,
    Events,
}

impl Kind {
    pub(crate) const ALL: [Kind; 6] = [
        Kind::ValkeyClusters,
        Kind::ValkeyNodes,
        Kind::StatefulSets,
        Kind::Deployments,
        Kind::Pods,
        Kind::Events,
    ];

    pub(crate) fn index(self) -> usize {
        self as usize
    }

    pub(crate) fn api_resource(self) -> ApiResource {
        match self {
            Kind::ValkeyClusters => ApiResource::erase::<ValkeyCluster>(&()),
            Kind::ValkeyNodes => crate::snapshot::node_api_resource(),
            Kind::StatefulSets => ApiResource::erase::<StatefulSet>(&()),
            Kind::Deployments => ApiResource::erase::<Deployment>(&()),
            Kind::Pods => ApiResource::erase::<Pod>(&()),
            Kind::Events => ApiResource::erase::<Event>(&()),
        }
    }
}

/// The selectors of one kind, for the one-shot LIST and the watcher alike:
/// (label selector, field selector). `cluster` narrows to one ValkeyCluster
/// by its name and the `valkey.io/cluster` label (docs/plugin.md, "How it talks
/// to the API server").
pub(crate) fn selectors(kind: Kind, cluster: Option<&str>) -> (Option<String>, Option<String>) {
    let by_cluster = match cluster {
        Some(name) => format!("{}={name}", keys::LABEL_CLUSTER),
        None => keys::LABEL_CLUSTER.to_string(),
    };
    match kind {
        Kind::ValkeyClusters => (None, cluster.map(|n| format!("metadata.name={n}"))),
        // Every ValkeyNode in scope: one that lost its label still belongs
        // to its cluster by its owner reference (the reader keeps only the
        // named cluster's nodes). ValkeyNodes are few beside pods.
        Kind::ValkeyNodes => (None, None),
        Kind::StatefulSets | Kind::Deployments | Kind::Pods => (Some(by_cluster), None),
        Kind::Events => (
            None,
            Some(format!("involvedObject.apiVersion={VALKEY_API_VERSION}")),
        ),
    }
}

/// A named ValkeyCluster must be a name that a selector can carry as it
/// is; the one-shot LIST and the watch both ask before they select by it.
pub(crate) fn check_cluster_name(cluster: Option<&str>) -> Result<()> {
    match cluster {
        Some(cluster) if !selector_safe(cluster) => Err(Error::Usage(format!(
            "`{cluster}` is not a ValkeyCluster name (names are lower-case letters, digits, `-` and `.`)"
        ))),
        _ => Ok(()),
    }
}

/// A label value or object name that a selector can carry as it is.
pub(crate) fn selector_safe(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}
