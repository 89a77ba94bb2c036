//! The undo command: same cluster, same user, each step not refused.

use super::*;

#[test]
fn undo_names_the_same_cluster_and_restores_an_own_old_permit() {
    let own = |permit: &str| {
        let mut n = holder("cache-0-1", NodeState::StalePermit, permit, Some(5));
        n.desired_revision = Some(H.into());
        n.facts.asks = true;
        n
    };
    let other = |name: &str| holder(name, NodeState::Stuck, H, Some(840));
    let grant = req(Action::Grant, "cache-0-1");
    let mut force = req(Action::Force, "cache-0-1");
    force.reason = Some("x".into());
    let mut takeover = force.clone();
    super::takeover(&mut takeover);
    let mut flagged = grant.clone();
    flagged.access = AccessFlags {
        kubeconfig: Some("/home/me/kube config".into()),
        context: Some("staging".into()),
        kube_cluster: Some("kc".into()),
        user: Some("bob".into()),
        impersonate: Some("alice".into()),
        impersonate_groups: vec!["ops".into(), "sre team".into()],
    };
    let mut flagged_force = takeover.clone();
    flagged_force.access = flagged.access.clone();
    let conn = "-n prod --kubeconfig '/home/me/kube config' --context staging --cluster kc --user bob --as alice --as-group ops --as-group 'sre team'";
    let k = "kubectl valkey-roll";
    // (case, scene, request, undo)
    let cases: Vec<(&str, Scene, Request, String)> = vec![
        (
            "grant, connection flags repeated",
            Scene::p1(vec![waiting("cache-0-1")]),
            flagged,
            format!("{k} revoke cache-0-1 {conn}"),
        ),
        (
            "grant over its own stale permit: the old one comes back",
            Scene::p1(vec![own(OLD)]),
            grant.clone(),
            format!("{k} grant cache-0-1 -n prod --protocol P1 --revision {OLD}"),
        ),
        (
            "grant over its own `*`",
            Scene::p1(vec![own("*")]),
            grant.clone(),
            format!("{k} grant cache-0-1 -n prod --protocol P1 --any"),
        ),
        (
            "grant over its own permit, on a primary",
            Scene::p1(vec![claims_primary(own(OLD))]),
            {
                let mut r = grant.clone();
                allow_primary(&mut r);
                r
            },
            format!("{k} grant cache-0-1 -n prod --protocol P1 --revision {OLD} --allow-primary"),
        ),
        (
            "force over its own permit, another holder kept: grant would be refused",
            Scene::p1(vec![own(OLD), other("cache-1-1")]),
            force.clone(),
            format!(
                "{k} force cache-0-1 -n prod --protocol P1 --revision {OLD} --reason 'undo force of cache-0-1' --yes"
            ),
        ),
        (
            "force --takeover over its own permit: itself first, then the holder it revoked",
            Scene::p1(vec![own(OLD), other("cache-1-1")]),
            takeover.clone(),
            format!(
                "{k} grant cache-0-1 -n prod --protocol P1 --revision {OLD} && {k} force cache-1-1 -n prod --protocol P1 --revision {H} --reason 'undo force --takeover of cache-0-1' --yes"
            ),
        ),
        (
            "force --takeover of two holders, connection flags on every line",
            Scene::p1(vec![
                waiting("cache-0-1"),
                other("cache-1-1"),
                other("cache-2-1"),
            ]),
            flagged_force,
            format!(
                "{k} revoke cache-0-1 {conn} && {k} grant cache-1-1 {conn} --protocol P1 --revision {H} && {k} force cache-2-1 {conn} --protocol P1 --revision {H} --reason 'undo force --takeover of cache-0-1' --yes"
            ),
        ),
        (
            "revoke while another node holds: grant would be refused",
            Scene::p1(vec![
                holder("cache-0-1", NodeState::Rolling, H, Some(5)),
                other("cache-1-1"),
            ]),
            req(Action::Revoke, "cache-0-1"),
            format!(
                "{k} force cache-0-1 -n prod --protocol P1 --revision {H} --reason 'undo revoke of cache-0-1' --yes"
            ),
        ),
    ];
    for (name, scene, request, want) in cases {
        let p = run(&scene, &request);
        assert_eq!(p.decision, Decision::Planned, "{name}: {:?}", p.reasons);
        assert_eq!(p.undo.as_deref(), Some(want.as_str()), "{name}");
    }
}

/// A node name from a file may hold anything: the pasted undo line must run
/// the plugin on that very name, and nothing else.
#[test]
fn undo_of_hostile_names_is_one_safe_shell_line() {
    let k = "kubectl valkey-roll";
    // (case, node name, undo of a grant of it)
    let cases: &[(&str, &str, &str)] = &[
        (
            "command substitution",
            "$(touch /tmp/x)",
            "kubectl valkey-roll revoke '$(touch /tmp/x)' -n prod",
        ),
        ("a space", "a b", "kubectl valkey-roll revoke 'a b' -n prod"),
        (
            "a quote",
            "it's",
            "kubectl valkey-roll revoke \"it's\" -n prod",
        ),
        (
            "a comment",
            "x #y",
            "kubectl valkey-roll revoke 'x #y' -n prod",
        ),
        (
            "a newline",
            "x\ny",
            "kubectl valkey-roll revoke 'x\ny' -n prod",
        ),
        ("a tilde", "~x", "kubectl valkey-roll revoke '~x' -n prod"),
        (
            "a leading dash",
            "-A",
            "kubectl valkey-roll revoke -n prod -- -A",
        ),
        (
            "a leading dash and a space",
            "--yes now",
            "kubectl valkey-roll revoke -n prod -- '--yes now'",
        ),
    ];
    for (name, node, want) in cases {
        let p = run(&Scene::p1(vec![waiting(node)]), &req(Action::Grant, node));
        let undo = p.undo.unwrap_or_else(|| panic!("{name}: no undo"));
        assert_eq!(undo, *want, "{name}");
        let argv = shlex::split(&undo).unwrap_or_else(|| panic!("{name}: {undo}"));
        let node_at = argv
            .iter()
            .position(|w| w == node)
            .unwrap_or_else(|| panic!("{name}: {node:?} is not one word of {argv:?}"));
        assert_eq!(
            &argv[..3],
            ["kubectl", "valkey-roll", "revoke"],
            "{name}: {argv:?}"
        );
        // A word that starts with `-` comes after `--`.
        if node.starts_with('-') {
            assert_eq!(argv[node_at - 1], "--", "{name}: {argv:?}");
        }
    }
    // The reason of a force names the node too, inside one quoted word.
    let p = run(
        &Scene::p1(vec![
            holder("$(id)", NodeState::Rolling, H, Some(5)),
            holder("other", NodeState::Stuck, H, Some(840)),
        ]),
        &req(Action::Revoke, "$(id)"),
    );
    assert_eq!(
        p.undo.as_deref(),
        Some(
            format!(
                "{k} force '$(id)' -n prod --protocol P1 --revision {H} --reason 'undo revoke of $(id)' --yes"
            )
            .as_str()
        ),
    );
}
