//! The operator-faithful replay: docs/plugin.md's "A roll, write by write" tables
//! (Builder-only P1 with its 9' branch, Spec-driven P1, Builder-only P2 with
//! its 5' branch) played against the real API server, one API call per
//! write, with the built binary's `status -o json` run after every single
//! write and the row's states and verdict asserted.
//!
//! X is `cache-0-1` (a replica) and Y `cache-0-0` (the primary) of cluster
//! `cache`'s one shard; T = 10m; nothing is slow: the sim's clock moves
//! [`SECONDS_PER_WRITE`] before every write, and the same time goes to the
//! plugin as `--now`, so no duration comes near T or the 2-minute evidence
//! thresholds. The clock starts at the real time (whole seconds) once the
//! cluster is built, because the API server stamps some times itself
//! (managedFields, creation): a clock far from the server's would make those
//! look old or new in a way no real operator's writes do.
//!
//! A row that the table gives as one line but the operator makes as several
//! writes is checked after each of them, with the state the definitions give
//! for the moment between (e.g. row 10: the pod Ready is still Rolling; the
//! StatefulSet rolled out makes it Settling). Events the operator records
//! along the way and the table leaves out (WorkloadRollDeferred in step 1,
//! WorkloadRollApplied in step 3 of docs/protocol.md's "Life of one node's roll")
//! are writes too, and checked like the others. The audit log confirms that
//! each write was exactly one write request.

mod harness;

use harness::sim::{self, Layout, Protocol, Sim};
use jiff::Timestamp;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::future::Future;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::PathBuf;
use std::process::Command;

use harness::common::BIN;
const X: &str = "cache-0-1";
const Y: &str = "cache-0-0";
/// How far the clock moves before each write.
const SECONDS_PER_WRITE: i64 = 3;

const BUILDER_P1: &str = "Builder-only roll (P1)";
const BUILDER_P1_9: &str = "Builder-only roll (P1), 9' branch";
const SPEC_P1: &str = "Spec-driven roll (P1)";
const BUILDER_P2: &str = "Builder-only roll in P2";
const BUILDER_P2_5: &str = "Builder-only roll in P2, 5' branch";

/// One table being played in its own namespace.
struct Replay<'a> {
    sim: &'a Sim,
    table: &'static str,
    kubeconfig: PathBuf,
    audit_log: PathBuf,
    /// How far the audit log has been read.
    audit_offset: u64,
    /// Writes made so far, for failure messages.
    writes: Vec<String>,
    /// Rows checked (the row number before any " (...)").
    rows: BTreeSet<String>,
    checks: usize,
}

