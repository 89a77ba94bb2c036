//! docs/plugin.md's "A roll, write by write": every table replayed write by
//! write on one cumulative snapshot, checking X, Y and the verdict after
//! every write (two nodes: X a replica, Y the primary of one shard).

use super::*;
use crate::fixture::{event_deferred, event_node_updated, event_permitted, t};
use crate::report::{ClusterReason, Finding, Protocol};
use NodeState::*;

const X: &str = "cache-0-1";
const Y: &str = "cache-0-0";
const H: &str = "9f2c41ab03de77c0e1f2aa5500112233";
const NEW_REV: &str = "valkey-rev-new";

const OLD_IMAGE: &str = "valkey/valkey:9.0.0";
const NEW_IMAGE: &str = "valkey/valkey:9.0.1";

fn start() -> ClusterBuilder {
    cluster()
        .image(OLD_IMAGE)
        .node(healthy(X, 0, 1).image(OLD_IMAGE))
        .node(healthy(Y, 0, 0).image(OLD_IMAGE))
}

fn old_rev(n: &str) -> String {
    format!("valkey-{n}-6c7d8f9b5")
}

/// A replay: the builder, and the clock that moves 10 s per write.
struct Replay {
    c: ClusterBuilder,
    clock: i64,
}

impl Replay {
    fn new(c: ClusterBuilder) -> Self {
        Replay { c, clock: 0 }
    }
    /// The time of the next write.
    fn tick(&mut self) -> jiff::Timestamp {
        self.clock += 10;
        t(self.clock)
    }
    fn check(&self, row: &str, x: NodeState, y: NodeState, v: Verdict) -> ClusterReport {
        let r = judge(&self.c.snapshot(), t(self.clock));
        expect(row, &r, &[(X, x), (Y, y)], v);
        r
    }
    fn node(&mut self, name: &str, f: impl FnOnce(NodeBuilder) -> NodeBuilder) {
        self.c.with_node(name, f);
    }
}

/// Builder-only rows 3 and 5 to 12 for node `who`, checking that the other
/// node stays `other_state` throughout (row 4 only in X's turn, row 9'
/// replayed on a copy when `nine_prime`).
fn builder_roll(r: &mut Replay, who: &str, other_state: NodeState, prefix: &str, nine_prime: bool) {
    let states = |me: NodeState| -> (NodeState, NodeState) {
        if who == X {
            (me, other_state)
        } else {
            (other_state, me)
        }
    };
    let at = r.tick();
    r.node(who, |n| n.permit(H));
    r.c.push_event(event_permitted(NS, CL, who, H, at));
    let (x, y) = states(Rolling);
    r.check(&format!("{prefix}3"), x, y, Verdict::Rolling);

    if who == X {
        r.tick();
        r.c.with(|c| c.updating_nodes(t(40)));
        r.check("builder 4", x, y, Verdict::Rolling);
    }

    r.tick();
    r.node(who, |n| n.sts_new_template());
    r.check(&format!("{prefix}5"), x, y, Verdict::Rolling);

    r.tick();
    r.node(who, |n| n.no_desired());
    r.check(&format!("{prefix}6"), x, y, Verdict::Rolling);

    r.tick();
    r.node(who, |n| n.no_drift());
    r.check(&format!("{prefix}7"), x, y, Verdict::Rolling);

    let at = r.tick();
    let old = old_rev(who);
    r.node(who, |n| {
        n.sts_status(NEW_REV, 0)
            .pod_revision(&old)
            .pod_being_deleted()
            .not_ready(at)
    });
    r.check(
        &format!("{prefix}8 (old pod being deleted)"),
        x,
        y,
        Verdict::Rolling,
    );
    r.node(who, |n| n.no_pod());
    r.check(&format!("{prefix}8 (old pod gone)"), x, y, Verdict::Rolling);

    if nine_prime {
        let mut prime = Replay {
            c: r.c.clone(),
            clock: r.clock,
        };
        prime.tick();
        prime.node(who, |n| n.new_pod().pod_waiting("CrashLoopBackOff", 2));
        let (sx, sy) = states(Stuck);
        let rep = prime.check(&format!("{prefix}9'"), sx, sy, Verdict::Jammed);
        assert!(
            matches!(&rep.reason, ClusterReason::HolderFailing { finding: Finding::ContainerWaiting { reason, .. }, .. } if reason == "CrashLoopBackOff"),
            "{:?}",
            rep.reason
        );
    }

    let at = r.tick();
    r.node(who, |n| n.new_pod().pod_not_ready(at));
    r.check(&format!("{prefix}9"), x, y, Verdict::Rolling);

    let at = r.tick();
    r.node(who, |n| n.pod_ready_since(at).sts_done());
    let (sx, sy) = states(Settling);
    r.check(&format!("{prefix}10"), sx, sy, Verdict::Rolling);

    r.tick();
    r.node(who, |n| n.no_permit());
    let (bx, by) = states(Blocking);
    r.check(&format!("{prefix}11"), bx, by, Verdict::Waiting);

    let at = r.tick();
    r.node(who, |n| n.ready_since(at));
    let (cx, cy) = states(Converged);
    r.check(&format!("{prefix}12"), cx, cy, Verdict::Waiting);
}

