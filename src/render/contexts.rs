//! `status` over several kubeconfig contexts, as a table: first one line
//! per cluster with its CONTEXT (the view a platform team scans for the one
//! that jammed), then each context's clusters as `status` shows them.

use super::fit::{Cell, bounded};
use super::style::{Tone, clean, reason_cell};
use super::table::{TableOptions, borderless, status_table};
use crate::report::Report;

/// The overview and the blocks, contexts in the report's order. An empty
/// report gives an empty string (the command says why).
pub(crate) fn contexts_table(report: &Report, opts: TableOptions) -> String {
    if report.clusters.is_empty() {
        return String::new();
    }
    let rows = report
        .clusters
        .iter()
        .map(|c| {
            let done = c.done.map_or_else(|| "?".to_string(), |d| d.to_string());
            let tone = c.verdict.tone();
            let verdict =
                Cell::new(c.verdict.to_string().to_uppercase()).toned(tone, tone == Tone::Bad);
            vec![
                Cell::new(clean(c.context.as_deref().unwrap_or("-"))),
                Cell::new(clean(&format!("{}/{}", c.namespace, c.name))),
                verdict,
                Cell::new(format!("{done}/{}", c.total)),
                Cell::new(reason_cell(
                    &super::words::ClusterSaid(&c.reason, c.protocol).to_string(),
                )),
            ]
        })
        .collect();
    let mut out = borderless(
        &["CONTEXT", "CLUSTER", "VERDICT", "ROLLED", "REASON"],
        rows,
        "",
        opts.color,
    );
    let mut contexts: Vec<Option<&str>> = Vec::new();
    for c in &report.clusters {
        if !contexts.contains(&c.context.as_deref()) {
            contexts.push(c.context.as_deref());
        }
    }
    for context in contexts {
        let one = Report {
            clusters: report
                .clusters
                .iter()
                .filter(|c| c.context.as_deref() == context)
                .cloned()
                .collect(),
        };
        // A name longer than any the API server accepts is cut, as in a
        // table's cell (issue 30, item 11: 5,000 characters were printed
        // whole).
        out.push_str(&format!(
            "\n--- context {}\n\n",
            bounded(&clean(context.unwrap_or("-")))
        ));
        out.push_str(&status_table(&one, opts));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample::{converged, jammed};

    #[test]
    fn one_line_per_cluster_with_its_context_then_each_context() {
        let mut report = jammed();
        report.clusters[0].context = Some("eu".into());
        let mut other = converged().clusters;
        other[0].context = Some("us".into());
        report.clusters.extend(other);
        let out = contexts_table(&report, TableOptions::default());
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0], "CONTEXT  CLUSTER        VERDICT    ROLLED  REASON",
            "{out}"
        );
        assert!(
            lines[1].starts_with("eu       prod/cache     JAMMED     1/6     "),
            "{out}"
        );
        assert!(
            lines[2].starts_with("us       prod/sessions  CONVERGED  2/2     "),
            "{out}"
        );
        let eu = out.find("--- context eu").expect("eu's blocks");
        let us = out.find("--- context us").expect("us's blocks");
        assert!(eu < us);
        assert!(out[eu..us].contains("prod/cache  JAMMED"), "{out}");
        assert!(out[us..].contains("prod/sessions  CONVERGED"), "{out}");
        assert_eq!(
            contexts_table(&Report { clusters: vec![] }, TableOptions::default()),
            ""
        );
    }

    #[test]
    fn a_context_name_beyond_any_the_api_accepts_is_cut_in_its_header() {
        let mut report = converged();
        let name = "c".repeat(5_000);
        report.clusters[0].context = Some(name.clone());
        let out = contexts_table(&report, TableOptions::default());
        let header = out
            .lines()
            .find(|l| l.starts_with("--- context "))
            .expect("the context's header");
        assert_eq!(
            header,
            format!("--- context {}…", "c".repeat(crate::names::LONGEST_NAME))
        );
    }
}
