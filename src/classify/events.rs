//! Reading core/v1 Events: their time, and which node they are about.

use super::text::contains_word;
use jiff::Timestamp;
use k8s_openapi::api::core::v1::{Event, ObjectReference};
use std::collections::HashSet;

/// The newest of `eventTime`, `series.lastObservedTime`, `lastTimestamp`
/// and `firstTimestamp` that are set (docs/protocol.md, "Event times").
pub(crate) fn time(e: &Event) -> Option<Timestamp> {
    [
        e.event_time.as_ref().map(|t| t.0),
        e.series
            .as_ref()
            .and_then(|s| s.last_observed_time.as_ref())
            .map(|t| t.0),
        e.last_timestamp.as_ref().map(|t| t.0),
        e.first_timestamp.as_ref().map(|t| t.0),
    ]
    .into_iter()
    .flatten()
    .max()
}

/// The first occurrence of a (possibly repeated) event: the earliest of
/// `eventTime` and `firstTimestamp` that is set, else its newest time.
pub(crate) fn first_time(e: &Event) -> Option<Timestamp> {
    [
        e.event_time.as_ref().map(|t| t.0),
        e.first_timestamp.as_ref().map(|t| t.0),
    ]
    .into_iter()
    .flatten()
    .min()
    .or_else(|| time(e))
}

pub(crate) fn reason(e: &Event) -> &str {
    e.reason.as_deref().unwrap_or("")
}

pub(crate) fn note(e: &Event) -> &str {
    e.message.as_deref().unwrap_or("")
}

/// The namespace an event lives in: its own, else its regarding object's.
pub(crate) fn namespace(e: &Event) -> &str {
    e.metadata
        .namespace
        .as_deref()
        .or(e.involved_object.namespace.as_deref())
        .unwrap_or("")
}

/// The event lives in `ns` ([`namespace`]).
pub(crate) fn in_namespace(e: &Event, ns: &str) -> bool {
    namespace(e) == ns
}

fn refers_to(r: &ObjectReference, ns: &str, kind: &str, name: &str) -> bool {
    r.kind.as_deref() == Some(kind)
        && r.name.as_deref() == Some(name)
        && r.namespace.as_deref().is_none_or(|n| n == ns)
}

/// Its regarding (involvedObject) or related object is `kind/name`.
pub(crate) fn is_about(e: &Event, ns: &str, kind: &str, name: &str) -> bool {
    in_namespace(e, ns)
        && (refers_to(&e.involved_object, ns, kind, name)
            || e.related
                .as_ref()
                .is_some_and(|r| refers_to(r, ns, kind, name)))
}

/// [`is_about`] for a set of names: its regarding or related object is
/// `kind/name` for some name in `names`.
pub(crate) fn is_about_any(e: &Event, ns: &str, kind: &str, names: &HashSet<&str>) -> bool {
    in_namespace(e, ns)
        && [Some(&e.involved_object), e.related.as_ref()]
            .into_iter()
            .flatten()
            .any(|r| {
                r.name
                    .as_deref()
                    .is_some_and(|n| names.contains(n) && refers_to(r, ns, kind, n))
            })
}

/// The event names the ValkeyNode: as its regarding or related object, or
/// in its note as a whole word.
pub(crate) fn names_node(e: &Event, ns: &str, node: &str) -> bool {
    is_about(e, ns, "ValkeyNode", node) || (in_namespace(e, ns) && contains_word(note(e), node))
}

/// `Kind/name` of the regarding object.
pub(crate) fn regarding(e: &Event) -> String {
    format!(
        "{}/{}",
        e.involved_object.kind.as_deref().unwrap_or(""),
        e.involved_object.name.as_deref().unwrap_or("")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{self, t};

    #[test]
    fn event_time_is_the_newest_set() {
        let e = fixture::event_permitted("prod", "cache", "cache-0-1", "h", t(10));
        let cases = [
            ("eventTime only", e.clone(), Some(t(10))),
            ("legacy", fixture::legacy(e.clone()), Some(t(10))),
            (
                "series",
                fixture::repeated(e.clone(), 3, t(70)),
                Some(t(70)),
            ),
            (
                "legacy, lastTimestamp newer",
                {
                    let mut l = fixture::legacy(e.clone());
                    l.last_timestamp =
                        Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(t(90)));
                    l
                },
                Some(t(90)),
            ),
            (
                "no time",
                {
                    let mut n = e.clone();
                    n.event_time = None;
                    n
                },
                None,
            ),
        ];
        for (name, ev, want) in cases {
            assert_eq!(time(&ev), want, "{name}");
        }
    }

    #[test]
    fn naming() {
        let permitted = fixture::event_permitted("prod", "cache", "cache-0-1", "h", t(0));
        let mut by_note = fixture::event_permitted("prod", "cache", "cache-0-1", "h", t(0));
        by_note.related = None;
        let mut other = fixture::event_permitted("prod", "cache", "cache-0-10", "h", t(0));
        other.related = None;
        let cases = [
            ("related", &permitted, "prod", "cache-0-1", true),
            ("note", &by_note, "prod", "cache-0-1", true),
            ("longer name in note", &other, "prod", "cache-0-1", false),
            ("other namespace", &permitted, "dev", "cache-0-1", false),
        ];
        for (name, e, ns, node, want) in cases {
            assert_eq!(names_node(e, ns, node), want, "{name}");
        }
        let applied = fixture::event_applied("prod", "cache-0-1", "h", t(0));
        assert!(names_node(&applied, "prod", "cache-0-1"));
        assert_eq!(regarding(&applied), "ValkeyNode/cache-0-1");
    }
}