#[test]
fn builder_only_roll_p1() {
    let mut r = Replay::new(start());
    let rep = r.check("0", Converged, Converged, Verdict::Converged);
    assert_eq!(rep.protocol, Protocol::Unknown);

    r.tick();
    r.node(X, |n| n.desired(H));
    let rep = r.check("1", Waiting, Converged, Verdict::Waiting);
    assert_eq!(rep.protocol, Protocol::P1);
    assert_eq!(node(&rep, X).desired_revision.as_deref(), Some(H));

    let at = r.tick();
    r.node(X, |n| n.drift(H, at));
    r.node(Y, |n| n.desired(H).drift(H, at));
    let rep = r.check("2", Waiting, Waiting, Verdict::Waiting);
    assert_eq!(node(&rep, X).queue_position, Some(1));
    assert_eq!(node(&rep, Y).queue_position, Some(2));

    builder_roll(&mut r, X, Waiting, "", true);

    // Row 13: Y as X in 3 and 5 to 12.
    builder_roll(&mut r, Y, Converged, "13/", false);

    let at = r.tick();
    r.c.with(|c| c.ready_for_generation_since(at));
    let rep = r.check("14", Converged, Converged, Verdict::Converged);
    assert_eq!(rep.done, Some(2));
}

/// The table's Spec-driven rows, with the revised contract's Behind: a node
/// whose `spec.image` differs from the ValkeyCluster's waits its turn
/// (Waiting, where the table still says Converged), as the real operator's
/// recording b-spec shows.
#[test]
fn spec_driven_roll_p1() {
    let mut r = Replay::new(start());
    let at = t(r.clock);
    r.c.with(|c| c.image_edited(NEW_IMAGE, at));
    let rep = r.check("0", Waiting, Waiting, Verdict::Waiting);
    assert_eq!(rep.front.as_deref(), Some(X), "0: the walk's front");
    assert_eq!(node(&rep, X).queue_position, Some(1));
    assert_eq!(node(&rep, Y).queue_position, Some(2));
    assert_eq!(rep.done, Some(0), "0 progress");

    for (who, prefix) in [(X, ""), (Y, "5/")] {
        let other_state = if who == X { Waiting } else { Converged };
        let states = |me: NodeState| {
            if who == X {
                (me, other_state)
            } else {
                (other_state, me)
            }
        };

        let at = r.tick();
        r.node(who, |n| n.spec_updated().image(NEW_IMAGE).permit("*"));
        r.c.push_event(event_node_updated(NS, CL, who, at));
        let (x, y) = states(Rolling);
        let rep = r.check(&format!("{prefix}1"), x, y, Verdict::Rolling);
        assert_eq!(node(&rep, who).granted_at, Some(at), "{prefix}1 grant time");

        if who == X {
            let at = r.tick();
            r.c.with(|c| c.updating_nodes(at));
            r.check("2", x, y, Verdict::Rolling);
        }

        // Row 3: the node controller observes the spec; the workload rolls
        // as in builder rows 5 to 10.
        r.tick();
        r.node(who, |n| n.spec_observed());
        r.check(&format!("{prefix}3 observed"), x, y, Verdict::Rolling);
        r.tick();
        r.node(who, |n| n.sts_new_template());
        r.check(&format!("{prefix}3 template"), x, y, Verdict::Rolling);
        let at = r.tick();
        let old = old_rev(who);
        r.node(who, |n| {
            n.sts_status(NEW_REV, 0)
                .pod_revision(&old)
                .pod_being_deleted()
                .not_ready(at)
        });
        r.check(
            &format!("{prefix}3 old pod deleted"),
            x,
            y,
            Verdict::Rolling,
        );
        let at = r.tick();
        r.node(who, |n| n.new_pod().pod_not_ready(at));
        r.check(&format!("{prefix}3 new pod"), x, y, Verdict::Rolling);
        let at = r.tick();
        r.node(who, |n| n.pod_ready_since(at).sts_done());
        let (sx, sy) = states(Settling);
        r.check(&format!("{prefix}3 settled"), sx, sy, Verdict::Rolling);

        r.tick();
        r.node(who, |n| n.no_permit());
        let (bx, by) = states(Blocking);
        r.check(&format!("{prefix}4 released"), bx, by, Verdict::Waiting);
        let at = r.tick();
        r.node(who, |n| n.ready_since(at));
        let (cx, cy) = states(Converged);
        let rep = r.check(&format!("{prefix}4 ready"), cx, cy, Verdict::Waiting);
        let want_done = if who == X { 1 } else { 2 };
        assert_eq!(rep.done, Some(want_done), "{prefix}4 progress");
    }

    let at = r.tick();
    r.c.with(|c| c.ready_for_generation_since(at));
    r.check("6", Converged, Converged, Verdict::Converged);
}

