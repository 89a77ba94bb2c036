//! "Last words": why the failing container of a holder's (or the walk
//! front's) pod dies: its last termination, and the last lines of its
//! previous container's log as `explain` read them.

use crate::render::style::clean;
use crate::report::{FailingContainer, NodeReport, Termination};
use crate::shell::CommandLine;
use crate::snapshot::{LOG_LIMIT_BYTES, LOG_TAIL_LINES, PreviousLog};
use crate::units::{age, timestamp};
use jiff::Timestamp;
use std::fmt::Write as _;

/// The section's lines, each indented by two spaces (log lines by four),
/// every string from the data cleaned. Empty when the node has no failing
/// container.
pub(super) fn last_words(
    namespace: &str,
    node: &NodeReport,
    log: &PreviousLog,
    now: Timestamp,
) -> String {
    let Some(c) = &node.facts.failing_container else {
        return String::new();
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "  container {} (restarts {})",
        clean(&c.name),
        c.restarts
    );
    let _ = writeln!(out, "  {}", clean(&termination_line(c, now)));
    let pod = node.pod.as_deref().unwrap_or("its pod");
    let log_line = |why: &str| format!("  no log: {}\n", clean(why));
    match log {
        PreviousLog::Lines { lines, cut } => {
            if lines.is_empty() {
                out.push_str("  the previous container wrote nothing to its log\n");
            } else {
                let _ = writeln!(
                    out,
                    "  the last {} of its previous container's log (at most {LOG_TAIL_LINES}):",
                    if lines.len() == 1 {
                        "line".to_string()
                    } else {
                        format!("{} lines", lines.len())
                    }
                );
                for line in lines {
                    let _ = writeln!(out, "    {}", clean(line));
                }
            }
            if *cut {
                let whole = CommandLine::new("kubectl logs")
                    .arg(pod)
                    .opt("-n", namespace)
                    .opt("-c", &c.name)
                    .switch("--previous");
                // The command on a line of its own, as explain's next steps
                // print theirs (no backquotes: a name may hold one).
                let _ = writeln!(
                    out,
                    "  (cut at {} KiB: the lines after these are not shown; this has them:)\n      {}",
                    LOG_LIMIT_BYTES / 1024,
                    clean(&whole.render_with(crate::render::fit::bounded))
                );
            }
        }
        PreviousLog::Offline => out.push_str(&log_line(
            "the snapshot is read from a file (-f), which holds no logs; live, explain reads the previous container's log",
        )),
        PreviousLog::NoPrevious => {
            out.push_str(&log_line("there is no previous container to read it from"))
        }
        PreviousLog::Forbidden => out.push_str(&log_line(
            "get on pods/log is forbidden for you (an optional rule; see the README's RBAC)",
        )),
        PreviousLog::Gone(why) => out.push_str(&log_line(&format!(
            "the previous container's log is gone ({why})"
        ))),
        PreviousLog::Failed(why) => out.push_str(&log_line(&format!(
            "reading the previous container's log failed ({why})"
        ))),
    }
    out
}

/// `last terminated 3m ago (2026-11-29T09:57:00Z): exit code 1, reason Error`
fn termination_line(c: &FailingContainer, now: Timestamp) -> String {
    match &c.last {
        Some(t) => format!("last terminated {}: {}", when(t, now), exit_words(t)),
        None => "no last termination: it has not terminated before".to_string(),
    }
}

fn when(t: &Termination, now: Timestamp) -> String {
    match t.finished_at {
        Some(at) => format!("{} ago ({})", age(at, now), timestamp(at)),
        None => "at an unknown time".to_string(),
    }
}

