//! What `status`, `status --watch`, `wait`, `explain` and `history` share:
//! rendering a report per `-o`, keeping the named cluster, and the checks
//! and look-ups behind "no such ValkeyCluster (did you mean ...)".

use crate::cli::OutputFormat;
use crate::commands::Ctx;
use crate::error::{Error, Result};
use crate::live::servers::Rereader;
use crate::render::json::{to_json, to_yaml};
use crate::render::table::{TableOptions, status_screen};
use crate::report::Report;
use crate::snapshot::Snapshot;
use crate::source::Live;
use crate::source::watch::Scope;

/// The report as `status` renders it, per `-o`: the table (`wide` adds
/// columns) or the docs/plugin.md document. Shared with `--watch` and `wait`.
/// An empty report renders as an empty table (see
/// [`crate::render::notice::no_clusters_message`])
/// or `{"clusters": []}`.
pub(crate) fn render_report(report: &Report, ctx: &Ctx) -> Result<String> {
    match ctx.global.output {
        OutputFormat::Json => to_json(report),
        OutputFormat::Yaml => to_yaml(report),
        OutputFormat::Name => Ok(crate::render::name::clusters(report)),
        // -o svg is history's alone (Cli::validate).
        format @ (OutputFormat::Table | OutputFormat::Wide | OutputFormat::Svg) => {
            Ok(status_screen(
                report,
                TableOptions {
                    wide: format == OutputFormat::Wide,
                    color: ctx.color,
                },
                ctx.screen(),
            ))
        }
    }
}

/// The warning for a `--now` before every time the snapshot holds (every
/// duration would read 0s), or before some of them by more than
/// [`CLOCK_SKEW`] (those read 0s); empty otherwise, and without `--now`.
pub(crate) fn clock_warning(ctx: &Ctx, snapshot: &Snapshot) -> String {
    let Some(now) = ctx.global.now else {
        return String::new();
    };
    let conditions = snapshot
        .clusters
        .iter()
        .flat_map(|c| c.conditions())
        .chain(snapshot.nodes.iter().flat_map(|n| n.conditions()))
        .filter_map(|c| c.last_transition_time.as_ref().map(|t| t.0));
    let events = snapshot
        .events
        .iter()
        .filter_map(crate::classify::event_time);
    let mut earliest = None::<jiff::Timestamp>;
    let mut latest = None::<jiff::Timestamp>;
    let mut after = 0usize;
    for t in conditions.chain(events) {
        earliest = Some(earliest.map_or(t, |e| e.min(t)));
        latest = Some(latest.map_or(t, |l| l.max(t)));
        if t.duration_since(now) > CLOCK_SKEW {
            after += 1;
        }
    }
    match (earliest, latest) {
        (Some(earliest), _) if now < earliest => {
            crate::render::clock::before_everything(now, earliest)
        }
        (_, Some(latest)) if after > 0 => crate::render::clock::before_some(now, latest, after),
        _ => String::new(),
    }
}

/// How far after `--now` a time may lie unremarked: the API server's
/// clock and the one that took the snapshot (a bundle's `taken-at`) may
/// differ by seconds, and a time read as 0s instead of a few seconds ago
/// misleads no one.
pub(crate) const CLOCK_SKEW: jiff::SignedDuration = jiff::SignedDuration::from_secs(60);

/// Some verdict needs a person: exit 3 with `--exit-code`.
pub(crate) fn needs_attention(report: &Report) -> bool {
    report.clusters.iter().any(|c| c.verdict.needs_attention())
}

pub(crate) fn is_table(ctx: &Ctx) -> bool {
    matches!(ctx.global.output, OutputFormat::Table | OutputFormat::Wide)
}

/// Keeps only the cluster named `name` (in every namespace in view); a name
/// that is not there is an error with the nearest names.
pub(crate) fn keep_cluster(report: &mut Report, name: &str, namespace: Option<&str>) -> Result<()> {
    let names: Vec<String> = report.clusters.iter().map(|c| c.name.clone()).collect();
    report.clusters.retain(|c| c.name == name);
    if report.clusters.is_empty() {
        return Err(Error::NotFound {
            kind: "ValkeyCluster",
            namespace: namespace.map(str::to_string),
            name: name.to_string(),
            nearest: nearest_names(name, names.iter().map(String::as_str)),
        });
    }
    Ok(())
}

/// Up to three of `candidates` close to `name`, nearest first: compared
/// without regard to case, by edit distance.
pub(crate) fn nearest_names<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<String> {
    let mut originals: Vec<&str> = candidates.into_iter().collect();
    originals.sort_unstable();
    originals.dedup();
    let lowered: Vec<String> = originals.iter().map(|c| c.to_lowercase()).collect();
    let lowered_refs: Vec<&str> = lowered.iter().map(String::as_str).collect();
    crate::names::nearest(&name.to_lowercase(), &lowered_refs)
        .into_iter()
        .filter_map(|hit| {
            lowered
                .iter()
                .position(|l| *l == hit)
                .and_then(|i| originals.get(i))
                .map(|o| o.to_string())
        })
        .collect()
}

