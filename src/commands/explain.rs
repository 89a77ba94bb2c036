//! `explain NAME`: everything known about a node (or a cluster) and why it
//! got its state.
//!
//! NAME is looked up as a ValkeyNode first, then as a ValkeyCluster, in the
//! namespace in view. Live, the node's pod events (kubelet's BackOff,
//! Failed...) are read too (one more LIST) and join its timeline.
//!
//! "Last words": for a holder or the walk's front with failure evidence
//! from its pod (and so a failing container), the previous container's
//! log is read too (one `pods/log` GET, for that one node only; with
//! `-o json|yaml` none). A log that cannot be read is one line of the
//! section, never an error.

use super::shared::nearest_names;
use crate::classify::{classify, cluster_timeline, timeline};
use crate::cli::{ExplainArgs, OutputFormat};
use crate::commands::Ctx;
use crate::error::{Error, Outcome, Result};
use crate::render::explain::{ClusterExplanation, NodeExplanation, explain_cluster, explain_node};
use crate::render::json::{to_json, to_yaml};
use crate::render::notice;
use crate::report::{ClusterReport, NodeReport, Report, TimelineEntry, UnplannedFailover};
use crate::snapshot::{LeaseRead, PreviousLog, Snapshot};
use crate::source::{self, Live, live, logs, operator};
use serde::Serialize;

pub(crate) async fn run(ctx: &Ctx, args: &ExplainArgs) -> Result<Outcome> {
    let mut loaded = source::load_partial(&ctx.target(), None).await?;
    let now = ctx.now();
    let name = args.name.as_str();
    // The servers of the cluster NAME is in (or is), read before judging.
    let mut servers = String::new();
    if loaded.live.is_some() && args.servers != crate::cli::ServersArg::Off {
        let first = classify(&loaded.snapshot, now, ctx.global.stall_threshold);
        let cluster = match find(&first, name) {
            Ok(Found::Node(c, _)) | Ok(Found::Cluster(c)) => {
                Some((c.namespace.clone(), c.name.clone()))
            }
            _ => None,
        };
        if let Some((ns, cluster)) = cluster {
            servers = super::shared::read_servers(
                &mut loaded,
                Some((&ns, &cluster)),
                args.servers,
                &args.servers_ca,
            )
            .await;
        }
    }
    let partial = notice::view_warnings(&loaded.unread, &loaded.duplicates)
        + &super::shared::clock_warning(ctx, &loaded.snapshot)
        + &servers;
    let report = classify(&loaded.snapshot, now, ctx.global.stall_threshold);

    match find(&report, name)? {
        Found::Node(cluster, node) => {
            let mut stderr = String::new();
            if let (Some(live), Some(pod)) = (&loaded.live, &node.pod) {
                match live::pod_events(live, &cluster.namespace, pod).await {
                    Ok(events) => add_events(&mut loaded.snapshot, events),
                    // The explanation stands without them; say what is missing.
                    Err(err) => stderr = notice::events_unread(Some(pod), &err),
                }
            }
            let timeline = with_unplanned(
                timeline(&loaded.snapshot, &cluster.namespace, &node.name),
                cluster,
                Some(&node.name),
            );
            let stdout = match text_or_document(ctx) {
                Some(document) => document.render(
                    &NodeExplanation {
                        node,
                        timeline: &timeline,
                    },
                    crate::render::name::node(&node.name),
                )?,
                None => {
                    let object = loaded
                        .snapshot
                        .nodes
                        .iter()
                        .find(|n| n.namespace() == cluster.namespace && n.name() == node.name);
                    let words = match wants_last_words(cluster, node) {
                        true => Some(last_words(loaded.live.as_ref(), cluster, node).await),
                        false => None,
                    };
                    explain_node(
                        cluster,
                        node,
                        object,
                        &timeline,
                        now,
                        ctx.screen(),
                        words.as_ref(),
                    )
                }
            };
            Ok(Outcome {
                stdout,
                stderr: partial + &stderr,
                exit: crate::error::Exit::Done,
            })
        }
        Found::Cluster(cluster) => {
            // A silent operator: who leads it, by its Lease, where it can be read.
            let lease = match &cluster.operator {
                Some(_) => Some(operator_lease(loaded.live.as_ref(), args).await),
                None => None,
            };
            let mut with_lease = cluster.clone();
            if let (Some(o), Some(LeaseRead::Read(l))) = (&mut with_lease.operator, &lease) {
                o.lease = Some(l.clone());
            }
            let cluster = &with_lease;
            let mut stderr = String::new();
            if let Some(live) = &loaded.live {
                // The pods' own events, as a snapshot file (and a bundle) has them.
                let pods = super::bundle::pods_of(
                    &loaded.snapshot,
                    Some((&cluster.namespace, &cluster.name)),
                );
                match live::events_of_pods(live, Some(&cluster.namespace), &pods).await {
                    Ok((events, _)) => add_events(&mut loaded.snapshot, events),
                    Err(err) => stderr = notice::events_unread(None, &err),
                }
            }
            let timeline = with_unplanned(
                cluster_timeline(&loaded.snapshot, &cluster.namespace, &cluster.name),
                cluster,
                None,
            );
            let stdout = match text_or_document(ctx) {
                Some(document) => document.render(
                    &ClusterExplanation {
                        cluster,
                        timeline: &timeline,
                    },
                    crate::render::name::cluster(&cluster.name),
                )?,
                None => {
                    let object =
                        loaded.snapshot.clusters.iter().find(|c| {
                            c.namespace() == cluster.namespace && c.name() == cluster.name
                        });
                    let speaker = cluster_speaker(cluster);
                    let words = match speaker {
                        Some(node) => Some(last_words(loaded.live.as_ref(), cluster, node).await),
                        None => None,
                    };
                    explain_cluster(
                        cluster,
                        object,
                        &timeline,
                        now,
                        ctx.screen(),
                        speaker.zip(words.as_ref()),
                        lease.as_ref(),
                    )
                }
            };
            Ok(Outcome {
                stdout,
                stderr: partial + &stderr,
                exit: crate::error::Exit::Done,
            })
        }
        Found::Nothing => Err(not_found(
            &report,
            &loaded.snapshot,
            name,
            loaded.namespace.as_deref(),
        )),
    }
}

