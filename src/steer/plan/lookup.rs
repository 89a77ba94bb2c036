//! Finding the node a command names, and the nearest names when it does
//! not exist.

use crate::error::{Error, Result};
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

/// Up to three names within a small edit distance of `name`, nearest first.
pub fn nearest(name: &str, candidates: &[&str]) -> Vec<String> {
    let limit = (name.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = candidates
        .iter()
        .map(|c| (strsim::levenshtein(name, c), *c))
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort();
    scored.dedup();
    scored
        .into_iter()
        .take(3)
        .map(|(_, c)| c.to_string())
        .collect()
}