/// A named ValkeyCluster must be in view; with `need_any`, so must some
/// cluster when none is named (`wait` has nothing to wait for otherwise).
pub(crate) fn check_in_view(report: &Report, scope: &Scope, need_any: bool) -> Result<()> {
    let namespace = scope.namespace.clone();
    match &scope.cluster {
        Some(name) => {
            if report
                .clusters
                .iter()
                .any(|c| &c.name == name && c.cluster_found)
            {
                Ok(())
            } else {
                Err(Error::NotFound {
                    kind: "ValkeyCluster",
                    namespace,
                    name: name.clone(),
                    nearest: Vec::new(),
                })
            }
        }
        None if need_any && report.clusters.is_empty() => Err(Error::NoClusters {
            namespace: scope.namespace.clone(),
        }),
        None => Ok(()),
    }
}

/// [`check_in_view`] with the nearest names filled in: a person who typed
/// `cahce` is told about `cache`. Costs one LIST of ValkeyClusters, on the
/// way out only.
pub(crate) async fn in_view(
    live: &Live,
    report: &Report,
    scope: &Scope,
    need_any: bool,
) -> Result<()> {
    match check_in_view(report, scope, need_any) {
        Err(Error::NotFound {
            kind,
            namespace,
            name,
            ..
        }) => {
            let names = live.cluster_names(scope.namespace.as_deref()).await;
            Err(Error::NotFound {
                kind,
                namespace,
                nearest: nearest_names(&name, names.iter().map(String::as_str)),
                name,
            })
        }
        other => other,
    }
}

/// How `--servers` reaches the servers, with the CA of `--servers-ca` or
/// `--servers-ca-configmap` for a TLS cluster; None: they are not read.
pub(crate) fn reach(
    how: crate::cli::ServersArg,
    ca: &crate::cli::ServersCaArgs,
) -> Option<crate::source::servers::Reach> {
    use crate::cli::ServersArg;
    use crate::source::servers::{Reach, Transport};
    use crate::source::trust::CaFrom;
    let transport = match how {
        ServersArg::Off => return None,
        ServersArg::PortForward => Transport::PortForward,
        ServersArg::Direct => Transport::Direct,
    };
    let ca = match (&ca.servers_ca, &ca.servers_ca_configmap) {
        (Some(file), _) => Some(CaFrom::File(file.clone())),
        (None, Some(map)) => Some(CaFrom::ConfigMap {
            namespace: map.namespace.clone(),
            name: map.name.clone(),
            key: map.key.clone(),
        }),
        (None, None) => None,
    };
    Some(Reach { transport, ca })
}

/// Reads the servers of the clusters in `loaded` (of `only`, when given)
/// into its snapshot, when it is live and `how` asks for it; returns the
/// warnings of servers not read (docs/servers.md).
pub(crate) async fn read_servers(
    loaded: &mut crate::source::Loaded,
    only: Option<(&str, &str)>,
    how: crate::cli::ServersArg,
    ca: &crate::cli::ServersCaArgs,
) -> String {
    use crate::source::servers;
    let Some(reach) = reach(how, ca) else {
        return String::new();
    };
    let Some(live) = &loaded.live else {
        return String::new();
    };
    let accounts =
        servers::read_into(live, &mut loaded.snapshot, only, &reach, servers::BOUNDS).await;
    crate::render::notice::servers_unread(&accounts)
}

/// The servers' re-reader of a person's live view (`status --watch`,
/// `wait`, the dashboard) as `how` asks for it, reading every
/// [`crate::live::servers::REREAD`]; none for `off` or no `--servers`.
pub(crate) fn rereader(
    live: &Live,
    how: Option<crate::cli::ServersArg>,
    ca: &crate::cli::ServersCaArgs,
) -> Option<Rereader> {
    Some(Rereader::new(
        live,
        reach(how?, ca)?,
        crate::live::servers::REREAD,
    ))
}

/// What a reading of the servers ended with: the clusters to judge again
/// for what their servers said, and the lines about servers not read when
/// they differ from the last ones said (`said`; an empty text: all read
/// now).
pub(crate) type ServersRead = (
    std::collections::BTreeSet<crate::snapshot::ClusterKey>,
    Option<String>,
);

