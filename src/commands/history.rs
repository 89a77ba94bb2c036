//! `history [CLUSTER]`: the current roll so far, one row per node in walk
//! order (when it was advanced and by whom, when its template was applied,
//! when its pod became Ready, how long it took, how it ended). Live or
//! with `-f`; from what `status` reads. `-o svg` draws it
//! (render::svg), with the failover events of the cluster's timeline.

use crate::classify::classify_with_history;
use crate::cli::{HistoryArgs, OutputFormat};
use crate::commands::Ctx;
use crate::error::{Exit, Outcome, Result};
use crate::render::history::{document, table};
use crate::render::json::{to_json, to_yaml};
use crate::render::svg::{FailoverMark, FailoverStep};
use crate::snapshot::{Snapshot, keys};
use crate::source;

pub(crate) async fn run(ctx: &Ctx, args: &HistoryArgs) -> Result<Outcome> {
    let loaded = source::load(&ctx.target(), args.cluster.as_deref()).await?;
    let now = ctx.now();
    let clock = crate::render::notice::view_warnings(&loaded.unread, &loaded.duplicates)
        + &super::shared::clock_warning(ctx, &loaded.snapshot);
    let mut report = classify_with_history(&loaded.snapshot, now, ctx.global.stall_threshold);
    if let Some(name) = &args.cluster {
        super::shared::keep_cluster(&mut report, name, loaded.namespace.as_deref())?;
    }
    let stdout = match ctx.global.output {
        OutputFormat::Json => to_json(&document(&report, now))?,
        OutputFormat::Yaml => to_yaml(&document(&report, now))?,
        OutputFormat::Name => crate::render::name::clusters(&report),
        OutputFormat::Svg if !report.clusters.is_empty() => {
            let failovers: Vec<_> = (report.clusters.iter())
                .map(|c| {
                    let mut marks = failover_marks(&loaded.snapshot, &c.namespace, &c.name);
                    marks.extend(unplanned_marks(c));
                    marks
                })
                .collect();
            crate::render::svg::history(&report, now, &failovers)
        }
        OutputFormat::Table | OutputFormat::Wide | OutputFormat::Svg => {
            if report.clusters.is_empty() {
                return Ok(Outcome {
                    stdout: String::new(),
                    stderr: clock
                        + &crate::render::notice::no_clusters_message(loaded.namespace.as_deref()),
                    exit: Exit::Done,
                });
            }
            table(&report, now, ctx.screen())
        }
    };
    Ok(Outcome {
        stdout,
        stderr: clock,
        exit: Exit::Done,
    })
}

/// The failovers the operator did not make (by the servers' readings,
/// which a snapshot or a bundle may carry), for the picture: when the
/// servers said so, on the new primary's row and the old one's.
pub(crate) fn unplanned_marks(c: &crate::report::ClusterReport) -> Vec<FailoverMark> {
    c.unplanned
        .iter()
        .map(|u| FailoverMark {
            at: u.seen_at,
            step: FailoverStep::Unplanned,
            nodes: std::iter::once(u.to.clone())
                .chain(u.from.clone())
                .collect(),
        })
        .collect()
}

/// The failover events of a cluster's roll (its timeline's), for the
/// picture: when, which step, and the nodes their notes name.
pub(crate) fn failover_marks(
    snapshot: &Snapshot,
    namespace: &str,
    cluster: &str,
) -> Vec<FailoverMark> {
    crate::classify::cluster_timeline(snapshot, namespace, cluster)
        .into_iter()
        .filter_map(|e| {
            let step = match e.reason.as_str() {
                keys::EVENT_FAILOVER_INITIATED => FailoverStep::Initiated,
                keys::EVENT_FAILOVER_COMPLETED => FailoverStep::Completed,
                keys::EVENT_FAILOVER_FAILED => FailoverStep::Failed,
                keys::EVENT_FAILOVER_TIMEOUT => FailoverStep::TimedOut,
                _ => return None,
            };
            Some(FailoverMark {
                at: e.time?,
                step,
                nodes: e.addresses.into_values().collect(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::UnplannedFailover;

    /// A failover the operator did not make is a mark on the picture, on
    /// both nodes' rows, at the time the servers said so.
    #[test]
    fn a_failover_nobody_made_is_marked_on_the_picture() {
        let mut report = crate::fixture::sample::jammed();
        report.clusters.truncate(1);
        let c = &mut report.clusters[0];
        let seen: jiff::Timestamp = "2026-11-29T10:15:00Z".parse().expect("time");
        let to = "cache-1-1".to_string();
        c.history.started_at = Some("2026-11-29T10:00:00Z".parse().expect("time"));
        c.history.rows = vec![crate::report::HistoryRow {
            node: to.clone(),
            shard: Some(1),
            index: Some(1),
            role: None,
            role_source: None,
            role_note: None,
            advanced_at: None,
            advanced_by: None,
            servers_said: None,
            applied_at: None,
            ready_at: None,
            took_seconds: None,
            outcome: crate::report::HistoryOutcome::Waiting,
            partial: false,
        }];
        c.unplanned = vec![UnplannedFailover {
            shard: 1,
            to: to.clone(),
            from: None,
            seen_at: seen,
        }];
        let marks = unplanned_marks(c);
        assert_eq!(marks.len(), 1);
        assert_eq!(
            (marks[0].at, marks[0].step, marks[0].nodes.clone()),
            (seen, FailoverStep::Unplanned, vec![to.clone()])
        );
        let now = "2026-11-29T10:16:00Z".parse().expect("time");
        let svg = crate::render::svg::history(&report, now, &[marks]);
        let title =
            format!("a failover the operator did not make, seen at 2026-11-29T10:15:00Z: {to}");
        assert!(svg.contains(&title), "{title} in:\n{svg}");
        let svg = crate::render::svg::history(&report, now, &[vec![]]);
        assert!(!svg.contains("did not make, seen"), "{svg}");
    }
}
