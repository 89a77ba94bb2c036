//! `status` as a table: per cluster a two-line headline and one row per node.
//!
//! The headline answers the on-call questions first: the verdict (the
//! loudest word), who holds or blocks and why, for how long and by which
//! clock, then what it costs (who waits) and how far the roll is. Rows put
//! the nodes that need a look first: holders, then Blocking, then the queue
//! in walk order, then the rest.

use super::fit::{Cell, Grid, Last, Screen, columns, paragraph, parts};
use super::style::{Tone, clean, clean_or_dash, paint};
use crate::report::{ClusterReport, GrantSource, NodeReport, NodeState, Protocol, Report, Verdict};
use crate::units::{human, human_or, short_hash, timestamp};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableOptions {
    /// Full hashes, and the pod and grant-time columns.
    pub wide: bool,
    pub color: bool,
}

/// Every cluster of the report, one block each, blocks separated by a blank
/// line. An empty report gives an empty string (the command says why).
pub fn status_table(report: &Report, opts: TableOptions) -> String {
    status_screen(report, opts, Screen::default())
}

/// [`status_table`] fitted to `screen` (its width, and without headers
/// when it says so: then the rows alone, as kubectl's `--no-headers`).
pub(crate) fn status_screen(report: &Report, opts: TableOptions, screen: Screen) -> String {
    status_screen_as_of(report, opts, screen, None)
}

/// [`status_screen`] of a reading that is no longer current (a live view
/// whose connection is lost): each headline keeps its verdict only as
/// `CONVERGED as of 10:16:11 (12s ago)` (`as_of` is the time part, from
/// [`super::watch::as_of`]), and nothing is coloured, so no success
/// colour is shown for what may have changed since.
pub(crate) fn status_screen_as_of(
    report: &Report,
    opts: TableOptions,
    screen: Screen,
    as_of: Option<&str>,
) -> String {
    let opts = TableOptions {
        color: opts.color && as_of.is_none(),
        ..opts
    };
    report
        .clusters
        .iter()
        .map(|cluster| cluster_block(cluster, opts, screen, as_of))
        .collect::<Vec<_>>()
        .join(if screen.no_headers { "" } else { "\n" })
}

/// One cluster: headline (its verdict `as_of` a past reading when given),
/// blank line, node table.
fn cluster_block(
    cluster: &ClusterReport,
    opts: TableOptions,
    screen: Screen,
    as_of: Option<&str>,
) -> String {
    if screen.no_headers {
        let table = node_table(cluster, opts, screen.width);
        return table
            .split_once('\n')
            .map(|(_, rows)| rows.to_string())
            .unwrap_or_default();
    }
    let mut out = headline_as_of("", cluster, opts.color, screen.width, as_of);
    out.push('\n');
    if cluster.nodes.is_empty() {
        out.push_str("No ValkeyNodes found for this cluster.\n");
    } else {
        out.push_str(&node_table(cluster, opts, screen.width));
    }
    out
}

/// The headline wrapped at words to `width`: what follows the location
/// goes on under the verdict word (or, after a long location, four
/// columns in).
#[cfg(test)]
pub(crate) fn headline_fit(cluster: &ClusterReport, color: bool, width: Option<usize>) -> String {
    headline_after("", cluster, color, width)
}

/// [`headline_fit`] after `lead` (`ValkeyCluster `, in explain). Without
/// a width the second line is indented as far as the location is long.
pub(crate) fn headline_after(
    lead: &str,
    cluster: &ClusterReport,
    color: bool,
    width: Option<usize>,
) -> String {
    headline_as_of(lead, cluster, color, width, None)
}