/// Waits for `servers`' reading under way, if any; forever otherwise (for
/// a `select!` arm of a view with or without `--servers`). Cancel-safe.
pub(crate) async fn servers_read(servers: &mut Option<Rereader>, said: &mut String) -> ServersRead {
    let again = crate::live::servers::finished(servers).await;
    let accounts = servers.as_ref().map(Rereader::accounts).unwrap_or_default();
    let lines = crate::render::notice::servers_unread(&accounts);
    let news = (lines != *said).then(|| lines.clone());
    *said = lines;
    (again, news)
}

/// A person's live view (`status --watch`, `wait`, the dashboard).
/// How often a terminal frame with ticking durations is judged again.
pub(crate) const TICK: std::time::Duration = std::time::Duration::from_secs(1);

/// Connects and starts the watch of what `status`/`wait` would read
/// ([`crate::live::start`]).
pub(crate) async fn start(
    ctx: &Ctx,
    cluster: Option<&str>,
) -> Result<(Live, crate::source::watch::Watch, Scope)> {
    let in_view = crate::live::InView::AsAsked {
        namespace: ctx.global.namespace.as_deref(),
        all_namespaces: ctx.global.all_namespaces,
    };
    crate::live::start(
        &ctx.access(),
        in_view,
        cluster,
        crate::live::Tolerance::Strict,
    )
    .await
}

/// How a context's connection is said (the words are render's; the state
/// is the live layer's [`ConnectionView`]).
pub(crate) trait ConnectionWords {
    /// "as of 10:16:11 (12s ago)" when stale at `now`.
    fn as_of(&self, now: jiff::Timestamp) -> Option<String>;
    /// "live", or "connection lost, retrying in 4s".
    fn words(&self, now: tokio::time::Instant) -> String;
    /// The stderr line off a terminal.
    fn log_line(&self, now: tokio::time::Instant) -> String;
}

impl ConnectionWords for crate::live::ConnectionView {
    fn as_of(&self, now: jiff::Timestamp) -> Option<String> {
        self.stale_since()
            .map(|since| crate::render::watch::as_of(since, now))
    }

    fn words(&self, now: tokio::time::Instant) -> String {
        crate::render::watch::connection_words(self.retry_in(now))
    }

    fn log_line(&self, now: tokio::time::Instant) -> String {
        let lost = match (self, self.retry_in(now)) {
            (crate::live::ConnectionView::Lost { error, .. }, Some(retry_in)) => {
                Some((retry_in, error.as_str()))
            }
            _ => None,
        };
        crate::render::watch::connection_log_line(lost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample::bare_cluster;
    use crate::report::{ClusterReport, Verdict};

    fn cluster(namespace: &str, name: &str, verdict: Verdict) -> ClusterReport {
        ClusterReport {
            namespace: namespace.into(),
            ..bare_cluster(name, verdict, vec![])
        }
    }

    fn report() -> Report {
        Report {
            clusters: vec![
                cluster("prod", "cache", Verdict::Jammed),
                cluster("prod", "sessions", Verdict::Converged),
                cluster("staging", "cache", Verdict::Rolling),
            ],
        }
    }

    #[test]
    fn named_cluster_is_kept_in_every_namespace() {
        let mut r = report();
        keep_cluster(&mut r, "cache", None).unwrap();
        let kept: Vec<_> = r
            .clusters
            .iter()
            .map(|c| format!("{}/{}", c.namespace, c.name))
            .collect();
        assert_eq!(kept, ["prod/cache", "staging/cache"]);
    }

    #[test]
    fn missing_cluster_names_the_nearest() {
        let cases: &[(&str, &[&str])] = &[
            ("cahce", &["cache"]),
            ("CACHE", &["cache"]),
            ("Sessions", &["sessions"]),
            ("orders", &[]),
        ];
        for (name, want) in cases {
            let mut r = report();
            let err = keep_cluster(&mut r, name, Some("prod")).unwrap_err();
            match err {
                Error::NotFound {
                    kind,
                    namespace,
                    nearest,
                    ..
                } => {
                    assert_eq!(kind, "ValkeyCluster");
                    assert_eq!(namespace.as_deref(), Some("prod"));
                    assert_eq!(nearest, *want, "{name}");
                }
                other => panic!("{name}: {other}"),
            }
        }
    }

    #[test]
    fn attention_follows_the_verdicts() {
        let cases: &[(&[Verdict], bool)] = &[
            (
                &[Verdict::Converged, Verdict::Rolling, Verdict::Waiting],
                false,
            ),
            (&[Verdict::Converged, Verdict::Jammed], true),
            (&[Verdict::Stalled], true),
            (&[Verdict::Conflict], true),
            (&[], false),
        ];
        for (verdicts, want) in cases {
            let r = Report {
                clusters: verdicts.iter().map(|v| cluster("prod", "c", *v)).collect(),
            };
            assert_eq!(needs_attention(&r), *want, "{verdicts:?}");
        }
    }
}