/// `timeline` with the failovers the operator did not make (by the
/// servers: the cluster's `unplanned`) that concern `node` (its new or its
/// old primary; every one when `None`), each at the time its server said
/// so, after the events of that time or before.
fn with_unplanned(
    mut timeline: Vec<TimelineEntry>,
    cluster: &ClusterReport,
    node: Option<&str>,
) -> Vec<TimelineEntry> {
    let about =
        |u: &&UnplannedFailover| node.is_none_or(|n| u.to == n || u.from.as_deref() == Some(n));
    for u in cluster.unplanned.iter().filter(about) {
        let at = timeline.partition_point(|e| e.time.is_none_or(|t| t <= u.seen_at));
        timeline.insert(at, crate::render::words::unplanned_entry(u));
    }
    timeline
}

/// A holder, or the walk's front, with a failing container (which the
/// classifier names only with failure evidence from the pod): its last
/// words are shown.
fn wants_last_words(cluster: &ClusterReport, node: &NodeReport) -> bool {
    (node.facts.holder || cluster.front.as_deref() == Some(node.name.as_str()))
        && node.pod.is_some()
        && node.facts.failing_container.is_some()
}

/// The node whose last words `explain CLUSTER` shows: the first holder
/// that has them to show, else the front.
fn cluster_speaker(cluster: &ClusterReport) -> Option<&NodeReport> {
    let named = |name: &str| cluster.nodes.iter().find(|n| n.name == name);
    cluster
        .holders
        .iter()
        .filter_map(|h| named(h))
        .chain(cluster.front.as_deref().and_then(named))
        .find(|n| wants_last_words(cluster, n))
}

/// The previous container's log of the node's failing container: read
/// live, else [`PreviousLog::Offline`].
async fn last_words(
    live: Option<&Live>,
    cluster: &ClusterReport,
    node: &NodeReport,
) -> PreviousLog {
    let (Some(pod), Some(container)) = (&node.pod, &node.facts.failing_container) else {
        return PreviousLog::NoPrevious;
    };
    match live {
        None => PreviousLog::Offline,
        Some(_) if container.last.is_none() => PreviousLog::NoPrevious,
        Some(live) => {
            logs::previous_log(&live.client, &cluster.namespace, pod, &container.name).await
        }
    }
}

/// The operator's leader-election Lease: read live, else
/// [`LeaseRead::Offline`].
async fn operator_lease(live: Option<&Live>, args: &ExplainArgs) -> LeaseRead {
    match live {
        Some(live) => operator::lease(&live.client, &args.operator_namespace).await,
        None => LeaseRead::Offline,
    }
}

enum Found<'a> {
    Node(&'a ClusterReport, &'a NodeReport),
    Cluster(&'a ClusterReport),
    Nothing,
}