/// [`headline_after`], the verdict kept only `as of` a past reading when
/// `as_of` is given (then in no tone).
fn headline_as_of(
    lead: &str,
    cluster: &ClusterReport,
    color: bool,
    width: Option<usize>,
    as_of: Option<&str>,
) -> String {
    let location = clean(&format!("{}/{}", cluster.namespace, cluster.name));
    let verdict = cluster.verdict.to_string().to_uppercase();
    let mut word = match as_of {
        Some(when) => paint(&format!("{verdict} {when}"), Tone::Quiet, true, color),
        None => paint(&verdict, verdict_tone(cluster), true, color),
    };
    // Servers asked and not read: said on the verdict itself.
    if let Some(unread) = super::notice::servers_on_verdict(cluster) {
        word.push_str(" · ");
        word.push_str(&paint(&unread, Tone::Warn, false, color));
    }
    let mut indent = columns(&location) + 2;
    if let Some(w) = width {
        indent += columns(lead);
        if indent > w / 3 {
            indent = 4;
        }
    }
    let indent = " ".repeat(indent);
    let mut out = match super::fit::heading(&[lead.trim_end(), &location, &word], width) {
        // Too long for one line (a long name): the summary under it.
        Some(mut head) => {
            head.push_str(&paragraph(&summary(cluster), width, &indent, &indent));
            head
        }
        None => paragraph(
            &summary(cluster),
            width,
            &format!("{lead}{location}  {word}  "),
            &indent,
        ),
    };
    out.push_str(&parts(&costs(cluster), " · ", width, &indent));
    out
}

/// The verdict's tone as every view shows it: a verdict some of whose
/// servers were asked and not read shows no success colour (what they
/// would have said is unknown), else the verdict's own.
pub(crate) fn verdict_tone(cluster: &ClusterReport) -> Tone {
    match cluster.verdict.tone() {
        Tone::Good if cluster.servers_unread().is_some() => Tone::Quiet,
        tone => tone,
    }
}

/// What happens, in one line: the holder(s) and why, else the classifier's
/// reason for the cluster.
pub(crate) fn summary(cluster: &ClusterReport) -> String {
    let holders: Vec<&NodeReport> = cluster
        .holders
        .iter()
        .filter_map(|name| cluster.nodes.iter().find(|n| &n.name == name))
        .collect();
    let p2 = cluster.protocol == Protocol::P2;
    match (cluster.verdict, holders.as_slice()) {
        (Verdict::Conflict, _) if !holders.is_empty() => {
            let each: Vec<String> = holders
                .iter()
                .map(|n| format!("{} ({})", n.name, held(n, p2)))
                .collect();
            clean(&format!(
                "{} nodes {}: {}",
                holders.len(),
                if p2 {
                    "are in flight at once"
                } else {
                    "hold a permit at once"
                },
                each.join(", ")
            ))
        }
        (Verdict::Jammed | Verdict::Rolling, [holder]) => {
            let mut line = format!(
                "{} {}",
                holder.name,
                if p2 {
                    "is in flight"
                } else {
                    "holds the permit"
                }
            );
            line.push_str("; ");
            line.push_str(
                &crate::render::words::Said(&holder.reason, cluster.protocol).to_string(),
            );
            line.push_str("; ");
            line.push_str(&held(holder, p2));
            clean(&line)
        }
        _ => {
            clean(&crate::render::words::ClusterSaid(&cluster.reason, cluster.protocol).to_string())
        }
    }
}

/// P1 "held 14m (event)", P2 "advanced 14m ago (event)" (the controller
/// advanced its spec.workloadRevision; nothing is held), or why the time is
/// unknown.
fn held(node: &NodeReport, p2: bool) -> String {
    match (node.held_for_seconds, node.granted_at_source, p2) {
        (Some(secs), source, false) => format!("held {} ({source})", human(secs)),
        (Some(secs), source, true) => format!("advanced {} ago ({source})", human(secs)),
        (None, GrantSource::Unknown, false) => {
            "held for an unknown time (no grant time found)".into()
        }
        (None, GrantSource::Unknown, true) => {
            "advanced at an unknown time (no grant time found)".into()
        }
        (None, source, false) => format!("held for an unknown time ({source})"),
        (None, source, true) => format!("advanced at an unknown time ({source})"),
    }
}

