//! Reading a [`Snapshot`]: from a cluster (`live`) or from a file
//! ([`mod@file`]). Both end in the same plain data, converted by the same code
//! (the live source feeds the API server's list responses through the file
//! reader's object conversion), so they give equal snapshots for the same
//! objects.

pub(crate) mod credentials;
pub(crate) mod exec;
pub mod file;
pub(crate) mod live;
pub(crate) mod logs;
pub(crate) mod operator;
pub(crate) mod requests;
mod resp;
pub(crate) mod select;
pub(crate) mod servers;
pub mod slim;
pub(crate) mod trust;
pub(crate) mod watch;

use crate::error::{Error, Result};
use crate::snapshot::Snapshot;
use k8s_openapi::api::core::v1::Event;

pub(crate) use live::{Access, Live};

/// What a command reads: a snapshot file, else a cluster reached through
/// [`Access`]; and which namespaces. The commands build it from their
/// flags (`commands::target`), so reading knows nothing of the CLI.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Target {
    /// `-f`: this file (`-` is stdin) instead of a cluster.
    pub file: Option<std::path::PathBuf>,
    /// `-n`.
    pub namespace: Option<String>,
    /// `-A`: every namespace.
    pub all_namespaces: bool,
    pub access: Access,
}

/// What a command reads before it judges anything.
#[derive(Clone)]
pub(crate) struct Loaded {
    pub snapshot: Snapshot,
    /// The namespace in view; `None` is every namespace (`-A`, or a file
    /// read without `-n`).
    pub namespace: Option<String>,
    /// The connection, when the snapshot came from a cluster (steering and
    /// `explain` make more requests with it).
    pub live: Option<Live>,
    /// Kinds left out of a partial read ([`load_partial`]); empty otherwise.
    pub unread: Vec<live::Unread>,
    /// Objects a file held more than once, each read once.
    pub duplicates: Vec<file::Duplicate>,
}

impl std::fmt::Debug for Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded")
            .field("snapshot", &self.snapshot)
            .field("namespace", &self.namespace)
            .field("live", &self.live.as_ref().map(|l| l.server.as_str()))
            .field("unread", &self.unread)
            .field("duplicates", &self.duplicates)
            .finish()
    }
}

/// Reads the snapshot a command works on.
///
/// With `-f` the file is read whole and needs no kubeconfig: every namespace
/// in it unless `-n` narrows it (the kubeconfig's namespace does not apply).
/// All of the file's clusters are kept even when one is named: the
/// classifier picks the named one. Live: `-A` reads every namespace, `-n`
/// that one, else the kubeconfig context's namespace.
pub(crate) async fn load(target: &Target, cluster: Option<&str>) -> Result<Loaded> {
    load_with(target, cluster, false).await
}

/// [`load`] for the commands that only show (`status`, `explain`): a kind
/// the user may not list is left out and named in [`Loaded::unread`]
/// ([`live::read_partial`]), so what can be judged without it is shown.
pub(crate) async fn load_partial(target: &Target, cluster: Option<&str>) -> Result<Loaded> {
    load_with(target, cluster, true).await
}

async fn load_with(target: &Target, cluster: Option<&str>, partial: bool) -> Result<Loaded> {
    if let Some(path) = &target.file {
        let path = path.clone();
        // Reading stdin or a large file blocks: keep it off the async workers.
        let read = tokio::task::spawn_blocking(move || file::read_snapshot(&path))
            .await
            .map_err(|e| Error::Task {
                what: "reading the snapshot failed",
                source: crate::error::TaskFailure::Join(e),
            })??;
        let file::FileSnapshot {
            mut snapshot,
            mut duplicates,
        } = read;
        let namespace = file_namespace(target.namespace.as_deref(), target.all_namespaces);
        if let Some(ns) = &namespace {
            snapshot.retain_namespace(ns);
            duplicates.retain(|d| &d.namespace == ns);
        }
        return Ok(Loaded {
            snapshot,
            namespace,
            live: None,
            unread: Vec::new(),
            duplicates,
        });
    }
    let live = live::connect(&target.access).await?;
    let namespace = live_namespace(
        target.namespace.as_deref(),
        target.all_namespaces,
        &live.default_namespace,
    );
    let (snapshot, unread) = if partial {
        live::read_partial(&live, namespace.as_deref(), cluster).await?
    } else {
        (
            live::read(&live, namespace.as_deref(), cluster).await?,
            Vec::new(),
        )
    };
    Ok(Loaded {
        snapshot,
        namespace,
        live: Some(live),
        unread,
        duplicates: Vec::new(),
    })
}

