//! force: the holders it keeps or takes over, and its confirmation.

use super::*;

#[test]
fn force_names_holders_keeps_them_or_takes_over() {
    let scene = Scene::p1(vec![
        primary(waiting("cache-0-0")),
        waiting("cache-0-1"),
        stuck_holder(),
    ]);
    let mut r = req(Action::Force, "cache-0-0");
    r.reason = Some("cache-1-1 is dead".into());

    let kept = run(&scene, &r);
    assert_eq!(kept.decision, Decision::Planned, "{:?}", kept.reasons);
    assert_eq!(kept.other_holders, vec!["cache-1-1".to_string()]);
    assert_eq!(kept.kept_holders, vec!["cache-1-1".to_string()]);
    assert_eq!(kept.patches.len(), 1);
    assert_eq!(kept.patches[0].name, "cache-0-0");
    assert_eq!(
        kept.warnings,
        vec![
            Warning::OtherHolder {
                holder: HolderInfo::of(&stuck_holder()),
                takeover: false
            },
            Warning::Primary {
                node: "cache-0-0".into(),
                unsure: None,
                source: None,
            },
            off(),
        ]
    );
    assert_eq!(kept.events[0].reason, "ManualRollPermitForced");
    assert_eq!(
        kept.undo.as_deref(),
        Some("kubectl valkey-roll revoke cache-0-0 -n prod")
    );
    let text = asked(&kept);
    assert!(
        text.contains("cache-1-1 (Stuck, permit 9f2c41ab03de, held 14m) keeps its permit, so two nodes may roll at once"),
        "{text}"
    );
    assert!(text.contains("proactive failover does not run"), "{text}");

    takeover(&mut r);
    let took = run(&scene, &r);
    assert_eq!(took.kept_holders, Vec::<String>::new());
    let names: Vec<(&str, PatchEffect)> = took
        .patches
        .iter()
        .map(|p| (p.name.as_str(), p.effect))
        .collect();
    assert_eq!(
        names,
        vec![
            ("cache-1-1", PatchEffect::Revoke),
            ("cache-0-0", PatchEffect::Grant)
        ]
    );
    assert_eq!(
        took.patches[0].patch["metadata"]["resourceVersion"],
        json!("rv-cache-1-1")
    );
    assert_eq!(
        took.patches[0].patch["metadata"]["annotations"][keys::ANN_PERMIT],
        Value::Null
    );
    let reasons: Vec<(&str, &str)> = took.events.iter().map(|e| (e.node(), e.reason)).collect();
    assert_eq!(
        reasons,
        vec![
            ("cache-1-1", "ManualRollPermitRevoked"),
            ("cache-0-0", "ManualRollPermitForced")
        ]
    );
    assert_eq!(
        took.undo.as_deref(),
        Some(
            "kubectl valkey-roll revoke cache-0-0 -n prod && kubectl valkey-roll grant cache-1-1 -n prod --protocol P1 --revision 9f2c41ab03de55aa66bb77cc88dd99ee"
        )
    );
    assert!(asked(&took).contains("loses its permit (its pod is not rolled back)"));
}

#[test]
fn force_without_anything_to_override_still_asks() {
    let mut r = req(Action::Force, "cache-0-1");
    r.reason = Some("x".into());
    let p = run(&Scene::p1(vec![waiting("cache-0-1")]), &r);
    assert_eq!(p.decision, Decision::Planned);
    assert!(asked(&p).ends_with("past the safety checks (none of them refuses it now)."));
}