/// The second headline line: who waits, progress, protocol, threshold and
/// the ValkeyCluster's own word.
pub(crate) fn costs(cluster: &ClusterReport) -> Vec<String> {
    // What is under way right now comes first: a failover, a shard at risk.
    let mut parts: Vec<String> = crate::render::words::asides(cluster)
        .iter()
        .map(|a| clean(a))
        .collect();
    let behind = match cluster.holders.len() {
        0 => None,
        1 => Some("it"),
        _ => Some("them"),
    };
    match behind {
        Some(them) => parts.push(match cluster.waiting {
            1 => format!("1 node waits behind {them}"),
            n => format!("{n} nodes wait behind {them}"),
        }),
        None => {
            if let Some(front) = &cluster.front {
                parts.push(format!("front {}", clean(front)));
            }
            if cluster.waiting > 0 {
                parts.push(format!("{} waiting", cluster.waiting));
            }
        }
    }
    if cluster.blocking > 0 {
        parts.push(format!("{} blocking", cluster.blocking));
    }
    if matches!(cluster.verdict, Verdict::Waiting | Verdict::Stalled)
        && let Some(quiet) = cluster.quiet_for_seconds
    {
        parts.push(format!("quiet {}", human(quiet)));
    }
    let done = cluster
        .done
        .map_or_else(|| "?".to_string(), |d| d.to_string());
    parts.push(format!("{done}/{} rolled", cluster.total));
    // The estimate, once it rests on two finished nodes of this roll.
    if let (Some(per_node), Some(eta), Some(2..)) = (
        cluster.per_node_seconds,
        cluster.eta_seconds,
        cluster.eta_basis,
    ) {
        parts.push(format!("~{} a node", human(per_node)));
        parts.push(format!("done in ~{} (est.)", rough(eta)));
    }
    parts.push(protocol_word(cluster.protocol));
    parts.push(format!(
        "stall threshold {}",
        human(cluster.stall_threshold_seconds)
    ));
    if !cluster.cluster_found {
        parts.push("ValkeyCluster not found".into());
    } else {
        match (&cluster.state, &cluster.state_reason) {
            (Some(state), Some(reason)) => {
                parts.push(clean(&format!("cluster {state}/{reason}")));
            }
            (Some(state), None) => parts.push(clean(&format!("cluster {state}"))),
            (None, Some(reason)) => parts.push(clean(&format!("cluster -/{reason}"))),
            (None, None) => {}
        }
    }
    parts
}

/// An estimate's length, rounded: seconds under a minute, else whole
/// minutes (`9m`, `1h5m`).
fn rough(seconds: u64) -> String {
    if seconds < 60 {
        human(seconds)
    } else {
        human((seconds + 30) / 60 * 60)
    }
}

/// One column of the node table: its header, its rank (0 is never left
/// out; the higher, the sooner it goes on a short line) and its cell.
struct Column {
    header: &'static str,
    rank: u8,
    /// Only with `-o wide`.
    wide: bool,
    cell: fn(&NodeReport, &Look) -> Cell,
}

/// How the cells are drawn.
struct Look {
    wide: bool,
    color: bool,
    /// The reason without what its row says already (the table is fitted).
    compact: bool,
    /// The words of the cluster's protocol.
    protocol: Protocol,
}

fn hash_cell(h: &Option<String>, look: &Look) -> Cell {
    Cell::new(match h {
        Some(h) if look.wide => clean(h),
        Some(h) => clean(short_hash(h)),
        None => "-".to_string(),
    })
}

fn yes_no_dash(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "yes",
        Some(false) => "no",
        None => "-",
    }
}

