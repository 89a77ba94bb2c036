//! `status [CLUSTER]`: one report per ValkeyCluster in view.
//!
//! Read (a cluster or a file), judge with the clock and the stall
//! threshold, keep the named cluster, render in the asked format. With
//! `--exit-code` a verdict that needs attention (Jammed, Stalled, Conflict)
//! makes the exit 3, so a script or an alert can act on it.

use crate::app::Ctx;
use crate::classify::classify;
use crate::cli::{OutputFormat, StatusArgs};
use crate::error::{Error, Exit, Outcome, Result};
use crate::render::json::{to_json, to_yaml};
use crate::render::table::{TableOptions, status_table};
use crate::report::Report;
use crate::source;
use crate::source::watch::Scope;

pub async fn run(ctx: &Ctx, args: &StatusArgs) -> Result<Outcome> {
    let loaded = source::load_partial(ctx, args.cluster.as_deref()).await?;
    let partial = source::partial_warning(&loaded.unread);
    let mut report = classify(&loaded.snapshot, ctx.now(), ctx.global.stall_threshold);
    if let Some(name) = &args.cluster
        && let Err(err) = keep_cluster(&mut report, name, loaded.namespace.as_deref())
    {
        // Live, the cluster was listed by name, so the report has no other
        // names to suggest: `in_view` lists them, on the way out only.
        if let Some(live) = &loaded.live {
            let scope = Scope {
                namespace: loaded.namespace.clone(),
                cluster: Some(name.clone()),
            };
            super::watch::in_view(live, &report, &scope, false).await?;
        }
        return Err(err);
    }
    let mut outcome = if report.clusters.is_empty() && is_table(ctx) {
        // kubectl's habit: an empty listing is a note on stderr, not output.
        Outcome {
            stdout: String::new(),
            stderr: no_clusters_message(loaded.namespace.as_deref()),
            exit: Exit::Done,
        }
    } else {
        Outcome::ok(render_report(&report, ctx)?)
    };
    if args.exit_code && needs_attention(&report) {
        outcome = outcome.with_exit(Exit::NeedsAttention);
    }
    outcome.stderr.insert_str(0, &partial);
    Ok(outcome)
}

/// The report as `status` renders it, per `-o`: the table (`wide` adds
/// columns) or the PLUGIN.md document. Shared with `--watch` and `wait`.
/// An empty report renders as an empty table (see [`no_clusters_message`])
/// or `{"clusters": []}`.
pub fn render_report(report: &Report, ctx: &Ctx) -> Result<String> {
    match ctx.global.output {
        OutputFormat::Json => to_json(report),
        OutputFormat::Yaml => to_yaml(report),
        format @ (OutputFormat::Table | OutputFormat::Wide) => Ok(status_table(
            report,
            TableOptions {
                wide: format == OutputFormat::Wide,
                color: ctx.color,
            },
        )),
    }
}

/// What a table says when there is nothing to show.
pub fn no_clusters_message(namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) => format!("No ValkeyClusters found in namespace {ns}.\n"),
        None => "No ValkeyClusters found in any namespace.\n".to_string(),
    }
}

/// Some verdict needs a person: exit 3 with `--exit-code`.
pub fn needs_attention(report: &Report) -> bool {
    report.clusters.iter().any(|c| c.verdict.needs_attention())
}

fn is_table(ctx: &Ctx) -> bool {
    matches!(ctx.global.output, OutputFormat::Table | OutputFormat::Wide)
}

/// Keeps only the cluster named `name` (in every namespace in view); a name
/// that is not there is an error with the nearest names.
pub fn keep_cluster(report: &mut Report, name: &str, namespace: Option<&str>) -> Result<()> {
    let names: Vec<String> = report.clusters.iter().map(|c| c.name.clone()).collect();
    report.clusters.retain(|c| c.name == name);
    if report.clusters.is_empty() {
        return Err(Error::NotFound {
            kind: "ValkeyCluster",
            namespace: namespace.unwrap_or("*").to_string(),
            name: name.to_string(),
            nearest: nearest_names(name, names.iter().map(String::as_str)),
        });
    }
    Ok(())
}

/// Up to three of `candidates` close to `name`, nearest first: compared
/// without regard to case, by edit distance.
pub fn nearest_names<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut originals: Vec<&str> = candidates.into_iter().collect();
    originals.sort_unstable();
    originals.dedup();
    let lowered: Vec<String> = originals.iter().map(|c| c.to_lowercase()).collect();
    let lowered_refs: Vec<&str> = lowered.iter().map(String::as_str).collect();
    crate::steer::plan::nearest(&name.to_lowercase(), &lowered_refs)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::sample::bare_cluster;
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
                    assert_eq!(namespace, "prod");
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

    #[test]
    fn empty_listing_message() {
        assert_eq!(
            no_clusters_message(Some("prod")),
            "No ValkeyClusters found in namespace prod.\n"
        );
        assert_eq!(
            no_clusters_message(None),
            "No ValkeyClusters found in any namespace.\n"
        );
    }
}