/// NAME as a node first, then as a cluster. The same name in several
/// namespaces (`-A`, or a file read without `-n`) must be narrowed.
fn find<'a>(report: &'a Report, name: &str) -> Result<Found<'a>> {
    let nodes: Vec<(&ClusterReport, &NodeReport)> = report
        .clusters
        .iter()
        .flat_map(|c| c.nodes.iter().map(move |n| (c, n)))
        .filter(|(_, n)| n.name == name)
        .collect();
    match nodes.as_slice() {
        [(cluster, node)] => return Ok(Found::Node(cluster, node)),
        [] => {}
        several => {
            return Err(ambiguous(
                "ValkeyNode",
                name,
                several.iter().map(|(c, _)| c.namespace.as_str()),
            ));
        }
    }
    let clusters: Vec<&ClusterReport> = report.clusters.iter().filter(|c| c.name == name).collect();
    match clusters.as_slice() {
        [cluster] => Ok(Found::Cluster(cluster)),
        [] => Ok(Found::Nothing),
        several => Err(ambiguous(
            "ValkeyCluster",
            name,
            several.iter().map(|c| c.namespace.as_str()),
        )),
    }
}

fn ambiguous<'a>(kind: &str, name: &str, namespaces: impl Iterator<Item = &'a str>) -> Error {
    let namespaces: Vec<&str> = namespaces.collect();
    Error::Usage(format!(
        "{kind} {name} is in several namespaces ({}); choose one with -n",
        crate::render::words::listed(&namespaces)
    ))
}

/// Not a node, not a cluster: name the nearest of both kinds (or say why a
/// ValkeyNode by that name was left out).
fn not_found(report: &Report, snapshot: &Snapshot, name: &str, namespace: Option<&str>) -> Error {
    // The classifier reports only nodes that carry a cluster label.
    if let Some(node) = snapshot.nodes.iter().find(|n| n.name() == name) {
        return Error::NodeWithoutCluster {
            namespace: node.namespace().to_string(),
            name: name.to_string(),
            doing: "explain",
        };
    }
    let candidates = report.clusters.iter().flat_map(|c| {
        std::iter::once(c.name.as_str()).chain(c.nodes.iter().map(|n| n.name.as_str()))
    });
    Error::NotFound {
        kind: "ValkeyNode or ValkeyCluster",
        namespace: namespace.map(str::to_string),
        name: name.to_string(),
        nearest: nearest_names(name, candidates),
    }
}

/// Adds the pod's events to the snapshot's (once each), so the classifier's
/// timeline picks them up with the rest.
fn add_events(snapshot: &mut Snapshot, events: Vec<k8s_openapi::api::core::v1::Event>) {
    for event in events {
        let key = (&event.metadata.namespace, &event.metadata.name);
        let seen = event.metadata.name.is_some()
            && snapshot
                .events
                .iter()
                .any(|e| (&e.metadata.namespace, &e.metadata.name) == key);
        if !seen {
            snapshot.events.push(event);
        }
    }
}

enum Document {
    Json,
    Yaml,
    /// `-o name`: the object's name alone.
    Name,
}

impl Document {
    /// `value` as the document, or `name` for `-o name`.
    fn render<T: Serialize>(&self, value: &T, name: String) -> Result<String> {
        match self {
            Document::Json => to_json(value),
            Document::Yaml => to_yaml(value),
            Document::Name => Ok(name),
        }
    }
}