/// Every column of the node table, in the order shown. NODE, STATE, ROLE,
/// READY, the hold (P2: in-flight) or wait time and REASON stay longest;
/// then what a P2 roll turns on (is the pod on its StatefulSet's update
/// revision, the node's revision), then the rest. P2 words its columns
/// in its own vocabulary: a node is advanced and in flight, it holds no
/// permit.
fn all_columns(p2: bool) -> Vec<Column> {
    vec![
        Column {
            header: "NODE",
            rank: 0,
            wide: false,
            cell: |n, _| Cell::new(clean(&n.name)),
        },
        Column {
            header: "SHARD",
            rank: 7,
            wide: false,
            cell: |n, _| Cell::new(n.shard.map_or_else(|| "-".into(), |s| s.to_string())),
        },
        Column {
            header: "ROLE",
            rank: 1,
            wide: false,
            cell: |n, _| Cell::new(crate::render::words::role_cell(n)),
        },
        Column {
            header: "STATE",
            rank: 0,
            wide: false,
            cell: |n, look| state_cell(n.state, look.color),
        },
        Column {
            // P2: the node's spec.workloadRevision; P1: its permit.
            header: if p2 { "REVISION" } else { "PERMIT" },
            rank: 5,
            wide: false,
            cell: |n, look| hash_cell(&n.permit, look),
        },
        Column {
            header: "DESIRED",
            rank: 6,
            wide: false,
            cell: |n, look| hash_cell(&n.desired_revision, look),
        },
        Column {
            header: "LAST-ROLLOUT",
            rank: 8,
            wide: false,
            cell: |n, look| hash_cell(&n.last_rollout_hash, look),
        },
        Column {
            // The pod runs its StatefulSet's update revision.
            header: "UP-TO-DATE",
            rank: 4,
            wide: false,
            cell: |n, _| Cell::new(yes_no_dash(n.facts.pod_on_update_revision)),
        },
        Column {
            header: "READY",
            rank: 2,
            wide: false,
            cell: |n, _| Cell::new(if n.ready { "yes" } else { "no" }),
        },
        Column {
            header: if p2 { "FOR" } else { "HELD/WAITING" },
            rank: 3,
            wide: false,
            cell: |n, _| Cell::new(held_or_waiting(n)),
        },
        Column {
            header: "POD",
            rank: 9,
            wide: true,
            cell: |n, _| Cell::new(clean_or_dash(n.pod.as_deref())),
        },
        Column {
            header: if p2 { "ADVANCED-AT" } else { "GRANTED-AT" },
            rank: 9,
            wide: true,
            cell: |n, _| Cell::new(n.granted_at.map_or_else(|| "-".into(), timestamp)),
        },
        Column {
            header: "SOURCE",
            rank: 9,
            wide: true,
            cell: |n, _| {
                Cell::new(if n.facts.holder || n.granted_at.is_some() {
                    n.granted_at_source.to_string()
                } else {
                    "-".into()
                })
            },
        },
        Column {
            header: if p2 { "ADVANCED-BY" } else { "GRANTED-BY" },
            rank: 9,
            wide: true,
            cell: |n, _| Cell::new(clean_or_dash(n.granted_by.as_deref())),
        },
        Column {
            header: "LAST-EXIT",
            rank: 9,
            wide: true,
            cell: |n, _| Cell::new(last_exit(n)),
        },
        Column {
            header: "REASON",
            rank: 0,
            wide: false,
            cell: |n, look| {
                Cell::new(if look.compact {
                    crate::render::words::reason_in_row(n, look.protocol)
                } else {
                    crate::render::words::reason_of(n, look.protocol)
                })
            },
        },
    ]
}

/// On a short line, REASON keeps at least this much before a column of
/// lower priority is shown.
const REASON_ROOM: usize = 28;

fn node_table(cluster: &ClusterReport, opts: TableOptions, width: Option<usize>) -> String {
    let mut nodes: Vec<&NodeReport> = cluster.nodes.iter().collect();
    // Who needs a look first; ties keep walk order (a stable sort).
    nodes.sort_by_key(|n| n.state.urgency());
    let look = Look {
        wide: opts.wide,
        color: opts.color,
        compact: width.is_some() && !opts.wide,
        protocol: cluster.protocol,
    };
    let columns: Vec<Column> = all_columns(cluster.protocol == Protocol::P2)
        .into_iter()
        .filter(|c| opts.wide || !c.wide)
        .collect();
    let rows: Vec<Vec<Cell>> = nodes
        .iter()
        .map(|n| columns.iter().map(|c| (c.cell)(n, &look)).collect())
        .collect();
    // Without -o wide, a column with nothing in any row is left out.
    let keep: Vec<bool> = (0..columns.len())
        .map(|i| opts.wide || columns[i].rank == 0 || rows.iter().any(|r| r[i].text != "-"))
        .collect();
    let pick = |all: Vec<Cell>| -> Vec<Cell> {
        all.into_iter()
            .zip(&keep)
            .filter_map(|(c, k)| k.then_some(c))
            .collect()
    };
    let kept: Vec<&Column> = columns
        .iter()
        .zip(&keep)
        .filter_map(|(c, k)| k.then_some(c))
        .collect();
    Grid {
        header: kept.iter().map(|c| c.header).collect(),
        rank: kept.iter().map(|c| c.rank).collect(),
        rows: rows.into_iter().map(pick).collect(),
        last: if opts.wide {
            Last::Fixed
        } else {
            Last::Cut { min: REASON_ROOM }
        },
        indent: "",
    }
    // -o wide shows every column, whole.
    .render(if opts.wide { None } else { width }, opts.color)
}