/// The namespace in view when reading a file: `-n`, else all of them.
pub(crate) fn file_namespace(namespace: Option<&str>, all_namespaces: bool) -> Option<String> {
    if all_namespaces {
        return None;
    }
    namespace.map(str::to_string)
}

/// The namespace in view on a cluster: `-A` all, `-n` that one, else the
/// kubeconfig context's (which `connect` resolved, `default` when unset).
pub(crate) fn live_namespace(
    namespace: Option<&str>,
    all_namespaces: bool,
    default_namespace: &str,
) -> Option<String> {
    if all_namespaces {
        return None;
    }
    Some(namespace.unwrap_or(default_namespace).to_string())
}

/// Brings an Event to one form whichever way it was written or read.
///
/// The core view of an event written through `events.k8s.io` prints
/// `source: {}` and empty reporting fields, which the `events.k8s.io` view
/// leaves out; and a zero count is omitted by one and absent in the other.
/// Empty values become absent, so the same event reads the same from any
/// source. The classifier never tells an empty value from a missing one.
pub(crate) fn tidy_event(event: &mut Event) {
    fn blank(s: &Option<String>) -> bool {
        s.as_deref().is_some_and(str::is_empty)
    }
    if event.source.as_ref().is_some_and(|s| {
        s.component.as_deref().unwrap_or("").is_empty()
            && s.host.as_deref().unwrap_or("").is_empty()
    }) {
        event.source = None;
    }
    if blank(&event.reporting_component) {
        event.reporting_component = None;
    }
    if blank(&event.reporting_instance) {
        event.reporting_instance = None;
    }
    if blank(&event.action) {
        event.action = None;
    }
    if event.count == Some(0) {
        event.count = None;
    }
    if let Some(series) = &mut event.series
        && series.count == Some(0)
    {
        series.count = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::EventSource;

    /// One row: what was given, and the namespace in view for a file and live.
    struct Case {
        name: &'static str,
        namespace: Option<&'static str>,
        all: bool,
        kubeconfig_default: &'static str,
        file: Option<&'static str>,
        live: Option<&'static str>,
    }

    #[test]
    fn namespace_in_view() {
        let cases = [
            Case {
                name: "nothing given",
                namespace: None,
                all: false,
                kubeconfig_default: "team-a",
                file: None,
                live: Some("team-a"),
            },
            Case {
                name: "-n",
                namespace: Some("prod"),
                all: false,
                kubeconfig_default: "team-a",
                file: Some("prod"),
                live: Some("prod"),
            },
            Case {
                name: "-A",
                namespace: None,
                all: true,
                kubeconfig_default: "team-a",
                file: None,
                live: None,
            },
            Case {
                name: "context without namespace",
                namespace: None,
                all: false,
                kubeconfig_default: "default",
                file: None,
                live: Some("default"),
            },
        ];
        for c in cases {
            assert_eq!(
                file_namespace(c.namespace, c.all).as_deref(),
                c.file,
                "{}: file",
                c.name
            );
            assert_eq!(
                live_namespace(c.namespace, c.all, c.kubeconfig_default).as_deref(),
                c.live,
                "{}: live",
                c.name
            );
        }
    }

    #[test]
    fn tidy_event_drops_empty_values() {
        let mut event = Event {
            source: Some(EventSource::default()),
            reporting_component: Some(String::new()),
            reporting_instance: Some(String::new()),
            count: Some(0),
            reason: Some("WorkloadRollPermitted".into()),
            ..Event::default()
        };
        tidy_event(&mut event);
        assert_eq!(
            event,
            Event {
                reason: Some("WorkloadRollPermitted".into()),
                ..Event::default()
            }
        );
        let mut kept = Event {
            source: Some(EventSource {
                component: Some("kubelet".into()),
                host: None,
            }),
            reporting_component: Some("valkey-operator".into()),
            count: Some(3),
            ..Event::default()
        };
        let before = kept.clone();
        tidy_event(&mut kept);
        assert_eq!(kept, before);
    }
}
