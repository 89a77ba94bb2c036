//! `wait`'s words on stderr: a progress line for each cluster that moved,
//! and why it stopped. `commands::wait` decides which clusters moved and
//! when to stop; what is said is here.

use crate::error::Exit;
use crate::render::words::ClusterSaid;
use crate::report::{ClusterReport, Report, Verdict};
use crate::units::human;

/// How a cluster is named in progress lines: not at all when one was
/// named, by name in one namespace, by namespace/name across all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Naming {
    None,
    Name,
    NamespaceName,
}

impl Naming {
    fn prefix(self, c: &ClusterReport) -> String {
        let own = match self {
            Naming::None => String::new(),
            Naming::Name => format!("{}: ", c.name),
            Naming::NamespaceName => format!("{}/{}: ", c.namespace, c.name),
        };
        // Several contexts: each cluster says which.
        match &c.context {
            Some(context) => format!("{context}: {own}"),
            None => own,
        }
    }
}

/// One cluster's progress line: "4/6 rolled; cache-1-1 Rolling for 2m".
pub(crate) fn progress_line(c: &ClusterReport, naming: Naming) -> String {
    let done = c.done.map_or_else(|| "?".to_string(), |d| d.to_string());
    let holders: Vec<String> = c
        .nodes
        .iter()
        .filter(|n| c.holders.contains(&n.name))
        .map(|n| match n.held_for_seconds {
            Some(held) => format!("{} {} for {}", n.name, n.state, human(held)),
            None => format!("{} {}", n.name, n.state),
        })
        .collect();
    let what = match (c.verdict, holders.is_empty()) {
        (Verdict::Rolling, false) => holders.join(", "),
        (verdict, false) => format!("{verdict}: {}", holders.join(", ")),
        (Verdict::Converged, true) => "Converged".to_string(),
        (verdict, true) => match &c.front {
            Some(front) => format!("{verdict}, front {front}"),
            // Unfinished by the ValkeyCluster's word alone (between
            // nodes of a Spec-driven roll). A state of Ready here is
            // for an older generation, so it is not quoted.
            None => match (c.state.as_deref(), c.state_reason.as_deref()) {
                (Some(state), Some(reason)) if state != "Ready" => format!(
                    "{verdict}; the ValkeyCluster reports it is not done ({state}/{reason})"
                ),
                (Some(state), None) if state != "Ready" => {
                    format!("{verdict}; the ValkeyCluster reports it is not done ({state})")
                }
                _ => format!("{verdict}; the ValkeyCluster reports it is not done"),
            },
        },
    };
    // Servers asked and not read: said on the verdict; a Converged
    // cluster is not done until they are (docs/servers.md).
    let what = match (super::notice::servers_on_verdict(c), c.verdict) {
        (Some(unread), Verdict::Converged) => {
            format!("{what} · {unread}; waiting until they are read")
        }
        (Some(unread), _) => format!("{what} · {unread}"),
        (None, _) => what,
    };
    format!("{}{done}/{} rolled; {what}\n", naming.prefix(c), c.total)
}

/// Why `wait` stopped, for stderr, in the cluster's protocol's words
/// (nothing for a plain success: the last progress line said Converged).
pub(crate) fn final_words(
    report: &Report,
    exit: Exit,
    timeout: Option<std::time::Duration>,
) -> String {
    let mut out = String::new();
    for c in &report.clusters {
        let name = format!("{}/{}", c.namespace, c.name);
        match exit {
            Exit::NeedsAttention if c.verdict.needs_attention() => out.push_str(&format!(
                "{name} needs attention: {}: {}\n",
                c.verdict.to_string().to_uppercase(),
                ClusterSaid(&c.reason, c.protocol)
            )),
            Exit::TimedOut if c.verdict != Verdict::Converged => out.push_str(&format!(
                "{name} is still {}: {}\n",
                c.verdict,
                ClusterSaid(&c.reason, c.protocol)
            )),
            Exit::TimedOut => {
                if let Some(unread) = super::notice::servers_on_verdict(c) {
                    out.push_str(&format!("{name} is Converged by the API alone; {unread}\n"));
                }
            }
            _ => {}
        }
    }
    if exit == Exit::TimedOut {
        out.insert_str(0, &format!("{}\n", timed_out(timeout)));
    }
    out
}

/// The timeout came before any context could be read.
pub(crate) fn timed_out_before_reading(timeout: Option<std::time::Duration>) -> String {
    format!(
        "{}, before the clusters could be read\n",
        timed_out(timeout)
    )
}

/// The end of a wait over several contexts when some could not be read.
pub(crate) fn contexts_unread(unread: usize, of: usize) -> String {
    format!("{unread} of {of} contexts could not be read (warnings above)\n")
}

