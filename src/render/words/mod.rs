//! The words of the classifier's facts (`crate::report::reason`): one
//! place per kind of thing said. Each fact type's `Display` is its words,
//! and its `Serialize` writes the same words as a string, so the document's
//! `reason` and `message` fields, the REASON column and explain's prose
//! say it alike.
//!
//! - [`node`]: a node's REASON;
//! - [`cluster`]: the cluster's reason sentence, and what it is built of;
//! - [`evidence`]: failure evidence, worded three ways (the document's
//!   message, the REASON column's short form, the cluster sentence's
//!   phrase), and why a node is not healthy;
//! - [`grant`]: why a grant-time source gave no time.

mod cluster;
mod evidence;
mod grant;
mod node;
mod role;
#[cfg(test)]
mod tests;

pub(crate) use cluster::{ClusterSaid, ReplicaSaid, asides, unplanned_entry};
pub(crate) use evidence::{Found, Phrase, Short, joined};
pub(crate) use grant::Unheard;
pub(crate) use node::Said;
pub(crate) use role::{role_cell, role_mark, role_row};

/// Serialize as the `Display` words.
macro_rules! serialize_as_words {
    ($($ty:ty),*) => {$(
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    )*};
}
serialize_as_words!(
    crate::report::NodeReason,
    crate::report::ClusterReason,
    crate::report::Finding,
    crate::report::RoleNote
);

/// How many items of a list a message names before it counts the rest.
pub(crate) const LISTED: usize = 10;

/// `a, b, c`: items joined with commas, the first [`LISTED`] of a longer
/// list followed by a count of the rest (`… and 990 more`), so an error
/// about a thousand namespaces stays a line.
pub(crate) fn listed<T: AsRef<str>>(items: &[T]) -> String {
    let shown: Vec<&str> = items.iter().take(LISTED).map(AsRef::as_ref).collect();
    let mut out = shown.join(", ");
    if items.len() > LISTED {
        out.push_str(&format!(", … and {} more", items.len() - LISTED));
    }
    out
}

/// `1 node` / `3 nodes`.
fn nodes(n: usize) -> String {
    if n == 1 {
        "1 node".to_string()
    } else {
        format!("{n} nodes")
    }
}

/// `; 3 waiting`, or nothing when none waits.
fn and_waiting(waiting: usize) -> String {
    if waiting > 0 {
        format!("; {waiting} waiting")
    } else {
        String::new()
    }
}

/// A timeline entry's note as explain shows it: the node each address it
/// names is (`127.0.1.2 = cache-0-0`), and, for a repeat, that the note is
/// the first occurrence's.
pub(crate) fn timeline_message(e: &crate::report::TimelineEntry) -> String {
    let mut out = e.message.clone();
    if !e.addresses.is_empty() {
        let named: Vec<String> = e
            .addresses
            .iter()
            .map(|(ip, node)| format!("{ip} = {node}"))
            .collect();
        out.push_str(&format!(" [{}]", named.join(", ")));
    }
    if let Some(n) = e.count {
        out.push_str(&format!(" ({n} times; the note is the first's)"));
    }
    out
}

/// A node's REASON in its protocol's words ([`Said`]), cleaned; `-` for
/// none.
pub(crate) fn reason_of(
    n: &crate::report::NodeReport,
    protocol: crate::report::Protocol,
) -> String {
    crate::render::style::reason_cell(&Said(&n.reason, protocol).to_string())
}

/// A node's REASON as its row on a fitted screen says it: the row names
/// the node, so a reason about the node's own pod leaves the pod's name
/// out (`pod valkey-cache-1-0-0 CrashLoopBackOff (restarts 7)` reads
/// `CrashLoopBackOff (restarts 7)`). Cleaned; `-` for none. The document
/// and `-o wide` keep the whole reason.
pub(crate) fn reason_in_row(
    n: &crate::report::NodeReport,
    protocol: crate::report::Protocol,
) -> String {
    let full = Said(&n.reason, protocol).to_string();
    let own = n.pod.as_deref().map(|pod| format!("pod {pod} "));
    let said = own
        .as_deref()
        .and_then(|prefix| full.strip_prefix(prefix))
        .unwrap_or(&full);
    crate::render::style::reason_cell(said)
}

#[cfg(test)]
mod listed_tests {
    use super::listed;

    #[test]
    fn long_lists_are_cut_with_a_count() {
        let many: Vec<String> = (0..1000).map(|i| format!("ns-{i}")).collect();
        // (case, items, said)
        let cases: &[(&str, &[String], &str)] = &[
            ("none", &[], ""),
            ("one", &many[..1], "ns-0"),
            (
                "ten, all named",
                &many[..10],
                "ns-0, ns-1, ns-2, ns-3, ns-4, ns-5, ns-6, ns-7, ns-8, ns-9",
            ),
            (
                "eleven",
                &many[..11],
                "ns-0, ns-1, ns-2, ns-3, ns-4, ns-5, ns-6, ns-7, ns-8, ns-9, … and 1 more",
            ),
            (
                "a thousand",
                &many,
                "ns-0, ns-1, ns-2, ns-3, ns-4, ns-5, ns-6, ns-7, ns-8, ns-9, … and 990 more",
            ),
        ];
        for (case, items, want) in cases {
            assert_eq!(listed(items), *want, "{case}");
        }
    }
}