impl<'a> Replay<'a> {
    /// Fixes the sim's clock at the real time and skips the audit log's
    /// history: the replay starts here.
    fn new(sim: &'a Sim, table: &'static str) -> Replay<'a> {
        let s = harness::server();
        let now = Timestamp::now();
        sim.set_now(&sim::fmt_time(now));
        let audit_log = s.audit_log().to_path_buf();
        let audit_offset = std::fs::metadata(&audit_log).map(|m| m.len()).unwrap_or(0);
        Replay {
            sim,
            table,
            kubeconfig: s.kubeconfig().to_path_buf(),
            audit_log,
            audit_offset,
            writes: Vec::new(),
            rows: BTreeSet::new(),
            checks: 0,
        }
    }

    /// Moves the clock, makes one write, and checks the row.
    async fn step<F: Future>(
        &mut self,
        row: &str,
        write: &str,
        f: F,
        x: &str,
        y: &str,
        verdict: &str,
    ) -> F::Output {
        self.sim.advance(SECONDS_PER_WRITE);
        let out = f.await;
        self.writes.push(format!("{row}: {write}"));
        self.check(row, write, 1, x, y, verdict).await;
        out
    }

    /// Runs `status` at the sim's clock and asserts X, Y and the verdict;
    /// also that exactly `writes` write requests reached the namespace
    /// since the last check.
    async fn check(
        &mut self,
        row: &str,
        write: &str,
        writes: usize,
        want_x: &str,
        want_y: &str,
        want_verdict: &str,
    ) {
        let now = sim::fmt_time(self.sim.now());
        let doc = self.status(&now).await;
        let here = format!(
            "{}, row {row} ({write}), check {} at {now}",
            self.table,
            self.checks + 1
        );
        let cluster = doc["clusters"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["name"] == "cache"))
            .unwrap_or_else(|| {
                panic!("{here}: no cluster `cache` in the status document:\n{doc:#}")
            });
        let node = |name: &str| {
            cluster["nodes"]
                .as_array()
                .and_then(|ns| ns.iter().find(|n| n["name"] == name))
                .unwrap_or_else(|| {
                    panic!("{here}: no node {name} in the status document:\n{doc:#}")
                })
        };
        let (x, y) = (node(X), node(Y));
        let mut wrong = String::new();
        for (who, got, want) in [
            ("X (cache-0-1) state", &x["state"], want_x),
            ("Y (cache-0-0) state", &y["state"], want_y),
            ("verdict", &cluster["verdict"], want_verdict),
        ] {
            if got.as_str() != Some(want) {
                let _ = writeln!(wrong, "  {who}: got {got}, the table says {want}");
            }
        }
        if !wrong.is_empty() {
            panic!(
                "{here}:\n{wrong}  X reason: {}\n  Y reason: {}\n  cluster reason: {}\n  \
                 writes so far:\n    {}\n  status document:\n{}",
                x["reason"],
                y["reason"],
                cluster["reason"],
                self.writes.join("\n    "),
                serde_json::to_string_pretty(cluster).unwrap_or_default()
            );
        }
        let made = self.new_write_requests();
        assert_eq!(
            made.len(),
            writes,
            "{here}: the write must be exactly {writes} write request(s) to the API server, \
             the audit log has: {made:?}"
        );
        self.checks += 1;
        let base = row.split(" (").next().unwrap_or(row);
        self.rows.insert(base.to_string());
    }

    /// `status cache -n NS -o json --now NOW` with the admin kubeconfig.
    async fn status(&self, now: &str) -> Value {
        let args: Vec<String> = [
            "status",
            "cache",
            "-n",
            &self.sim.ns,
            "-o",
            "json",
            "--kubeconfig",
            &self.kubeconfig.display().to_string(),
            "--now",
            now,
            "--stall-threshold",
            "10m",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let shown = args.join(" ");
        let out = tokio::task::spawn_blocking(move || {
            Command::new(BIN)
                .args(&args)
                .env_remove("KUBECONFIG")
                .env("NO_COLOR", "1")
                .output()
        })
        .await
        .expect("join the status run")
        .unwrap_or_else(|e| panic!("run {BIN}: {e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}: `status {shown}` exited {:?}\nstdout:\n{stdout}\nstderr:\n{}",
            self.table,
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("{}: status JSON does not parse: {e}\n{stdout}", self.table))
    }

    /// Write requests (create, update, patch, delete) on objects of the
    /// replay's namespace that the audit log gained since the last call.
    fn new_write_requests(&mut self) -> Vec<String> {
        let mut file = std::fs::File::open(&self.audit_log)
            .unwrap_or_else(|e| panic!("open {}: {e}", self.audit_log.display()));
        file.seek(SeekFrom::Start(self.audit_offset))
            .expect("seek the audit log");
        let mut reader = BufReader::new(file);
        let mut out = Vec::new();
        let mut line = String::new();
        loop {
            line.clear();
            let n = reader.read_line(&mut line).expect("read the audit log");
            // A line still being written is read again next time.
            if n == 0 || !line.ends_with('\n') {
                break;
            }
            self.audit_offset += n as u64;
            let Ok(ev) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let o = &ev["objectRef"];
            if o["namespace"].as_str() == Some(&self.sim.ns)
                && matches!(
                    ev["verb"].as_str(),
                    Some("create" | "update" | "patch" | "delete")
                )
            {
                let sub = o["subresource"]
                    .as_str()
                    .map(|s| format!("/{s}"))
                    .unwrap_or_default();
                out.push(format!(
                    "{} {}/{}{sub}",
                    ev["verb"].as_str().unwrap_or_default(),
                    o["resource"].as_str().unwrap_or_default(),
                    o["name"].as_str().unwrap_or_default()
                ));
            }
        }
        out
    }

    /// Asserts that every row of the table was checked at least once.
    fn covered(&self, rows: &[&str]) {
        let want: BTreeSet<String> = rows.iter().map(|r| r.to_string()).collect();
        assert_eq!(
            self.rows, want,
            "{}: rows checked differ from the table's",
            self.table
        );
        eprintln!(
            "{}: {} rows, {} checks (one after every write)",
            self.table,
            self.rows.len(),
            self.checks
        );
    }
}

/// (X's state, Y's state) when `who` is in state `me` and the other node in
/// `other`.
fn states<'s>(who: &str, me: &'s str, other: &'s str) -> (&'s str, &'s str) {
    if who == X { (me, other) } else { (other, me) }
}