/// `timed out after 10s` (`timed out` without a timeout).
fn timed_out(timeout: Option<std::time::Duration>) -> String {
    match timeout {
        Some(t) => format!("timed out after {}", human(t.as_secs())),
        None => "timed out".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample::{waited_cluster as cluster, waited_node as node};
    use crate::report::{ClusterReason, NodeState, Protocol};

    fn rolling(holder: &str, state: NodeState, held: u64, done: usize) -> ClusterReport {
        let mut c = cluster("cache", Verdict::Rolling);
        c.holders = vec![holder.into()];
        c.done = Some(done);
        c.nodes = vec![
            node("cache-0-0", NodeState::Waiting, None),
            node(holder, state, Some(held)),
        ];
        c
    }

    /// A cluster of six whose servers were asked: `read` of them read.
    fn unread_servers(verdict: Verdict, read: usize, unread: usize) -> ClusterReport {
        let mut c = cluster("c0", verdict);
        c.done = Some(6);
        c.servers = Some(crate::report::ServersRead {
            read,
            unread,
            observed_at: None,
        });
        c
    }

    #[test]
    fn progress_lines_say_who_holds() {
        let mut jammed = rolling("cache-1-1", NodeState::Stuck, 840, 1);
        jammed.verdict = Verdict::Jammed;
        let mut between = cluster("c0", Verdict::Waiting);
        between.state = Some("Reconciling".into());
        between.state_reason = Some("UpdatingNodes".into());
        between.done = None;
        let mut waiting = cluster("c0", Verdict::Waiting);
        waiting.front = Some("cache-0-0".into());
        let mut done = cluster("c0", Verdict::Converged);
        done.done = Some(6);
        // A state of Ready is for an older generation: not quoted.
        let mut stale = cluster("c0", Verdict::Waiting);
        stale.state = Some("Ready".into());
        stale.state_reason = Some("ClusterHealthy".into());
        let cases: &[(&str, ClusterReport, Naming, &str)] = &[
            (
                "rolling",
                rolling("cache-1-1", NodeState::Rolling, 120, 4),
                Naming::None,
                "4/6 rolled; cache-1-1 Rolling for 2m\n",
            ),
            (
                "settling, by name",
                rolling("cache-1-1", NodeState::Settling, 120, 4),
                Naming::Name,
                "cache: 4/6 rolled; cache-1-1 Settling for 2m\n",
            ),
            (
                "jammed",
                jammed,
                Naming::Name,
                "cache: 1/6 rolled; Jammed: cache-1-1 Stuck for 14m\n",
            ),
            (
                "between nodes",
                between,
                Naming::None,
                "?/6 rolled; Waiting; the ValkeyCluster reports it is not done (Reconciling/UpdatingNodes)\n",
            ),
            (
                "waiting on the front",
                waiting,
                Naming::NamespaceName,
                "prod/c0: 4/6 rolled; Waiting, front cache-0-0\n",
            ),
            ("done", done, Naming::None, "6/6 rolled; Converged\n"),
            (
                "done by the API, a server not read",
                unread_servers(Verdict::Converged, 5, 1),
                Naming::None,
                "6/6 rolled; Converged · servers: 1 of 6 not read; waiting until they are read\n",
            ),
            (
                "done by the API, no server read",
                unread_servers(Verdict::Converged, 0, 6),
                Naming::Name,
                "c0: 6/6 rolled; Converged · servers: none of 6 read; waiting until they are read\n",
            ),
            (
                "done, every server read",
                unread_servers(Verdict::Converged, 6, 0),
                Naming::None,
                "6/6 rolled; Converged\n",
            ),
            (
                "waiting, a server not read",
                unread_servers(Verdict::Waiting, 5, 1),
                Naming::None,
                "6/6 rolled; Waiting; the ValkeyCluster reports it is not done · servers: 1 of 6 not read\n",
            ),
            (
                "stale Ready",
                stale,
                Naming::None,
                "4/6 rolled; Waiting; the ValkeyCluster reports it is not done\n",
            ),
        ];
        for (name, c, naming, want) in cases {
            assert_eq!(progress_line(c, *naming), *want, "{name}");
        }
    }

    #[test]
    fn final_words_say_why() {
        let mut jammed = cluster("c1", Verdict::Jammed);
        jammed.reason = ClusterReason::HolderHeldOver {
            holder: "cache-1-1".into(),
            protocol: Protocol::P1,
            held: Some(840),
            threshold: 600,
        };
        let r = Report {
            clusters: vec![cluster("c0", Verdict::Converged), jammed],
        };
        assert_eq!(
            final_words(&r, Exit::NeedsAttention, None),
            "prod/c1 needs attention: JAMMED: cache-1-1 holds the permit and has not finished rolling for 14m (stall threshold 10m)\n"
        );
        let r = Report {
            clusters: vec![cluster("c0", Verdict::Rolling)],
        };
        assert_eq!(
            final_words(&r, Exit::TimedOut, Some(std::time::Duration::from_secs(3))),
            "timed out after 3s\nprod/c0 is still Rolling: rolling\n"
        );
        assert_eq!(final_words(&r, Exit::Done, None), "");
        // Timed out while Converged by the API, a server not read.
        let r = Report {
            clusters: vec![
                unread_servers(Verdict::Converged, 5, 1),
                unread_servers(Verdict::Converged, 6, 0),
            ],
        };
        assert_eq!(
            final_words(&r, Exit::TimedOut, Some(std::time::Duration::from_secs(3))),
            "timed out after 3s\nprod/c0 is Converged by the API alone; servers: 1 of 6 not read\n"
        );
        assert_eq!(
            timed_out_before_reading(None),
            "timed out, before the clusters could be read\n"
        );
        assert_eq!(
            contexts_unread(1, 2),
            "1 of 2 contexts could not be read (warnings above)\n"
        );
    }
}
