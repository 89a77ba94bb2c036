//! Rolls nobody rehearsed (issue 29), on the real controllers
//! (harness::control_plane()) with the simulated operator mirroring the
//! whole cluster spec into node specs as the operator at c33988f does
//! (harness::operator, `desired_spec`), Valkey servers it reads roles
//! from (harness::valkey), failovers it did not make, and stops between
//! any two of its writes. Every `status -o json` run is judged against the
//! operator's own account ([`judge`]): what was in flight, still to roll
//! and rolled from just before the run to just after it.
//!
//! - a config roll (`spec.config.hz`, not applied live: every pod
//!   replaced), a resources roll and a persistence roll (`size` expanded:
//!   every node's spec moves, no pod is replaced), each with the right
//!   holder and every node still to roll Waiting at every run;
//! - the operator stopped right after it advanced a node (before its
//!   event), in a roll after an earlier roll of the same nodes: stopped
//!   10 s it is never called silent; stopped 50 s it is named only past
//!   30 s of this roll's advance, and named by then;
//! - an unplanned failover at rest (Valkey promotes the replica; the
//!   operator writes no event, only "Waiting for replicas to sync", and
//!   `status.role` later), then an image roll;
//! - a property: random sequences of spec changes, failovers and
//!   restarts, judged at every run (`PROPTEST_CASES`, default 2; the seed
//!   is printed, `UNREHEARSED_SEED` replays one).

mod harness;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use harness::operator::{Account, Operator, Outcome, Step, last_steps};
use harness::plugin::run_in;
use harness::valkey::{self, Valkey};
use serde_json::{Value, json};

/// Generous bound for any one thing the control plane and the operator do.
const BOUND: Duration = Duration::from_secs(180);
const CLUSTER: &str = "rig";
const OLD: &str = "valkey/valkey:9.0.0";
const NEW: &str = "valkey/valkey:9.0.1";
/// The plugin's grace before it names a silent operator.
const GRACE: u64 = 30;
const SHARDS: u32 = 2;
const REPLICAS: u32 = 1;
const NODES: usize = 4;

/// One `status rig -o json` run to its end: the cluster's entry.
async fn status(ns: &str) -> Value {
    let ran = run_in(
        harness::control_plane().kubeconfig(),
        ns,
        &["status", CLUSTER, "-o", "json"],
    )
    .await;
    cluster(&ran.ok_json()).clone()
}

fn cluster(doc: &Value) -> &Value {
    doc["clusters"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["name"] == CLUSTER))
        .unwrap_or(&Value::Null)
}

