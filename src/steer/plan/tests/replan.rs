//! A plan made again under the Lease: what counts as a change.

use super::*;

#[test]
fn changed_decisions_are_told_apart() {
    let scene = Scene::p1(vec![waiting("cache-0-1"), waiting("cache-0-2")]);
    let before = run(&scene, &req(Action::Grant, "cache-0-1"));
    // Only resourceVersion moved: the same decision.
    let mut same_scene = Scene::p1(vec![waiting("cache-0-1"), waiting("cache-0-2")]);
    same_scene.nodes[1].ready = false;
    assert_eq!(
        run(&same_scene, &req(Action::Grant, "cache-0-1")).changed_from(&before, &[]),
        None
    );
    // Another node was granted meanwhile.
    let granted = Scene::p1(vec![
        waiting("cache-0-1"),
        holder("cache-0-2", NodeState::Rolling, H, Some(1)),
    ]);
    let after = run(&granted, &req(Action::Grant, "cache-0-1"));
    let what = change(after.changed_from(&before, &[]).expect("changed"));
    assert!(
        what.starts_with("the decision is now refused: cache-0-2 (Rolling"),
        "{what}"
    );
    // The node asks for a new revision now.
    let mut moved = Scene::p1(vec![waiting("cache-0-1")]);
    moved.nodes[0].desired_revision = Some(OLD.into());
    let what = change(
        run(&moved, &req(Action::Grant, "cache-0-1"))
            .changed_from(&before, &[])
            .expect("changed"),
    );
    assert_eq!(
        what,
        "cache-0-1 would now get 41ab77c0e1f2 instead of 9f2c41ab03de"
    );
    // A takeover whose first revoke is written: not a change.
    let mut r = req(Action::Force, "cache-0-1");
    takeover(&mut r);
    r.reason = Some("x".into());
    let two = run(&Scene::p1(vec![waiting("cache-0-1"), stuck_holder()]), &r);
    let one = run(
        &Scene::p1(vec![waiting("cache-0-1"), converged("cache-1-1")]),
        &r,
    );
    assert_eq!(one.changed_from(&two, &["cache-1-1".to_string()]), None);
    assert!(one.changed_from(&two, &[]).is_some());
    // A revoke does not care who else holds.
    let revoke = req(Action::Revoke, "cache-0-1");
    let alone = run(
        &Scene::p1(vec![holder("cache-0-1", NodeState::Rolling, H, None)]),
        &revoke,
    );
    let crowded = run(
        &Scene::p1(vec![
            holder("cache-0-1", NodeState::Rolling, H, None),
            stuck_holder(),
        ]),
        &revoke,
    );
    assert_eq!(crowded.changed_from(&alone, &[]), None);
}

#[test]
fn a_newly_needed_confirmation_is_a_change() {
    let revoke = req(Action::Revoke, "cache-0-1");
    let fine = || holder("cache-0-1", NodeState::Rolling, H, Some(60));
    let asked = run(&Scene::p1(vec![crashing(fine())]), &revoke);
    let unasked = run(&Scene::p1(vec![fine()]), &revoke);
    assert!(asked.confirmation.is_some() && unasked.confirmation.is_none());
    // (case, first plan, plan under the Lease, changed)
    let cases: Vec<(&str, &Plan, &Plan, bool)> = vec![
        (
            "no confirmation at first, needed now",
            &unasked,
            &asked,
            true,
        ),
        ("needed both times (given)", &asked, &asked, false),
        ("needed at first, not now", &asked, &unasked, false),
        ("needed neither time", &unasked, &unasked, false),
    ];
    for (name, before, now, changed) in cases {
        let what = now.changed_from(before, &[]);
        assert_eq!(what.is_some(), changed, "{name}: {what:?}");
        if let Some(what) = what.map(change) {
            assert!(
                what.starts_with(
                    "revoke cache-0-1 now needs confirmation: cache-0-1 holds the permit"
                ),
                "{name}: {what}"
            );
        }
    }
}