// ---------------------------------------------------------------------------
// Builder-only roll (P1)

/// The whole table, or up to row 9' (`nine_prime`) in place of row 9.
async fn builder_only_p1(r: &mut Replay<'_>, nine_prime: bool) {
    let sim = r.sim;
    let (x, y) = (sim.node(X), sim.node(Y));
    let h = sim::hash("replay-builder-p1");

    r.check(
        "0",
        "all healthy, ValkeyCluster Ready for its generation",
        0,
        "Converged",
        "Converged",
        "Converged",
    )
    .await;
    r.step(
        "1",
        "X: annotation desired=h",
        x.annotate_desired(&h),
        "Waiting",
        "Converged",
        "Waiting",
    )
    .await;
    r.step(
        "2",
        "X: status WorkloadDrift=True",
        x.set_drift(&h),
        "Waiting",
        "Converged",
        "Waiting",
    )
    .await;
    r.step(
        "2",
        "X: event WorkloadRollDeferred",
        sim.event_deferred(X, &h),
        "Waiting",
        "Converged",
        "Waiting",
    )
    .await;
    r.step(
        "2",
        "Y: annotation desired=h",
        y.annotate_desired(&h),
        "Waiting",
        "Waiting",
        "Waiting",
    )
    .await;
    r.step(
        "2",
        "Y: status WorkloadDrift=True",
        y.set_drift(&h),
        "Waiting",
        "Waiting",
        "Waiting",
    )
    .await;
    r.step(
        "2",
        "Y: event WorkloadRollDeferred",
        sim.event_deferred(Y, &h),
        "Waiting",
        "Waiting",
        "Waiting",
    )
    .await;

    let finished = builder_node_p1(r, X, &h, "Waiting", nine_prime).await;
    if !finished {
        return;
    }
    // Row 13: Y as X in 3 and 5 to 12.
    builder_node_p1(r, Y, &h, "Converged", false).await;
    r.step(
        "14",
        "ValkeyCluster: Ready=True for its generation",
        sim.cluster_ready(),
        "Converged",
        "Converged",
        "Converged",
    )
    .await;
}

