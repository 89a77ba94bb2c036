//! `status [CLUSTER]`: one report per ValkeyCluster in view.
//!
//! Read (a cluster or a file), judge with the clock and the stall
//! threshold, keep the named cluster, render in the asked format. With
//! `--exit-code` a verdict that needs attention (Jammed, Stalled, Conflict)
//! makes the exit 3, so a script or an alert can act on it.

use super::shared::{is_table, keep_cluster, needs_attention, no_clusters_message, render_report};
use crate::classify::classify;
use crate::cli::StatusArgs;
use crate::commands::Ctx;
use crate::error::{Exit, Outcome, Result};
use crate::source;
use crate::source::watch::Scope;

pub async fn run(ctx: &Ctx, args: &StatusArgs) -> Result<Outcome> {
    let mut loaded = source::load_partial(&ctx.global, args.cluster.as_deref()).await?;
    let partial = source::partial_warning(&loaded.unread)
        + &super::shared::clock_warning(ctx, &loaded.snapshot);
    let mut report = classify(&loaded.snapshot, ctx.now(), ctx.global.stall_threshold);
    // The report owns all it shows: the objects go before it is rendered,
    // so the two are never held at once with the output.
    drop(std::mem::take(&mut loaded.snapshot));
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
            super::shared::in_view(live, &report, &scope, false).await?;
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