/// `exit code 137, reason OOMKilled, signal 9`
fn exit_words(t: &Termination) -> String {
    let mut words = format!("exit code {}", t.exit_code);
    if let Some(r) = &t.reason {
        let _ = write!(words, ", reason {r}");
    }
    if let Some(s) = t.signal {
        let _ = write!(words, ", signal {s}");
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;
    use crate::render::explain::{explain_cluster, explain_node};
    use crate::report::ClusterReport;

    fn jammed() -> ClusterReport {
        sample::jammed().clusters.remove(0)
    }

    fn stuck(cluster: &ClusterReport) -> &NodeReport {
        cluster
            .nodes
            .iter()
            .find(|n| n.name == "cache-1-1")
            .unwrap_or_else(|| panic!("no cache-1-1"))
    }

    fn log_lines() -> PreviousLog {
        PreviousLog::Lines {
            lines: vec![
                "1:C 29 Nov 2026 10:14:39.001 * oO0OoO0OoO0Oo Valkey is starting oO0OoO0OoO0Oo"
                    .into(),
                "1:C 29 Nov 2026 10:14:39.002 # FATAL CONFIG FILE ERROR (Version 9.1.0)".into(),
                ">>> 'cluster-announce-hostname \"\u{1b}[31mx\u{1b}[0m\"'".into(),
                "Bad directive or wrong number of arguments\r".into(),
            ],
            cut: false,
        }
    }

    #[test]
    fn stuck_node_with_its_last_words() {
        let cluster = jammed();
        let out = explain_node(
            &cluster,
            stuck(&cluster),
            None,
            &sample::stuck_timeline(),
            sample::now(),
            false,
            Some(&log_lines()),
        );
        assert!(
            !out.contains('\u{1b}'),
            "control characters cleaned:\n{out}"
        );
        insta::assert_snapshot!(out);
    }

    #[test]
    fn jammed_cluster_with_the_holders_last_words() {
        let cluster = jammed();
        let out = explain_cluster(
            &cluster,
            None,
            &sample::stuck_timeline(),
            sample::now(),
            false,
            Some((stuck(&cluster), &log_lines())),
            None,
        );
        insta::assert_snapshot!(out);
    }

    /// Every way the log can be missing, one line each; the termination
    /// stays.
    #[test]
    fn every_kind_of_missing_log() {
        let cluster = jammed();
        let node = stuck(&cluster);
        let mut never_ran = node.clone();
        if let Some(c) = never_ran.facts.failing_container.as_mut() {
            c.last = None;
        }
        let mut signal = node.clone();
        if let Some(t) = signal
            .facts
            .failing_container
            .as_mut()
            .and_then(|c| c.last.as_mut())
        {
            t.exit_code = 137;
            t.reason = None;
            t.signal = Some(9);
            t.finished_at = None;
        }
        let cases: Vec<(&str, &NodeReport, PreviousLog)> = vec![
            ("offline", node, PreviousLog::Offline),
            ("forbidden", node, PreviousLog::Forbidden),
            (
                "gone",
                node,
                PreviousLog::Gone(
                    "previous terminated container \"server\" in pod \"valkey-cache-1-1-0\" not found".into(),
                ),
            ),
            (
                "failed",
                node,
                PreviousLog::Failed("the server is currently unable to handle the request (HTTP 503)".into()),
            ),
            (
                "empty",
                node,
                PreviousLog::Lines {
                    lines: vec![],
                    cut: false,
                },
            ),
            (
                "cut at the byte limit",
                node,
                PreviousLog::Lines {
                    lines: vec!["x".repeat(40)],
                    cut: true,
                },
            ),
            ("never terminated", &never_ran, PreviousLog::NoPrevious),
            ("signal only, no time", &signal, PreviousLog::Offline),
        ];
        let mut out = String::new();
        for (case, node, log) in &cases {
            let words = last_words("prod", node, log, sample::now());
            let _ = write!(out, "--- {case}\n{words}");
        }
        insta::assert_snapshot!(out);
    }

    #[test]
    fn no_failing_container_no_section() {
        let cluster = jammed();
        let converged = cluster
            .nodes
            .iter()
            .find(|n| n.name == "cache-0-1")
            .unwrap_or_else(|| panic!("no cache-0-1"));
        assert_eq!(
            last_words("prod", converged, &PreviousLog::Offline, sample::now()),
            ""
        );
        let out = explain_node(
            &cluster,
            converged,
            None,
            &[],
            sample::now(),
            false,
            Some(&PreviousLog::Offline),
        );
        assert!(!out.contains("Last words"), "{out}");
    }
}