/// A table in kubectl's look: no borders, two spaces between columns, no
/// wrapping, every line prefixed by `indent`. Cells carry their own
/// colour; without `color` none is emitted.
pub(crate) fn borderless(
    header: &[&str],
    rows: Vec<Vec<Cell>>,
    indent: &str,
    color: bool,
) -> String {
    Grid::plain(header, rows, indent).render(None, color)
}

/// `1 (Error)`: the exit code and reason of the last termination of the
/// node's failing container (`-`: none, or it has not terminated before).
fn last_exit(node: &NodeReport) -> String {
    let Some(t) = node
        .facts
        .failing_container
        .as_ref()
        .and_then(|c| c.last.as_ref())
    else {
        return "-".into();
    };
    match (&t.reason, t.signal) {
        (Some(r), _) => clean(&format!("{} ({r})", t.exit_code)),
        (None, Some(s)) => format!("{} (signal {s})", t.exit_code),
        (None, None) => t.exit_code.to_string(),
    }
}

/// A node's state word in its colour (bold when someone has to act).
pub(crate) fn state_cell(state: NodeState, color: bool) -> Cell {
    let cell = Cell::new(state.to_string());
    if !color {
        return cell;
    }
    let tone = state.tone();
    cell.toned(tone, tone == Tone::Bad)
}

/// A holder's hold time (`?` when unknown), else a waiting node's wait.
fn held_or_waiting(node: &NodeReport) -> String {
    if node.facts.holder || node.held_for_seconds.is_some() {
        human_or(node.held_for_seconds, "?")
    } else {
        human_or(node.waiting_for_seconds, "-")
    }
}

