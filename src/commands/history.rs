//! `history [CLUSTER]`: the current roll so far, one row per node in walk
//! order (when it was advanced and by whom, when its template was applied,
//! when its pod became Ready, how long it took, how it ended). Live or
//! with `-f`; from what `status` reads.

use crate::classify::classify_with_history;
use crate::cli::{HistoryArgs, OutputFormat};
use crate::commands::Ctx;
use crate::error::{Exit, Outcome, Result};
use crate::render::history::{document, table};
use crate::render::json::{to_json, to_yaml};
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
        OutputFormat::Table | OutputFormat::Wide => {
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
