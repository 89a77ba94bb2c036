//! `status [CLUSTER]`: one report per ValkeyCluster in view.
//!
//! Read (a cluster or a file), judge with the clock and the stall
//! threshold, keep the named cluster, render in the asked format. With
//! `--exit-code` a verdict that needs attention (Jammed, Stalled, Conflict)
//! makes the exit 3, so a script or an alert can act on it.

use super::contexts;
use super::shared::{is_table, keep_cluster, needs_attention, render_report};
use crate::classify::classify;
use crate::cli::StatusArgs;
use crate::commands::Ctx;
use crate::error::{Exit, Outcome, Result};
use crate::render::notice::{
    context_partial_warning, context_unread, no_clusters_message, view_warnings,
};
use crate::report::Report;
use crate::source;
use crate::source::watch::Scope;

pub(crate) async fn run(ctx: &Ctx, args: &StatusArgs) -> Result<Outcome> {
    if ctx.global.several_contexts() {
        return run_contexts(ctx, args).await;
    }
    let mut loaded = source::load_partial(&ctx.target(), args.cluster.as_deref()).await?;
    let servers = match args.servers {
        Some(how) => {
            let ns = loaded.namespace.clone();
            let only = ns.as_deref().zip(args.cluster.as_deref());
            super::shared::read_servers(&mut loaded, only, how, &args.servers_ca).await
        }
        None => String::new(),
    };
    let partial = view_warnings(&loaded.unread, &loaded.duplicates)
        + &super::shared::clock_warning(ctx, &loaded.snapshot)
        + &servers;
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

/// `status` over several contexts (several `--context`, `--all-contexts`):
/// each read at once, judged with the same clock, in one report where each
/// cluster names its context. A context that cannot be read is a warning
/// naming it and exit 7 ([`Exit::ContextsUnread`]); with `--exit-code`, a
/// roll that needs attention still exits 3. A named cluster is looked for
/// in every context; in none of those read, it is an error.
async fn run_contexts(ctx: &Ctx, args: &StatusArgs) -> Result<Outcome> {
    let names = contexts::resolve(&ctx.global)?;
    let reads =
        futures::future::join_all(names.iter().map(|name| {
            let global = ctx.global.for_context(name.0.as_deref());
            let cluster = args.cluster.clone();
            async move {
                source::load_partial(&crate::commands::target(&global), cluster.as_deref()).await
            }
        }))
        .await;
    let now = ctx.now();
    let mut report = Report {
        clusters: Vec::new(),
    };
    let mut stderr = String::new();
    let mut unread = 0;
    for (name, read) in names.iter().zip(reads) {
        match read {
            Ok(mut loaded) => {
                stderr.push_str(&context_partial_warning(name.given(), &loaded.unread));
                let mut judged = classify(&loaded.snapshot, now, ctx.global.stall_threshold);
                drop(std::mem::take(&mut loaded.snapshot));
                if let Some(cluster) = &args.cluster {
                    judged.clusters.retain(|c| &c.name == cluster);
                }
                for c in &mut judged.clusters {
                    c.context = Some(name.label());
                }
                report.clusters.extend(judged.clusters);
            }
            Err(err) => {
                stderr.push_str(&context_unread(name.given(), &err));
                unread += 1;
            }
        }
    }
    if let Some(name) = &args.cluster
        && report.clusters.is_empty()
        && unread == 0
    {
        return Err(crate::error::Error::NotFound {
            kind: "ValkeyCluster",
            namespace: ctx.global.namespace.clone(),
            name: name.clone(),
            nearest: Vec::new(),
        });
    }
    let stdout = if is_table(ctx) {
        if report.clusters.is_empty() {
            stderr.push_str(&format!(
                "No ValkeyClusters found in {} context(s) read.\n",
                names.len() - unread
            ));
        }
        crate::render::contexts::contexts_table(
            &report,
            crate::render::table::TableOptions {
                wide: ctx.global.output == crate::cli::OutputFormat::Wide,
                color: ctx.color,
            },
        )
    } else {
        render_report(&report, ctx)?
    };
    let exit = if args.exit_code && needs_attention(&report) {
        Exit::NeedsAttention
    } else if unread > 0 {
        Exit::ContextsUnread
    } else {
        Exit::Done
    };
    Ok(Outcome {
        stdout,
        stderr,
        exit,
    })
}