/// The protocol as a headline says it: `P1`, `P2`, `protocol unknown`.
pub(crate) fn protocol_word(protocol: Protocol) -> String {
    match protocol {
        Protocol::Unknown => "protocol unknown".to_string(),
        p => p.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;
    use crate::report::{ClusterReason, NodeReason, RollStep, Sickness, Unfinished, Unhealthy};

    fn plain() -> TableOptions {
        TableOptions {
            wide: false,
            color: false,
        }
    }

    #[test]
    fn jammed_table() {
        insta::assert_snapshot!(status_table(&sample::jammed(), plain()));
    }

    #[test]
    fn jammed_wide_table() {
        let opts = TableOptions {
            wide: true,
            color: false,
        };
        insta::assert_snapshot!(status_table(&sample::jammed(), opts));
    }

    #[test]
    fn several_clusters_are_blocks_separated_by_a_blank_line() {
        let report = Report {
            clusters: vec![
                sample::jammed().clusters.remove(0),
                sample::converged().clusters.remove(0),
            ],
        };
        insta::assert_snapshot!(status_table(&report, plain()));
    }

    #[test]
    fn empty_report_renders_nothing() {
        assert_eq!(
            status_table(&Report { clusters: vec![] }, plain()),
            String::new()
        );
    }

    #[test]
    fn headline_names_holder_evidence_hold_time_source_and_queue() {
        let out = status_table(&sample::jammed(), plain());
        let first = out.lines().next().unwrap_or_default();
        for want in [
            "prod/cache",
            "JAMMED",
            "cache-1-1 holds the permit",
            "CrashLoopBackOff (restarts 7)",
            "held 14m (event)",
        ] {
            assert!(first.contains(want), "{want:?} missing from {first:?}");
        }
        let second = out.lines().nth(1).unwrap_or_default();
        for want in [
            "4 nodes wait behind it",
            "1/6 rolled",
            "P1",
            "stall threshold 10m",
            "cluster Reconciling/UpdatingNodes",
        ] {
            assert!(second.contains(want), "{want:?} missing from {second:?}");
        }
    }

    /// Issue 43 item 3: a view whose connection was lost showed CONVERGED
    /// in green, as if read now. Stale, each verdict is kept only as of
    /// its reading, and nothing is coloured (no success colour).
    #[test]
    fn a_stale_view_keeps_its_verdicts_only_as_of_their_reading() {
        let mut converged = sample::bare_cluster("cache", Verdict::Converged, vec![]);
        converged.namespace = "prod".into();
        let mut jammed = converged.clone();
        jammed.name = "store".into();
        jammed.verdict = Verdict::Jammed;
        let report = Report {
            clusters: vec![converged, jammed],
        };
        let opts = TableOptions {
            wide: false,
            color: true,
        };
        let live = status_screen_as_of(&report, opts, Screen::default(), None);
        assert!(live.contains("\u{1b}["), "coloured when live: {live:?}");
        let when = "as of 10:16:11 (12s ago)";
        let stale = status_screen_as_of(&report, opts, Screen::default(), Some(when));
        assert!(!stale.contains('\u{1b}'), "no colour when stale: {stale:?}");
        for verdict in ["CONVERGED", "JAMMED"] {
            assert!(
                stale.contains(&format!("{verdict} {when}")),
                "{verdict}: {stale}"
            );
        }
    }

    /// Issue 43 item 3: servers asked and not read are said on the verdict
    /// itself, the headline still fitted to 80 columns, and a Converged
    /// verdict shows no success colour then; all read says nothing new.
    #[test]
    fn servers_not_read_are_said_on_the_verdict() {
        use crate::report::ServersRead;
        let read = |read, unread| {
            Some(ServersRead {
                read,
                unread,
                observed_at: None,
            })
        };
        // (case, servers read and not, as of, the headline at 80 columns)
        type Case = (
            &'static str,
            Option<ServersRead>,
            Option<&'static str>,
            &'static str,
        );
        let cases: &[Case] = &[
            (
                "converged, all read",
                read(2, 0),
                None,
                concat!(
                    "prod/sessions  CONVERGED  all 2 nodes rolled and healthy\n",
                    "               2/2 rolled · P2 · stall threshold 10m · cluster Ready\n",
                ),
            ),
            (
                "converged, one not read",
                read(1, 1),
                None,
                concat!(
                    "prod/sessions  CONVERGED · servers: 1 of 2 not read  all 2 nodes rolled and\n",
                    "               healthy\n",
                    "               2/2 rolled · P2 · stall threshold 10m · cluster Ready\n",
                ),
            ),
            (
                "converged, none read",
                read(0, 2),
                None,
                concat!(
                    "prod/sessions  CONVERGED · servers: none of 2 read  all 2 nodes rolled and\n",
                    "               healthy\n",
                    "               2/2 rolled · P2 · stall threshold 10m · cluster Ready\n",
                ),
            ),
            (
                "stale too",
                read(1, 1),
                Some("as of 10:16:11 (12s ago)"),
                concat!(
                    "prod/sessions  CONVERGED as of 10:16:11 (12s ago) · servers: 1 of 2 not read\n",
                    "               all 2 nodes rolled and healthy\n",
                    "               2/2 rolled · P2 · stall threshold 10m · cluster Ready\n",
                ),
            ),
        ];
        for (name, servers, as_of, want) in cases {
            let mut c = sample::converged().clusters.remove(0);
            c.servers = servers.clone();
            let head = headline_as_of("", &c, false, Some(80), *as_of);
            assert_eq!(head, *want, "{name}");
            for line in head.lines() {
                assert!(columns(line) <= 80, "{name}: {line:?} is wider than 80");
            }
            let coloured = headline_as_of("", &c, true, Some(80), None);
            let green = coloured.contains("\u{1b}[32m");
            assert_eq!(green, c.servers_unread().is_none(), "{name}: {coloured:?}");
        }
    }

    #[test]
    fn headline_variants() {
        let mut unknown_hold = sample::jammed().clusters.remove(0);
        unknown_hold.nodes[2].held_for_seconds = None;
        unknown_hold.nodes[2].granted_at = None;
        unknown_hold.nodes[2].granted_at_source = GrantSource::Unknown;
        unknown_hold.done = None;
        unknown_hold.protocol = Protocol::Unknown;

        let mut conflict = sample::jammed().clusters.remove(0);
        conflict.verdict = Verdict::Conflict;
        conflict.holders = vec!["cache-1-1".into(), "cache-0-1".into()];
        conflict.nodes[0].permit = Some("*".into());
        conflict.nodes[0].held_for_seconds = Some(30);
        conflict.nodes[0].granted_at_source = GrantSource::Annotation;

        let mut stalled = sample::converged().clusters.remove(0);
        stalled.verdict = Verdict::Stalled;
        stalled.reason = ClusterReason::Stalled {
            quiet: Some(1500),
            what: Unfinished::FrontUnhealthy {
                front: "cache-0-1".into(),
                why: Sickness::Status(vec![Unhealthy::NodeNotReady]),
            },
            failover: None,
        };
        stalled.front = Some("cache-0-1".into());
        stalled.blocking = 1;
        stalled.quiet_for_seconds = Some(1500);
        stalled.cluster_found = false;

        let cases: &[(&str, ClusterReport, &[&str])] = &[
            (
                "unknown hold time",
                unknown_hold,
                &[
                    "held for an unknown time (no grant time found)",
                    "?/6 rolled",
                    "protocol unknown",
                ],
            ),
            (
                "conflict",
                conflict,
                &[
                    "CONFLICT",
                    "2 nodes hold a permit at once: cache-1-1 (held 14m (event)), cache-0-1 (held 30s (annotation))",
                    "4 nodes wait behind them",
                ],
            ),
            (
                "stalled",
                stalled,
                &[
                    "STALLED  nothing has moved for 25m: the walk's front cache-0-1 is not healthy (node not ready)",
                    "front cache-0-1 · 1 blocking · quiet 25m",
                    "ValkeyCluster not found",
                ],
            ),
        ];
        for (name, cluster, wants) in cases {
            let head = headline_fit(cluster, false, None);
            for want in *wants {
                assert!(
                    head.contains(want),
                    "{name}: {want:?} missing from {head:?}"
                );
            }
        }
    }

    #[test]
    fn the_estimate_shows_once_two_nodes_finished() {
        // (perNodeSeconds, etaSeconds, etaBasis, what the second line says)
        type Case = (
            Option<u64>,
            Option<u64>,
            Option<usize>,
            Option<&'static str>,
        );
        let cases: &[Case] = &[
            (
                Some(130),
                Some(545),
                Some(2),
                Some("1/6 rolled · ~2m10s a node · done in ~9m (est.) · P1"),
            ),
            (Some(130), Some(545), Some(1), None),
            (
                Some(40),
                Some(20),
                Some(3),
                Some("~40s a node · done in ~20s (est.)"),
            ),
            (None, None, Some(0), None),
            (None, None, None, None),
        ];
        for (per_node, eta, basis, want) in cases {
            let mut c = sample::jammed().clusters.remove(0);
            c.verdict = Verdict::Rolling;
            (c.per_node_seconds, c.eta_seconds, c.eta_basis) = (*per_node, *eta, *basis);
            let second = headline_fit(&c, false, None)
                .lines()
                .nth(1)
                .unwrap_or_default()
                .to_string();
            match want {
                Some(want) => assert!(second.contains(want), "{basis:?}: {second:?}"),
                None => assert!(!second.contains("a node"), "{basis:?}: {second:?}"),
            }
        }
    }

    #[test]
    fn rows_put_holders_first_then_the_queue() {
        let out = status_table(&sample::jammed(), plain());
        let names: Vec<&str> = out
            .lines()
            .skip(3)
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(
            names,
            [
                "NODE",
                "cache-1-1",
                "cache-0-0",
                "cache-1-0",
                "cache-2-1",
                "cache-2-0",
                "cache-0-1"
            ]
        );
    }

    #[test]
    fn colour_only_when_asked() {
        let report = sample::jammed();
        let plain_out = status_table(&report, plain());
        assert!(!plain_out.contains('\u{1b}'), "{plain_out}");
        let coloured = status_table(
            &report,
            TableOptions {
                wide: false,
                color: true,
            },
        );
        assert!(coloured.contains('\u{1b}'));
        // Red and bold around the verdict word.
        assert!(coloured.contains("\u{1b}[1m\u{1b}[31mJAMMED"), "{coloured}");
    }

    #[test]
    fn hostile_text_cannot_break_a_row() {
        let mut report = sample::jammed();
        report.clusters[0].nodes[0].reason = NodeReason::Rolling(RollStep::PodNotReady {
            pod: Some("line one\nline two\u{1b}[2J".into()),
        });
        let out = status_table(&report, plain());
        assert!(!out.contains('\u{1b}'));
        assert!(out.contains(r"line one line two\u{1b}[2J"), "{out}");
    }
}