/// `-o json|yaml` gives the document, `-o name` the name; `table` and
/// `wide` the prose.
fn text_or_document(ctx: &Ctx) -> Option<Document> {
    match ctx.global.output {
        OutputFormat::Json => Some(Document::Json),
        OutputFormat::Yaml => Some(Document::Yaml),
        OutputFormat::Name => Some(Document::Name),
        OutputFormat::Table | OutputFormat::Wide | OutputFormat::Svg => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::classify;
    use crate::fixture::{self, t};
    use k8s_openapi::api::core::v1::Event;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    use std::time::Duration;

    fn snapshot() -> Snapshot {
        let mut s = fixture::snapshot_of(&[
            &fixture::cluster("prod", "cache").node(fixture::node("cache-0-0").ready()),
            &fixture::cluster("prod", "sessions").node(fixture::node("sessions-0-0").ready()),
            &fixture::cluster("staging", "sessions").node(fixture::node("sessions-0-0").ready()),
        ]);
        // A ValkeyNode without the cluster label is in no report.
        s.nodes.push(crate::snapshot::ValkeyNode {
            metadata: crate::snapshot::NodeMeta {
                name: Some("loose-0-0".into()),
                namespace: Some("prod".into()),
                ..Default::default()
            },
            ..Default::default()
        });
        s
    }

    fn outcome(name: &str) -> Result<String> {
        let s = snapshot();
        let report = classify(&s, t(0), Duration::from_secs(600));
        match find(&report, name) {
            Ok(Found::Node(c, n)) => Ok(format!("node {}/{}", c.namespace, n.name)),
            Ok(Found::Cluster(c)) => Ok(format!("cluster {}/{}", c.namespace, c.name)),
            Ok(Found::Nothing) => Err(not_found(&report, &s, name, None)),
            Err(e) => Err(e),
        }
    }

    #[test]
    fn lookup_node_first_then_cluster() {
        let cases: &[(&str, Result<&str, &str>)] = &[
            ("cache-0-0", Ok("node prod/cache-0-0")),
            ("cache", Ok("cluster prod/cache")),
            (
                "sessions-0-0",
                Err("ValkeyNode sessions-0-0 is in several namespaces (prod, staging)"),
            ),
            (
                "sessions",
                Err("ValkeyCluster sessions is in several namespaces (prod, staging)"),
            ),
            ("cache-0-1", Err("did you mean cache-0-0")),
            ("loose-0-0", Err("has no valkey.io/cluster label")),
        ];
        for (name, want) in cases {
            match (outcome(name), want) {
                (Ok(got), Ok(want)) => assert_eq!(got, *want, "{name}"),
                (Err(err), Err(want)) => {
                    assert!(err.to_string().contains(want), "{name}: {err}")
                }
                (got, want) => panic!("{name}: got {got:?}, want {want:?}"),
            }
        }
    }

    /// A failover the operator did not make joins the timeline at the
    /// time its server said so, for the cluster and for its two nodes.
    #[test]
    fn a_failover_nobody_made_joins_the_timeline_in_time_order() {
        let entry = |reason: &str, at: Option<i64>| TimelineEntry {
            time: at.map(t),
            reason: reason.into(),
            message: String::new(),
            regarding: String::new(),
            count: None,
            addresses: Default::default(),
        };
        let events = || {
            vec![
                entry("NoTime", None),
                entry("Before", Some(-10)),
                entry("Same", Some(-5)),
                entry("After", Some(-1)),
            ]
        };
        let mut cluster =
            fixture::sample::bare_cluster("cache", crate::report::Verdict::Converged, vec![]);
        cluster.unplanned = vec![UnplannedFailover {
            shard: 1,
            to: "cache-1-1".into(),
            from: Some("cache-1-0".into()),
            seen_at: t(-5),
        }];
        let reasons = |node: Option<&str>| -> Vec<String> {
            with_unplanned(events(), &cluster, node)
                .into_iter()
                .map(|e| e.reason)
                .collect()
        };
        let with = ["NoTime", "Before", "Same", "UnplannedFailover", "After"];
        let without = ["NoTime", "Before", "Same", "After"];
        let cases: &[(Option<&str>, &[&str])] = &[
            (None, &with),
            (Some("cache-1-1"), &with),
            (Some("cache-1-0"), &with),
            (Some("cache-0-0"), &without),
        ];
        for (node, want) in cases {
            assert_eq!(reasons(*node), *want, "{node:?}");
        }
        let e = &with_unplanned(Vec::new(), &cluster, None)[0];
        assert_eq!(
            (e.time, e.regarding.as_str(), e.message.as_str()),
            (
                Some(t(-5)),
                "ValkeyNode/cache-1-1",
                "cache-1-1 is shard 1's primary by its server, not cache-1-0: a failover \
                 the operator did not make, seen when its server was read"
            )
        );
        cluster.unplanned[0].from = None;
        let e = &with_unplanned(Vec::new(), &cluster, None)[0];
        assert_eq!(
            e.message,
            "cache-1-1 is shard 1's primary by its server: a failover the operator did \
             not make, seen when its server was read"
        );
    }

    #[test]
    fn pod_events_join_once() {
        let event = |name: &str| Event {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("prod".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let mut s = Snapshot::default();
        s.events.push(event("a"));
        add_events(&mut s, vec![event("a"), event("b"), event("b")]);
        let names: Vec<_> = s
            .events
            .iter()
            .filter_map(|e| e.metadata.name.as_deref())
            .collect();
        assert_eq!(names, ["a", "b"]);
    }
}