/// Rows 3 to 12 for X (with row 4), or row 13 for Y. With `nine_prime`, row
/// 9' replaces row 9 and the replay ends there (returns false).
async fn builder_node_p1(
    r: &mut Replay<'_>,
    who: &str,
    h: &str,
    other: &str,
    nine_prime: bool,
) -> bool {
    let sim = r.sim;
    let tag = if who == X { "X" } else { "Y" };
    let say = |w: &str| format!("{tag}: {w}");
    let n = sim.node(who);
    let w = n.workload();
    let pod = n.pod_for(h);
    let row = |row: &str| {
        if who == X {
            row.to_string()
        } else {
            format!("13 (Y as X in {row})")
        }
    };
    let me = |state: &'static str| states(who, state, other);

    let (x, y) = me("Rolling");
    r.step(
        &row("3"),
        &say("annotation allow=h"),
        n.grant(h),
        x,
        y,
        "Rolling",
    )
    .await;
    r.step(
        &row("3"),
        &say("event WorkloadRollPermitted"),
        sim.event_permitted(who, h),
        x,
        y,
        "Rolling",
    )
    .await;
    if who == X {
        r.step(
            "4",
            "ValkeyCluster: Ready=False, Progressing=True, reason UpdatingNodes",
            sim.cluster_updating(),
            x,
            y,
            "Rolling",
        )
        .await;
    }
    r.step(
        &row("5"),
        &say("StatefulSet new template (generation moves, status lags)"),
        w.apply_template(h),
        x,
        y,
        "Rolling",
    )
    .await;
    r.step(
        &row("5"),
        &say("event WorkloadRollApplied"),
        sim.event_applied(who, h),
        x,
        y,
        "Rolling",
    )
    .await;
    r.step(
        &row("6"),
        &say("desired annotation removed (the condition still names h)"),
        n.remove_desired(),
        x,
        y,
        "Rolling",
    )
    .await;
    r.step(
        &row("7"),
        &say("WorkloadDrift removed"),
        n.clear_drift(),
        x,
        y,
        "Rolling",
    )
    .await;
    r.step(
        &row("8"),
        &say("StatefulSet status catches up (revisions differ)"),
        w.catch_up(),
        x,
        y,
        "Rolling",
    )
    .await;
    r.step(
        &row("8"),
        &say("the old pod is being deleted (deletionTimestamp)"),
        n.pod().begin_delete(),
        x,
        y,
        "Rolling",
    )
    .await;
    r.step(
        &row("8"),
        &say("the old pod is gone"),
        n.pod().finish_delete(),
        x,
        y,
        "Rolling",
    )
    .await;
    r.step(
        &row("8"),
        &say("node status not ready"),
        n.set_ready(false),
        x,
        y,
        "Rolling",
    )
    .await;
    let nine = if nine_prime { "9'" } else { "9" };
    r.step(
        &row(nine),
        &say("new pod on the update revision created (no status yet)"),
        pod.create(h),
        x,
        y,
        "Rolling",
    )
    .await;
    if nine_prime {
        let (sx, sy) = me("Stuck");
        r.step(
            &row("9'"),
            &say("the new pod CrashLoopBackOff"),
            pod.crash_loop(3),
            sx,
            sy,
            "Jammed",
        )
        .await;
        return false;
    }
    r.step(
        &row("9"),
        &say("the new pod Running, not Ready"),
        pod.running_not_ready(),
        x,
        y,
        "Rolling",
    )
    .await;
    // The pod is Ready but the StatefulSet's revisions still differ: not
    // rolled out, so not complete.
    r.step(
        &row("10"),
        &say("pod Ready"),
        pod.running_ready(),
        x,
        y,
        "Rolling",
    )
    .await;
    let (sx, sy) = me("Settling");
    r.step(
        &row("10"),
        &say("StatefulSet revisions equal, readyReplicas 1"),
        w.rolled_out(),
        sx,
        sy,
        "Rolling",
    )
    .await;
    let (bx, by) = me("Blocking");
    r.step(
        &row("11"),
        &say("allow annotation removed (node status still not ready)"),
        n.release(),
        bx,
        by,
        "Waiting",
    )
    .await;
    let (cx, cy) = me("Converged");
    r.step(
        &row("12"),
        &say("status ready, Ready=True"),
        n.set_ready(true),
        cx,
        cy,
        "Waiting",
    )
    .await;
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builder_only_roll_p1_write_by_write() {
    let sim = Sim::fresh("replay-builder-p1", &Layout::default()).await;
    let mut r = Replay::new(&sim, BUILDER_P1);
    builder_only_p1(&mut r, false).await;
    r.covered(&[
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14",
    ]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builder_only_roll_p1_nine_prime_crash_loop_instead_of_row_9() {
    let sim = Sim::fresh("replay-builder-p1-9prime", &Layout::default()).await;
    let mut r = Replay::new(&sim, BUILDER_P1_9);
    builder_only_p1(&mut r, true).await;
    r.covered(&["0", "1", "2", "3", "4", "5", "6", "7", "8", "9'"]);
}

// ---------------------------------------------------------------------------
// Spec-driven roll (P1)

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spec_driven_roll_p1_write_by_write() {
    let sim = Sim::fresh("replay-spec-p1", &Layout::default()).await;
    let mut r = Replay::new(&sim, SPEC_P1);
    let image = json!({"image": "valkey/valkey:8.1.2"});
    let h = sim::hash("replay-spec-p1-template");

    r.check(
        "before 0",
        "all healthy, ValkeyCluster Ready for its generation",
        0,
        "Converged",
        "Converged",
        "Converged",
    )
    .await;
    r.step(
        "0",
        "ValkeyCluster spec edited (generation moves past its Ready condition's)",
        sim.edit_cluster_spec(image.clone()),
        "Waiting",
        "Waiting",
        "Waiting",
    )
    .await;

    for who in [X, Y] {
        let n = sim.node(who);
        let tag = if who == X { "X" } else { "Y" };
        let say = |w: &str| format!("{tag}: {w}");
        let w = n.workload();
        let pod = n.pod_for(&h);
        let row = |row: &str| {
            if who == X {
                row.to_string()
            } else {
                format!("5 (Y as X in {row})")
            }
        };
        // The node the walk has not reached is behind (its spec.image is the
        // old one): Waiting, where the table still says Converged (the
        // revised contract's Behind, as the real operator's b-spec shows).
        let other = if who == X { "Waiting" } else { "Converged" };
        let me = |state: &'static str| states(who, state, other);
        let (x, y) = me("Rolling");
        r.step(
            &row("1"),
            &say("new spec and allow=* in one Update (node generation moves)"),
            n.update_spec_with_permit(image.clone(), Some("*")),
            x,
            y,
            "Rolling",
        )
        .await;
        r.step(
            &row("1"),
            &say("event ValkeyNodeUpdated"),
            sim.event_node_updated(who),
            x,
            y,
            "Rolling",
        )
        .await;
        if who == X {
            r.step(
                "2",
                "ValkeyCluster: Ready=False, Progressing=True, reason UpdatingNodes, for its generation",
                sim.cluster_updating(),
                x,
                y,
                "Rolling",
            )
            .await;
        }
        // Row 3: the node controller observes the spec, and the workload
        // rolls as in the builder-only rows 5 to 10. A `*` permit allows
        // what the node builds, so there is no desired annotation or
        // WorkloadDrift to remove (rows 6 and 7 write nothing here).
        r.step(
            &row("3"),
            &say("node controller observes the spec (observedGeneration)"),
            n.observe(),
            x,
            y,
            "Rolling",
        )
        .await;
        r.step(
            &row("3"),
            &say("StatefulSet new template (generation moves, status lags)"),
            w.apply_template(&h),
            x,
            y,
            "Rolling",
        )
        .await;
        r.step(
            &row("3"),
            &say("event WorkloadRollApplied"),
            sim.event_applied(who, &h),
            x,
            y,
            "Rolling",
        )
        .await;
        r.step(
            &row("3"),
            &say("StatefulSet status catches up (revisions differ)"),
            w.catch_up(),
            x,
            y,
            "Rolling",
        )
        .await;
        r.step(
            &row("3"),
            &say("the old pod is being deleted (deletionTimestamp)"),
            n.pod().begin_delete(),
            x,
            y,
            "Rolling",
        )
        .await;
        r.step(
            &row("3"),
            &say("the old pod is gone"),
            n.pod().finish_delete(),
            x,
            y,
            "Rolling",
        )
        .await;
        r.step(
            &row("3"),
            &say("node status not ready"),
            n.set_ready(false),
            x,
            y,
            "Rolling",
        )
        .await;
        r.step(
            &row("3"),
            &say("new pod on the update revision created (no status yet)"),
            pod.create(&h),
            x,
            y,
            "Rolling",
        )
        .await;
        r.step(
            &row("3"),
            &say("the new pod Running, not Ready"),
            pod.running_not_ready(),
            x,
            y,
            "Rolling",
        )
        .await;
        r.step(
            &row("3"),
            &say("pod Ready"),
            pod.running_ready(),
            x,
            y,
            "Rolling",
        )
        .await;
        let (sx, sy) = me("Settling");
        r.step(
            &row("3"),
            &say("StatefulSet revisions equal, readyReplicas 1"),
            w.rolled_out(),
            sx,
            sy,
            "Rolling",
        )
        .await;
        let (bx, by) = me("Blocking");
        r.step(
            &row("4"),
            &say("allow removed"),
            n.release(),
            bx,
            by,
            "Waiting",
        )
        .await;
        r.step(
            &row("4"),
            &say("status ready"),
            n.set_ready(true),
            "Converged",
            other,
            "Waiting",
        )
        .await;
    }
    r.step(
        "6",
        "ValkeyCluster: Ready=True for its generation",
        sim.cluster_ready(),
        "Converged",
        "Converged",
        "Converged",
    )
    .await;
    r.covered(&["before 0", "0", "1", "2", "3", "4", "5", "6"]);
}

// ---------------------------------------------------------------------------
// Builder-only roll in P2

/// The whole table, or up to row 5' (`five_prime`) in place of row 5.
async fn builder_only_p2(r: &mut Replay<'_>, five_prime: bool) {
    let sim = r.sim;
    let (x, y) = (sim.node(X), sim.node(Y));
    let h = sim::hash("replay-builder-p2");

    r.check(
        "before 1",
        "all healthy, spec.workloadRevision the old revision",
        0,
        "Converged",
        "Converged",
        "Converged",
    )
    .await;
    r.step(
        "1",
        "X: WorkloadRollPending=True (asks h)",
        x.set_pending(&h),
        "Waiting",
        "Converged",
        "Waiting",
    )
    .await;
    r.step(
        "1",
        "X: event WorkloadRollDeferred",
        sim.event_deferred_p2(X, &h),
        "Waiting",
        "Converged",
        "Waiting",
    )
    .await;
    r.step(
        "1",
        "Y: WorkloadRollPending=True (asks h)",
        y.set_pending(&h),
        "Waiting",
        "Waiting",
        "Waiting",
    )
    .await;
    r.step(
        "1",
        "Y: event WorkloadRollDeferred",
        sim.event_deferred_p2(Y, &h),
        "Waiting",
        "Waiting",
        "Waiting",
    )
    .await;

    if !builder_node_p2(r, X, &h, "Waiting", five_prime).await {
        return;
    }
    // Row 8: Y as X in 2 and 4 to 7.
    builder_node_p2(r, Y, &h, "Converged", false).await;
    r.step(
        "9",
        "ValkeyCluster: Ready=True for its generation",
        sim.cluster_ready(),
        "Converged",
        "Converged",
        "Converged",
    )
    .await;
}

/// Rows 2 to 7 for X (with row 3), or row 8 for Y. With `five_prime`, row
/// 5' replaces row 5 and the replay ends there (returns false).
async fn builder_node_p2(
    r: &mut Replay<'_>,
    who: &str,
    h: &str,
    other: &str,
    five_prime: bool,
) -> bool {
    let sim = r.sim;
    let tag = if who == X { "X" } else { "Y" };
    let say = |w: &str| format!("{tag}: {w}");
    let n = sim.node(who);
    let w = n.workload();
    let pod = n.pod_for(h);
    let row = |row: &str| {
        if who == X {
            row.to_string()
        } else {
            format!("8 (Y as X in {row})")
        }
    };
    let me = |state: &'static str| states(who, state, other);

    let (x, y) = me("Rolling");
    r.step(
        &row("2"),
        &say("spec.workloadRevision=h (node generation moves)"),
        n.set_workload_revision(h),
        x,
        y,
        "Rolling",
    )
    .await;
    r.step(
        &row("2"),
        &say("event ValkeyNodeUpdated"),
        sim.event_node_updated(who),
        x,
        y,
        "Rolling",
    )
    .await;
    if who == X {
        r.step(
            "3",
            "ValkeyCluster: Ready=False, Progressing=True, reason UpdatingNodes",
            sim.cluster_updating(),
            x,
            y,
            "Rolling",
        )
        .await;
    }
    r.step(
        &row("4"),
        &say("StatefulSet template applied"),
        w.apply_template(h),
        x,
        y,
        "Rolling",
    )
    .await;
    r.step(
        &row("4"),
        &say("WorkloadRollPending removed"),
        n.clear_pending(),
        x,
        y,
        "Rolling",
    )
    .await;
    r.step(
        &row("4"),
        &say("observedGeneration caught up"),
        n.observe(),
        x,
        y,
        "Rolling",
    )
    .await;
    // Row 5 is the StatefulSet controller replacing the pod, as builder-only
    // P1 rows 8 and 9.
    let five = if five_prime { "5'" } else { "5" };
    r.step(
        &row(five),
        &say("StatefulSet status catches up (revisions differ)"),
        w.catch_up(),
        x,
        y,
        "Rolling",
    )
    .await;
    r.step(
        &row(five),
        &say("the old pod is being deleted (deletionTimestamp)"),
        n.pod().begin_delete(),
        x,
        y,
        "Rolling",
    )
    .await;
    r.step(
        &row(five),
        &say("the old pod is gone"),
        n.pod().finish_delete(),
        x,
        y,
        "Rolling",
    )
    .await;
    r.step(
        &row(five),
        &say("node status not ready"),
        n.set_ready(false),
        x,
        y,
        "Rolling",
    )
    .await;
    r.step(
        &row(five),
        &say("new pod on the update revision created (no status yet)"),
        pod.create(h),
        x,
        y,
        "Rolling",
    )
    .await;
    if five_prime {
        let (sx, sy) = me("Stuck");
        r.step(
            &row("5'"),
            &say("the new pod ImagePullBackOff"),
            pod.image_pull_backoff(),
            sx,
            sy,
            "Jammed",
        )
        .await;
        return false;
    }
    r.step(
        &row("5"),
        &say("the new pod Running, not Ready"),
        pod.running_not_ready(),
        x,
        y,
        "Rolling",
    )
    .await;
    // Pod Ready, the revisions still differ: a template roll in progress,
    // so still the holder.
    r.step(
        &row("6"),
        &say("pod Ready"),
        pod.running_ready(),
        x,
        y,
        "Rolling",
    )
    .await;
    let (bx, by) = me("Blocking");
    r.step(
        &row("6"),
        &say("StatefulSet revisions equal, readyReplicas 1 (node status not yet ready)"),
        w.rolled_out(),
        bx,
        by,
        "Waiting",
    )
    .await;
    let (cx, cy) = me("Converged");
    r.step(
        &row("7"),
        &say("status ready"),
        n.set_ready(true),
        cx,
        cy,
        "Waiting",
    )
    .await;
    true
}

fn p2_layout() -> Layout {
    Layout {
        protocol: Protocol::P2,
        ..Layout::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builder_only_roll_p2_write_by_write() {
    let sim = Sim::fresh("replay-builder-p2", &p2_layout()).await;
    let mut r = Replay::new(&sim, BUILDER_P2);
    builder_only_p2(&mut r, false).await;
    r.covered(&["before 1", "1", "2", "3", "4", "5", "6", "7", "8", "9"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builder_only_roll_p2_five_prime_image_pull_backoff_instead_of_row_5() {
    let sim = Sim::fresh("replay-builder-p2-5prime", &p2_layout()).await;
    let mut r = Replay::new(&sim, BUILDER_P2_5);
    builder_only_p2(&mut r, true).await;
    r.covered(&["before 1", "1", "2", "3", "4", "5'"]);
}