fn holders(c: &Value) -> Vec<String> {
    c["holders"]
        .as_array()
        .map(|hs| {
            hs.iter()
                .filter_map(|h| h.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn nodes(c: &Value) -> Vec<Value> {
    c["nodes"].as_array().cloned().unwrap_or_default()
}

/// One line for a cluster entry: verdict, holders, node states and roles,
/// operator, reason.
fn line(c: &Value) -> String {
    if c.is_null() {
        return "(no cluster yet)".to_string();
    }
    let ns: Vec<String> = nodes(c)
        .iter()
        .map(|n| {
            format!(
                "{}={}{}/{}{}",
                n["name"].as_str().unwrap_or("-"),
                n["state"].as_str().unwrap_or("-"),
                if n["ready"] == true { "+" } else { "" },
                n["role"].as_str().unwrap_or("-"),
                if n["roleNote"].is_null() { "" } else { "?" },
            )
        })
        .collect();
    format!(
        "{} holders={:?} operator={} [{}] | {}",
        c["verdict"].as_str().unwrap_or("-"),
        holders(c),
        c["operator"],
        ns.join(" "),
        c["reason"].as_str().unwrap_or("")
    )
}

fn show(set: &BTreeSet<String>) -> String {
    format!("{:?}", set.iter().collect::<Vec<_>>())
}

/// What a run may and must show, from the accounts the operator held from
/// just before the run to just after it.
#[derive(Debug)]
struct Span {
    /// In flight in some account: the only nodes that may hold.
    maybe_in_flight: BTreeSet<String>,
    /// In flight in every account: not Converged.
    surely_in_flight: BTreeSet<String>,
    /// Still to roll in every account: Waiting.
    surely_to_roll: BTreeSet<String>,
}

fn span(accounts: &[Account]) -> Span {
    let union = |f: fn(&Account) -> &BTreeSet<String>| {
        accounts.iter().flat_map(|a| f(a).iter().cloned()).collect()
    };
    let every = |f: fn(&Account) -> &BTreeSet<String>| {
        let mut it = accounts.iter();
        let first = it.next().map(|a| f(a).clone()).unwrap_or_default();
        it.fold(first, |acc, a| acc.intersection(f(a)).cloned().collect())
    };
    Span {
        maybe_in_flight: union(|a| &a.in_flight),
        surely_in_flight: every(|a| &a.in_flight),
        surely_to_roll: every(|a| &a.to_roll),
    }
}

/// The test's side of a scenario: the namespace, the servers, the
/// operator running now (a restart replaces it) and every judged run.
struct Rig {
    ns: String,
    valkey: Arc<Valkey>,
    op: Operator,
    /// Every run, one line each, for failure messages.
    runs: Vec<String>,
    /// The nodes held, in turn (a change of holder adds one).
    held_in_turn: Vec<String>,
    /// When the last operator (before a restart) last wrote.
    previous_write: Option<Instant>,
    started: Instant,
    /// Failures (the property collects them; the tests panic at once).
    panic_at_once: bool,
    failures: Vec<String>,
    /// The operator may be named silent (a test that stops it says so).
    silence_allowed: bool,
}

impl Rig {
    async fn new(hint: &str, create: Value) -> Rig {
        let cp = harness::control_plane();
        let ns = cp.fresh_namespace(hint);
        let valkey = valkey::fast();
        let op = Operator::start_with(cp.client().await, &ns, CLUSTER, Some(valkey.clone()));
        let mut spec = json!({"image": OLD, "shards": SHARDS, "replicas": REPLICAS,
                              "workloadType": "StatefulSet", "exporter": {"enabled": true}});
        harness::sim::merge(&mut spec, &create);
        op.sim.create_cluster(spec).await;
        let mut rig = Rig {
            ns,
            valkey,
            op,
            runs: Vec::new(),
            held_in_turn: Vec::new(),
            previous_write: None,
            started: Instant::now(),
            panic_at_once: true,
            failures: Vec::new(),
            silence_allowed: false,
        };
        rig.until_converged("the cluster created").await;
        rig
    }

    /// A person edits the cluster's spec (a merge patch).
    async fn edit(&mut self, patch: Value) {
        self.note(&format!("edit spec {patch}"));
        self.op.sim.edit_cluster_spec(patch).await;
    }

    fn note(&mut self, what: &str) {
        self.runs.push(format!(
            "{:>6.1}s -- {what}",
            self.started.elapsed().as_secs_f32()
        ));
    }

    /// Restarts the operator (stopped or not) on the same servers: it
    /// re-reads everything.
    async fn restart(&mut self) {
        self.op.stop_after_writes(0);
        self.previous_write = self.last_write();
        let cp = harness::control_plane();
        let op = Operator::start_with(
            cp.client().await,
            &self.ns,
            CLUSTER,
            Some(self.valkey.clone()),
        );
        let old = std::mem::replace(&mut self.op, op);
        old.stop().await;
        self.note("operator restarted");
        // Its account is empty until its first read: judge from then on.
        let deadline = Instant::now() + BOUND;
        loop {
            let a = self.op.account();
            if a.in_flight.len() + a.to_roll.len() + a.rolled.len() == NODES {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the restarted operator never read"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn last_write(&self) -> Option<Instant> {
        self.op.last_write().max(self.previous_write)
    }

    /// The last write accepted before `t`: one accepted while a run reads
    /// may land after the read of its object, so only those before the run
    /// began are sure to be seen.
    fn last_write_before(&self, t: Instant) -> Option<Instant> {
        let ours = self
            .op
            .writes()
            .iter()
            .rev()
            .find(|e| e.outcome == Outcome::Accepted && e.at <= t)
            .map(|e| e.at);
        ours.max(self.previous_write)
    }

    fn fail(&mut self, why: String) {
        // The last runs and steps first: a CI log keeps only the head.
        let last = &self.runs[self.runs.len().saturating_sub(6)..];
        let all = format!(
            "{why}\nthe last runs:\n{}\nthe operator's last steps: {:?}\nservers: {:?}\nevery run:\n{}",
            last.join("\n"),
            last_steps(&self.op.writes(), 12),
            self.valkey.history(),
            self.runs.join("\n"),
        );
        if self.panic_at_once {
            panic!("{all}");
        }
        self.failures.push(all);
    }

    /// One `status -o json` run, judged against the operator's account
    /// over the run; returns the cluster's entry.
    async fn judged(&mut self) -> Value {
        self.op.check();
        let from = self.op.writes_len();
        let before = self.op.account();
        let change_before = self.valkey.last_change();
        let begun = Instant::now();
        let c = status(&self.ns).await;
        let ended = Instant::now();
        let log = self.op.writes();
        let after = self.op.account();
        let mut accounts = vec![before];
        accounts.extend(log[from.min(log.len())..].iter().map(|e| e.account.clone()));
        accounts.push(after);
        let s = span(&accounts);
        self.runs.push(format!(
            "{:>6.1}s in flight {} to roll {} -> {}",
            self.started.elapsed().as_secs_f32(),
            show(&s.maybe_in_flight),
            show(&s.surely_to_roll),
            line(&c)
        ));
        if c.is_null() {
            return c;
        }
        let hs = holders(&c);
        if let Some(h) = hs.first()
            && self.held_in_turn.last() != Some(h)
        {
            self.held_in_turn.push(h.clone());
        }
        // Holders: only nodes the operator had in flight.
        if let Some(h) = hs.iter().find(|h| !s.maybe_in_flight.contains(*h)) {
            self.fail(format!(
                "{h} reads as a holder, where the operator had in flight only {}",
                show(&s.maybe_in_flight)
            ));
        }
        if c["verdict"] == "Conflict" && s.maybe_in_flight.len() < 2 {
            self.fail(format!(
                "a Conflict, where the operator had in flight {}",
                show(&s.maybe_in_flight)
            ));
        }
        for n in nodes(&c) {
            let name = n["name"].as_str().unwrap_or_default().to_string();
            let state = n["state"].as_str().unwrap_or_default();
            if s.surely_to_roll.contains(&name) && state != "Waiting" {
                self.fail(format!(
                    "{name} is still to roll (the operator will advance it), \
                     but reads {state}, not Waiting"
                ));
            }
            if s.surely_in_flight.contains(&name) && state == "Converged" {
                self.fail(format!(
                    "{name} is in flight (not settled on its spec), but reads Converged"
                ));
            }
        }
        self.judge_roles(&c, &log, change_before, begun);
        self.judge_silence(&c, begun, ended);
        c
    }

    /// Roles the plugin shows as fact (no `roleNote`) are the servers'
    /// roles, once the operator has written something that carries the
    /// last change of that node's shard (before that it cannot know
    /// either), and while the servers did not change during the run. A
    /// change in one shard says nothing of another: each node is judged
    /// against its own shard's last change ([`announced`]).
    fn judge_roles(
        &mut self,
        c: &Value,
        log: &[harness::operator::Entry],
        change_before: Option<Instant>,
        begun: Instant,
    ) {
        if self.valkey.last_change() != change_before {
            return;
        }
        for n in nodes(c) {
            let (Some(role), true) = (n["role"].as_str(), n["roleNote"].is_null()) else {
                continue;
            };
            let (Some(shard), Some(idx)) = (n["shard"].as_u64(), n["index"].as_u64()) else {
                continue;
            };
            let (shard, idx) = (shard as u32, idx as u32);
            if let Some(t) = self.valkey.last_change_of(shard)
                && !announced(log, shard, t, begun)
            {
                continue;
            }
            let truth = self.valkey.role(shard, idx);
            if role != truth {
                self.fail(format!(
                    "{} reads {role} as a fact (no note), where its server is the {truth}",
                    n["name"]
                ));
            }
        }
    }

    /// A named silent operator must have been silent that long: no write
    /// accepted before the run began in the `quietForSeconds` (less a
    /// second of rounding) before the run ended. A write accepted during
    /// the run may be missed (the run read its object first): a restarted
    /// operator's first writes can land while a run reads.
    fn judge_silence(&mut self, c: &Value, begun: Instant, ended: Instant) {
        let o = &c["operator"];
        if o.is_null() {
            return;
        }
        if !self.silence_allowed {
            let wrote = self
                .last_write()
                .map(|w| ended.duration_since(w).as_secs_f32());
            let node = nodes(c).into_iter().find(|n| n["name"] == o["node"]);
            self.fail(format!(
                "the operator is named silent: {o}; its last accepted write {wrote:?} s before \
                 the run ended; the reason: {}; the node: {}",
                c["reason"],
                node.unwrap_or_default()
            ));
            return;
        }
        let quiet = o["quietForSeconds"].as_u64().unwrap_or(0);
        let silent_for = self
            .last_write_before(begun)
            .map_or(u64::MAX, |w| ended.duration_since(w).as_secs());
        if quiet <= GRACE || quiet > silent_for + 1 {
            self.fail(format!(
                "the operator is named silent for {quiet}s, where it last wrote {silent_for}s \
                 before the run ended (the grace is {GRACE}s)"
            ));
        }
    }

    /// Judged runs until the roll is over: the operator's account has
    /// every node rolled, the ValkeyCluster is Ready for its generation,
    /// and the plugin reads Converged.
    async fn until_converged(&mut self, what: &str) -> Value {
        let deadline = Instant::now() + BOUND;
        loop {
            let c = self.judged().await;
            let a = self.op.account();
            let vc = serde_json::to_value(self.op.sim.get_cluster().await).unwrap_or_default();
            let ready = vc["status"]["conditions"].as_array().is_some_and(|cs| {
                cs.iter().any(|c| {
                    c["type"] == "Ready"
                        && c["status"] == "True"
                        && c["observedGeneration"] == vc["metadata"]["generation"]
                })
            });
            if a.rolled.len() == NODES && ready && c["verdict"] == "Converged" {
                self.note(&format!("{what}: over"));
                return c;
            }
            if Instant::now() > deadline {
                self.fail(format!("{what}: not over within {}s", BOUND.as_secs()));
                return c;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }

    /// Judged runs for `d`.
    async fn judged_for(&mut self, d: Duration) {
        let end = Instant::now() + d;
        while Instant::now() < end {
            self.judged().await;
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }
}

/// The walk with every shard's primary at index 0: replicas first.
const WALK: [&str; 4] = ["rig-0-1", "rig-0-0", "rig-1-1", "rig-1-0"];

async fn judged_roll(hint: &str, create: Value, edit: Value, replaces_pods: bool) {
    let mut rig = Rig::new(hint, create).await;
    rig.edit(edit).await;
    rig.held_in_turn.clear();
    rig.until_converged("the roll").await;
    if replaces_pods {
        assert_eq!(
            rig.held_in_turn,
            WALK.to_vec(),
            "who held, in turn:\n{}",
            rig.runs.join("\n")
        );
    }
    println!("{}", rig.runs.join("\n"));
    rig.op.stop().await;
}

/// `spec.config: {hz: "20"}`: not a live setting, so every node's template
/// changes and every pod is replaced, replicas first, each primary failed
/// over first.
#[tokio::test]
async fn a_config_roll_holds_the_node_in_flight_and_every_node_to_roll_waits() {
    judged_roll("u-config", json!({}), json!({"config": {"hz": "20"}}), true).await;
}

#[tokio::test]
async fn a_resources_roll_holds_the_node_in_flight_and_every_node_to_roll_waits() {
    let resources = json!({"requests": {"cpu": "10m", "memory": "16Mi"}});
    judged_roll(
        "u-resources",
        json!({}),
        json!({ "resources": resources }),
        true,
    )
    .await;
}

/// `spec.persistence.size` expanded: every node's spec moves in turn (the
/// operator waits for each to settle), no pod is replaced.
#[tokio::test]
async fn a_persistence_roll_advances_every_node_and_every_node_to_roll_waits() {
    judged_roll(
        "u-persistence",
        json!({"persistence": {"size": "1Gi"}}),
        json!({"persistence": {"size": "2Gi"}}),
        false,
    )
    .await;
}

/// Whether the operator wrote, after the change at `t` in `shard` and
/// before the run `begun`, something that carries it: the cluster's
/// not-Ready spell for the sync or its Ready again, a status write or an
/// advance of a node of that shard, or a failover the operator made there.
/// A write about another shard's roll does not: the operator's roll pass
/// returns before it checks the replicas (c33988f, `Reconcile`), so a
/// failover Valkey made while another shard rolls shows nowhere until one
/// of those (docs/roles.md). Nor does a Ready again (or the spell before
/// it) that a roll's advance has since written over.
fn announced(log: &[harness::operator::Entry], shard: u32, t: Instant, begun: Instant) -> bool {
    let in_shard =
        |node: &str| node.rsplit('-').nth(1).and_then(|s| s.parse::<u32>().ok()) == Some(shard);
    let carries = |step: &Step| match step {
        Step::ClusterReady => true,
        Step::NodeReady(n) | Step::Advanced(n) | Step::FailedOver(n) => in_shard(n),
        Step::Other(w) => {
            w.contains("Waiting for replica sync")
                || w.strip_prefix("patch ValkeyNode ")
                    .and_then(|rest| rest.strip_suffix(" status"))
                    .is_some_and(in_shard)
        }
        _ => false,
    };
    let written =
        |e: &&harness::operator::Entry| e.outcome == Outcome::Accepted && e.at > t && e.at < begun;
    // The cluster's Ready again shows only until a roll's advance writes
    // Ready False over it (its time lost), and with it the sync spell
    // before it: then nothing shows the change until the node controller
    // re-reads the roles (docs/roles.md, "What the plugin still cannot
    // know from the API").
    let overwritten = |at: Instant| {
        log.iter().filter(written).any(|r| {
            r.at >= at
                && r.step == Step::ClusterReady
                && log
                    .iter()
                    .filter(written)
                    .any(|a| a.at > r.at && matches!(a.step, Step::Advanced(_)))
        })
    };
    let cluster_wide = |step: &Step| match step {
        Step::ClusterReady => true,
        Step::Other(w) => w.contains("Waiting for replica sync"),
        _ => false,
    };
    log.iter()
        .filter(written)
        .any(|e| carries(&e.step) && !(cluster_wide(&e.step) && overwritten(e.at)))
}

/// A roll (image 9.0.0 -> 9.0.1), then a second roll (back to 9.0.0: the
/// same nodes advanced for the same reason, the first roll's events still
/// there) in which the operator is stopped right after it advanced rig-1-1
/// (the first roll failed shard 1 over to it, so it is the last of the
/// second roll's walk), before that advance's event. Returns the rig and
/// when the advance landed.
async fn stopped_mid_roll(hint: &str) -> (Rig, Instant) {
    let mut rig = Rig::new(hint, json!({})).await;
    rig.edit(json!({"image": NEW})).await;
    rig.until_converged("the first roll").await;
    let third = WALK[2];
    rig.op
        .stop_after_step(move |s| *s == Step::Advanced(third.to_string()));
    rig.edit(json!({"image": OLD})).await;
    let deadline = Instant::now() + BOUND;
    while !rig.op.halted() {
        assert!(Instant::now() < deadline, "{}", rig.runs.join("\n"));
        rig.judged().await;
    }
    let advanced = rig
        .op
        .writes()
        .iter()
        .rev()
        .find(|e| e.step == Step::Advanced(third.to_string()) && e.outcome == Outcome::Accepted)
        .map(|e| e.at)
        .expect("the advance");
    rig.note(&format!("operator stopped after advancing {third}"));
    (rig, advanced)
}

/// Stopped 10 s: never named silent, at any run.
#[tokio::test]
async fn an_operator_stopped_10s_mid_roll_is_never_called_silent() {
    let (mut rig, _) = stopped_mid_roll("u-stop10").await;
    rig.judged_for(Duration::from_secs(10)).await;
    rig.restart().await;
    rig.until_converged("the second roll").await;
    println!("{}", rig.runs.join("\n"));
    rig.op.stop().await;
}

/// Stopped 50 s: named only past 30 s of the advance (this roll's, not the
/// first roll's), named at the first run that begins over 31 s after it,
/// on that node; then restarted, the roll ends Converged.
#[tokio::test]
async fn an_operator_stopped_50s_mid_roll_is_named_only_past_30s() {
    let (mut rig, advanced) = stopped_mid_roll("u-stop50").await;
    rig.silence_allowed = true;
    let third = WALK[2];
    let mut named_at = None;
    while advanced.elapsed() < Duration::from_secs(50) {
        let begun = advanced.elapsed();
        let c = rig.judged().await;
        let ended = advanced.elapsed();
        if ended.as_secs() < GRACE && !c["operator"].is_null() {
            rig.fail(format!(
                "named within {GRACE}s of the advance ({:.1}s)",
                ended.as_secs_f32()
            ));
        }
        if begun.as_secs() > GRACE + 1 && named_at.is_none() {
            let o = &c["operator"];
            if o["node"] != third {
                rig.fail(format!(
                    "{:.1}s after the advance, the operator is not named silent on {third}: {o}",
                    begun.as_secs_f32()
                ));
            }
            named_at = Some(begun);
        }
        tokio::time::sleep(Duration::from_millis(700)).await;
    }
    assert!(named_at.is_some(), "{}", rig.runs.join("\n"));
    rig.silence_allowed = false;
    rig.restart().await;
    // A run may still catch the silence before the new operator's first
    // write lands.
    rig.silence_allowed = true;
    rig.until_converged("the second roll").await;
    println!("{}", rig.runs.join("\n"));
    rig.op.stop().await;
}

/// How long the cluster rests before Valkey fails a primary over.
const AT_REST: Duration = Duration::from_secs(65);

/// At rest, shard 0's primary server dies and Valkey promotes its replica:
/// no operator event; the operator writes "Waiting for replicas to sync"
/// (3 s here), Ready again, and `status.role: replica` on the old primary
/// later (5 s here). Judged throughout; then an image roll, which walks
/// shard 0's old primary first now, and fails over the new one before
/// rolling it.
#[tokio::test]
async fn an_unplanned_failover_at_rest_then_a_roll_reads_right() {
    let mut rig = Rig::new("u-failover", json!({})).await;
    // At rest: over a minute after the creation's role writes (a failover
    // right after them reads as the creation's own replica sync).
    rig.judged_for(AT_REST).await;
    let (from, to) = rig.valkey.fail_over(0, REPLICAS);
    rig.note(&format!("Valkey failed shard 0 over: index {from} -> {to}"));
    rig.judged_for(Duration::from_secs(8)).await;
    // The operator's writes: not Ready for the sync, Ready again, the role.
    let log = rig.op.writes();
    assert!(
        log.iter()
            .any(|e| matches!(&e.step, Step::Other(w) if w.contains("Waiting for replica sync"))),
        "{:?}",
        last_steps(&log, 12)
    );
    let n = rig.op.sim.node("rig-0-0").get_json().await;
    assert_eq!(n["status"]["role"], "replica", "{n}");
    rig.edit(json!({"image": NEW})).await;
    rig.held_in_turn.clear();
    rig.until_converged("the roll").await;
    assert_eq!(
        rig.held_in_turn,
        ["rig-0-0", "rig-0-1", "rig-1-1", "rig-1-0"],
        "who held, in turn:\n{}",
        rig.runs.join("\n")
    );
    println!("{}", rig.runs.join("\n"));
    rig.op.stop().await;
}

// --- the property -----------------------------------------------------------

mod property {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

    /// A spec change a person makes.
    #[derive(Clone, Copy, Debug)]
    pub enum Change {
        Image,
        Config,
        Resources,
        LiveConfig,
        Persistence,
        Tolerations,
    }

    #[derive(Clone, Debug)]
    pub enum Action {
        Edit(Change),
        /// Valkey fails shard N over on its own.
        FailOver(u32),
        /// The operator stops after this many more writes, stays down this
        /// many seconds, and a new one starts.
        Restart {
            after: usize,
            down: u64,
        },
    }

    fn action() -> impl Strategy<Value = Action> {
        prop_oneof![
            4 => prop_oneof![
                Just(Change::Image),
                Just(Change::Config),
                Just(Change::Resources),
                Just(Change::LiveConfig),
                Just(Change::Persistence),
                Just(Change::Tolerations),
            ]
            .prop_map(Action::Edit),
            1 => (0..SHARDS).prop_map(Action::FailOver),
            2 => (0usize..12, 0u64..12).prop_map(|(after, down)| Action::Restart { after, down }),
        ]
    }

    /// A sequence: each action after this many operator writes from the
    /// previous one (0: at once).
    pub fn sequence() -> impl Strategy<Value = Vec<(usize, Action)>> {
        prop::collection::vec((0usize..16, action()), 1..4)
    }

    /// The edit of `change`, the `n`th action; an image edit flips the
    /// image the cluster has (`image`).
    fn patch(change: Change, n: usize, image: &Value) -> Value {
        match change {
            Change::Image => json!({"image": if image == NEW { OLD } else { NEW }}),
            Change::Config => json!({"config": {"hz": format!("{}", 11 + n)}}),
            Change::Resources => {
                json!({"resources": {"requests": {"cpu": format!("{}m", 10 + n)}}})
            }
            Change::LiveConfig => json!({"config": {"maxmemory": format!("{}mb", 100 + n)}}),
            Change::Persistence => json!({"persistence": {"size": format!("{}Gi", 2 + n)}}),
            Change::Tolerations => json!({"scheduling": {"tolerations": [
                {"key": "x", "operator": "Equal", "value": format!("v{n}"), "effect": "NoSchedule"}
            ]}}),
        }
    }

    /// Judged runs until the operator made `writes` more writes (or 8 s
    /// passed: it may have nothing left to write).
    async fn after_writes(rig: &mut Rig, writes: usize) {
        let target = rig.op.write_count() + writes;
        let end = Instant::now() + Duration::from_secs(8);
        while rig.op.write_count() < target && Instant::now() < end {
            rig.judged().await;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    async fn run(seq: Vec<(usize, Action)>) -> Result<(), String> {
        let mut rig = Rig::new("u-prop", json!({"persistence": {"size": "1Gi"}})).await;
        rig.panic_at_once = false;
        println!("case: {seq:?}");
        for (i, (wait, action)) in seq.iter().enumerate() {
            after_writes(&mut rig, *wait).await;
            match action {
                Action::Edit(change) => {
                    let vc =
                        serde_json::to_value(rig.op.sim.get_cluster().await).unwrap_or_default();
                    rig.edit(patch(*change, i, &vc["spec"]["image"])).await
                }
                Action::FailOver(shard) => {
                    let a = rig.op.account();
                    let busy = (0..=REPLICAS)
                        .any(|idx| a.in_flight.contains(&format!("{CLUSTER}-{shard}-{idx}")));
                    if busy {
                        rig.note(&format!(
                            "no failover of shard {shard}: a node of it is in flight"
                        ));
                    } else {
                        let (from, to) = rig.valkey.fail_over(*shard, REPLICAS);
                        rig.note(&format!("Valkey failed shard {shard} over: {from} -> {to}"));
                    }
                }
                Action::Restart { after, down } => {
                    rig.op.stop_after_writes(*after);
                    let end = Instant::now() + Duration::from_secs(20);
                    while !rig.op.halted() && Instant::now() < end {
                        rig.judged().await;
                    }
                    rig.note(&format!("operator stopped; down {down}s"));
                    rig.judged_for(Duration::from_secs(*down)).await;
                    rig.restart().await;
                }
            }
            if !rig.failures.is_empty() {
                break;
            }
        }
        if rig.failures.is_empty() {
            rig.until_converged("the sequence").await;
        }
        println!(
            "case over in {:.0}s, {} runs judged",
            rig.started.elapsed().as_secs_f32(),
            rig.runs.iter().filter(|r| !r.contains(" -- ")).count()
        );
        let failures = std::mem::take(&mut rig.failures);
        rig.op.stop().await;
        match failures.first() {
            None => Ok(()),
            Some(f) => Err(format!("{seq:?}\n{f}")),
        }
    }

    /// Random sequences of spec changes, failovers and restarts on the
    /// real control plane, every `status` run judged against the
    /// operator's account. Few, short cases (`PROPTEST_CASES`, default 2);
    /// a failure prints the seed (`UNREHEARSED_SEED=<hex>` replays it),
    /// the sequence, every run and the operator's last writes.
    #[test]
    fn random_spec_changes_failovers_and_restarts_read_right_at_every_write() {
        let cases = std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(2);
        let seed: [u8; 32] = match std::env::var("UNREHEARSED_SEED") {
            Ok(hex) => {
                let mut s = [0u8; 32];
                for (i, b) in s.iter_mut().enumerate() {
                    *b = hex
                        .get(2 * i..2 * i + 2)
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                        .unwrap_or(0);
                }
                s
            }
            Err(_) => {
                let t = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos())
                    .unwrap_or(0);
                let mut s = [0u8; 32];
                s[..16].copy_from_slice(&t.to_le_bytes());
                s
            }
        };
        let hex: String = seed.iter().map(|b| format!("{b:02x}")).collect();
        println!("UNREHEARSED_SEED={hex}");
        let config = Config {
            cases,
            max_shrink_iters: 2,
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner =
            TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
        let result = runner.run(&sequence(), |seq| {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a runtime");
            rt.block_on(run(seq)).map_err(TestCaseError::fail)
        });
        if let Err(e) = result {
            panic!("UNREHEARSED_SEED={hex}\n{e}");
        }
    }
}