#[test]
fn builder_only_roll_p2() {
    const H0: &str = "41ab77c0e1f2";
    let mut r = Replay::new(start());
    r.node(X, |n| n.workload_revision(H0));
    r.node(Y, |n| n.workload_revision(H0));
    let rep = r.check("before 1", Converged, Converged, Verdict::Converged);
    assert_eq!(rep.protocol, Protocol::P2);

    let at = r.tick();
    r.node(X, |n| n.pending_since(H, H0, at));
    r.node(Y, |n| n.pending_since(H, H0, at));
    // As the node controller does on the condition's first transition.
    r.c.push_event(event_deferred(NS, X, H, at));
    r.c.push_event(event_deferred(NS, Y, H, at));
    let rep = r.check("1", Waiting, Waiting, Verdict::Waiting);
    assert_eq!(node(&rep, X).desired_revision.as_deref(), Some(H));
    assert_eq!(node(&rep, X).permit.as_deref(), Some(H0));

    for (who, prefix) in [(X, ""), (Y, "8/")] {
        let other_state = if who == X { Waiting } else { Converged };
        let states = |me: NodeState| {
            if who == X {
                (me, other_state)
            } else {
                (other_state, me)
            }
        };

        let at = r.tick();
        r.node(who, |n| n.workload_revision(H).spec_updated());
        r.c.push_event(event_node_updated(NS, CL, who, at));
        let (x, y) = states(Rolling);
        let rep = r.check(&format!("{prefix}2"), x, y, Verdict::Rolling);
        assert_eq!(rep.holders, vec![who.to_string()]);
        assert_eq!(node(&rep, who).granted_at, Some(at));

        if who == X {
            let at = r.tick();
            r.c.with(|c| c.updating_nodes(at));
            r.check("3", x, y, Verdict::Rolling);
        }

        r.tick();
        r.node(who, |n| n.sts_new_template().no_pending().spec_observed());
        r.check(&format!("{prefix}4"), x, y, Verdict::Rolling);

        if who == X {
            let mut prime = Replay {
                c: r.c.clone(),
                clock: r.clock,
            };
            let at = prime.tick();
            prime.node(who, |n| {
                n.sts_status(NEW_REV, 0)
                    .new_pod()
                    .pod_waiting("ImagePullBackOff", 0)
                    .not_ready(at)
            });
            let rep = prime.check("5'", Stuck, Waiting, Verdict::Jammed);
            assert!(
                matches!(&rep.reason, ClusterReason::HolderFailing { finding: Finding::ContainerWaiting { reason, .. }, .. } if reason == "ImagePullBackOff"),
                "{:?}",
                rep.reason
            );
        }

        let at = r.tick();
        r.node(who, |n| {
            n.sts_status(NEW_REV, 0)
                .new_pod()
                .pod_not_ready(at)
                .not_ready(at)
        });
        r.check(&format!("{prefix}5"), x, y, Verdict::Rolling);

        let at = r.tick();
        r.node(who, |n| n.pod_ready_since(at).sts_done());
        let (bx, by) = states(Blocking);
        r.check(&format!("{prefix}6"), bx, by, Verdict::Waiting);

        let at = r.tick();
        r.node(who, |n| n.ready_since(at));
        r.check(
            &format!("{prefix}7"),
            Converged,
            if who == X { Waiting } else { Converged },
            Verdict::Waiting,
        );
    }

    let at = r.tick();
    r.c.with(|c| c.ready_for_generation_since(at));
    r.check("9", Converged, Converged, Verdict::Converged);
}
