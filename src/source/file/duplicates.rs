//! Objects the text holds more than once, each kept once.

use crate::snapshot::{Duplicate, Snapshot};

/// Keeps one copy of each object ([`Duplicate`]): the newest
/// resourceVersion, or the later copy when they cannot be compared
/// (resourceVersions are opaque; the API server's are numbers). Copies
/// are the same object when their uids are the same too (or both have
/// none): two uids under one name are two objects, one deleted and one
/// created after it, and both are kept as before. An Event is a record:
/// two versions of one are both kept (an older line in a timeline harms
/// nothing, and the bundled examples hold such pairs); only its exact
/// copies (the same resourceVersion too) are read once.
pub(super) fn read_once(snapshot: &mut Snapshot) -> Vec<Duplicate> {
    use crate::snapshot::Metadata;
    fn once<T, M: Metadata>(
        list: &mut Vec<T>,
        kind: &'static str,
        meta: impl Fn(&T) -> &M,
        out: &mut Vec<Duplicate>,
    ) {
        let record = kind == "Event";
        let key = |m: &M| {
            let mut identity = m.uid().unwrap_or_default().to_string();
            if record {
                identity.push('/');
                identity.push_str(m.resource_version().unwrap_or_default());
            }
            (
                m.ns().unwrap_or_default().to_string(),
                m.object_name().unwrap_or_default().to_string(),
                identity,
            )
        };
        let mut at: std::collections::BTreeMap<(String, String, String), usize> =
            Default::default();
        let mut kept: Vec<T> = Vec::with_capacity(list.len());
        let mut copies: Vec<usize> = Vec::with_capacity(list.len());
        for object in list.drain(..) {
            match at.entry(key(meta(&object))) {
                std::collections::btree_map::Entry::Occupied(e) => {
                    let i = *e.get();
                    copies[i] += 1;
                    let version = |m: &M| m.resource_version().and_then(|v| v.parse::<u64>().ok());
                    let older = match (version(meta(&object)), version(meta(&kept[i]))) {
                        (Some(new), Some(old)) => new < old,
                        _ => false,
                    };
                    if !older {
                        kept[i] = object;
                    }
                }
                std::collections::btree_map::Entry::Vacant(e) => {
                    e.insert(kept.len());
                    kept.push(object);
                    copies.push(1);
                }
            }
        }
        for ((namespace, name, _), i) in at {
            if copies[i] > 1 {
                out.push(Duplicate {
                    kind,
                    namespace,
                    name,
                    copies: copies[i],
                });
            }
        }
        *list = kept;
    }
    let mut out = Vec::new();
    once(
        &mut snapshot.clusters,
        "ValkeyCluster",
        |o| &o.metadata,
        &mut out,
    );
    once(&mut snapshot.nodes, "ValkeyNode", |o| &o.metadata, &mut out);
    once(
        &mut snapshot.stateful_sets,
        "StatefulSet",
        |o| &o.metadata,
        &mut out,
    );
    once(
        &mut snapshot.deployments,
        "Deployment",
        |o| &o.metadata,
        &mut out,
    );
    once(&mut snapshot.pods, "Pod", |o| &o.metadata, &mut out);
    once(&mut snapshot.events, "Event", |o| &o.metadata, &mut out);
    out
}
