//! Finding the node a command names, and the nearest names when it does
//! not exist ([`crate::names::nearest`]).

use crate::error::{Error, Result};
use crate::names::nearest;
use crate::snapshot::{Snapshot, ValkeyNode};

/// The ValkeyNode, or an error naming the nearest names in its namespace.
pub(super) fn find_node<'a>(
    snapshot: &'a Snapshot,
    namespace: &str,
    name: &str,
) -> Result<&'a ValkeyNode> {
    if let Some(n) = snapshot
        .nodes
        .iter()
        .find(|n| n.namespace() == namespace && n.name() == name)
    {
        return Ok(n);
    }
    let names: Vec<&str> = snapshot
        .nodes
        .iter()
        .filter(|n| n.namespace() == namespace)
        .map(ValkeyNode::name)
        .collect();
    Err(Error::NotFound {
        kind: "ValkeyNode",
        namespace: Some(namespace.to_string()),
        name: name.to_string(),
        nearest: nearest(name, &names),
    })
}
