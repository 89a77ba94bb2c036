//! One row per mirrored field: a cluster spec and a node spec as the API
//! holds them (the user's JSON on one side, what the operator wrote on the
//! other), and the fields that must read as differing.

use super::*;
use serde_json::json;

/// A cluster `rig` as the API server holds it (its CRD's defaults
/// applied), with `spec` merged over.
fn cluster(spec: Value) -> ValkeyCluster {
    let mut base = json!({
        "image": "valkey/valkey:9.0.0", "shards": 3, "replicas": 1,
        "workloadType": "StatefulSet", "exporter": {"enabled": true},
    });
    merge(&mut base, spec);
    serde_json::from_value(json!({"metadata": {"name": "rig"}, "spec": base})).expect("a cluster")
}

/// Node rig-1-0 as the operator writes it for that cluster, `spec` merged
/// over.
fn node(spec: Value) -> ValkeyNode {
    let mut base = json!({
        "image": "valkey/valkey:9.0.0", "workloadType": "StatefulSet",
        "exporter": {"enabled": true, "resources": {}}, "resources": {},
        "serverConfigMapName": "valkey-rig", "usersACLSecretName": "internal-rig-acl",
        "workloadRevision": "7addd466",
    });
    merge(&mut base, spec);
    serde_json::from_value(json!({
        "metadata": {"name": "rig-1-0", "labels": {
            "valkey.io/cluster": "rig", "valkey.io/shard-index": "1", "valkey.io/node-index": "0"}},
        "spec": base,
    }))
    .expect("a node")
}

/// `patch` over `base`, a null removing the key.
fn merge(base: &mut Value, patch: Value) {
    if let (Some(b), Value::Object(p)) = (base.as_object_mut(), patch) {
        for (k, v) in p {
            if v.is_null() {
                b.remove(&k);
            } else {
                b.insert(k, v);
            }
        }
    }
}

use SpecField as F;

#[test]
fn each_mirrored_field_reads_behind_when_it_differs_and_not_when_it_is_the_same() {
    // (case, the cluster's spec, the node's spec, the fields that differ)
    let cases: Vec<(&str, Value, Value, Vec<SpecField>)> = vec![
        ("as created", json!({}), json!({}), vec![]),
        (
            "image",
            json!({"image": "valkey/valkey:9.0.1"}),
            json!({}),
            vec![F::Image],
        ),
        (
            "no image in the cluster: not compared",
            json!({"image": null}),
            json!({}),
            vec![],
        ),
        (
            "config hz set: the pod rolls",
            json!({"config": {"hz": "20"}}),
            json!({}),
            vec![F::Config],
        ),
        (
            "config hz copied",
            json!({"config": {"hz": "20"}}),
            json!({"config": {"hz": "20"}}),
            vec![],
        ),
        (
            "config hz changed",
            json!({"config": {"hz": "20"}}),
            json!({"config": {"hz": "10"}}),
            vec![F::Config],
        ),
        (
            "config hz removed",
            json!({}),
            json!({"config": {"hz": "10"}}),
            vec![F::Config],
        ),
        (
            "config maxmemory: live",
            json!({"config": {"maxmemory": "100mb"}}),
            json!({}),
            vec![F::LiveConfig],
        ),
        (
            "config maxmemory and hz: the pod rolls",
            json!({"config": {"maxmemory": "100mb", "hz": "20"}}),
            json!({"config": {"maxmemory": "50mb"}}),
            vec![F::Config],
        ),
        (
            "config maxclients and maxmemory-policy: live",
            json!({"config": {"maxclients": "100", "maxmemory-policy": "allkeys-lru", "hz": "20"}}),
            json!({"config": {"hz": "20"}}),
            vec![F::LiveConfig],
        ),
        (
            "resources set (t-resources)",
            json!({"resources": {"limits": {"memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}}}),
            json!({}),
            vec![F::Resources],
        ),
        (
            "resources in other forms of the same quantities",
            json!({"resources": {"limits": {"cpu": 1, "memory": "1Gi"}, "requests": {"cpu": "0.1", "memory": "134217728"}}}),
            json!({"resources": {"limits": {"cpu": "1000m", "memory": "1024Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}}}),
            vec![],
        ),
        (
            "resources: a quantity changed",
            json!({"resources": {"limits": {"memory": "512Mi"}}}),
            json!({"resources": {"limits": {"memory": "256Mi"}}}),
            vec![F::Resources],
        ),
        (
            "resources {} and none",
            json!({"resources": {}}),
            json!({"resources": null}),
            vec![],
        ),
        (
            "persistence added",
            json!({"persistence": {"size": "1Gi", "reclaimPolicy": "Retain"}}),
            json!({}),
            vec![F::Persistence],
        ),
        (
            "persistence copied, the size in another form, the policy defaulted",
            json!({"persistence": {"size": "1024Mi"}}),
            json!({"persistence": {"size": "1Gi", "reclaimPolicy": "Retain"}}),
            vec![],
        ),
        (
            "persistence grown",
            json!({"persistence": {"size": "2Gi"}}),
            json!({"persistence": {"size": "1Gi"}}),
            vec![F::Persistence],
        ),
        (
            "tolerations",
            json!({"scheduling": {"tolerations": [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}]}}),
            json!({}),
            vec![F::Tolerations],
        ),
        (
            "tolerations copied",
            json!({"scheduling": {"tolerations": [{"key": "dedicated", "operator": "Exists"}]}}),
            json!({"tolerations": [{"key": "dedicated", "operator": "Exists"}]}),
            vec![],
        ),
        (
            "priorityClassName",
            json!({"scheduling": {"priorityClassName": "high"}}),
            json!({}),
            vec![F::PriorityClassName],
        ),
        (
            "exporter disabled",
            json!({"exporter": {"enabled": false}}),
            json!({}),
            vec![F::Exporter],
        ),
        (
            "exporter disabled, copied (false is left out)",
            json!({"exporter": {"enabled": false}}),
            json!({"exporter": {"resources": {}}}),
            vec![],
        ),
        (
            "exporter image",
            json!({"exporter": {"enabled": true, "image": "oliver006/redis_exporter:v1.88.0"}}),
            json!({}),
            vec![F::Exporter],
        ),
        (
            "a cluster read without its exporter default cannot say",
            json!({"exporter": null}),
            json!({"exporter": {"enabled": true}}),
            vec![],
        ),
        (
            "containers",
            json!({"containers": [{"name": "server", "env": [{"name": "A", "value": "1"}]}]}),
            json!({}),
            vec![F::Containers],
        ),
        (
            "containers copied, resources in another form",
            json!({"containers": [{"name": "side", "image": "busybox", "resources": {"limits": {"cpu": "1"}}}]}),
            json!({"containers": [{"name": "side", "image": "busybox", "resources": {"limits": {"cpu": "1000m"}}}]}),
            vec![],
        ),
        (
            "terminationGracePeriodSeconds set",
            json!({"terminationGracePeriodSeconds": 60}),
            json!({}),
            vec![F::TerminationGracePeriodSeconds],
        ),
        (
            "terminationGracePeriodSeconds set back to 30: written as 30",
            json!({"terminationGracePeriodSeconds": 30}),
            json!({"terminationGracePeriodSeconds": 60}),
            vec![F::TerminationGracePeriodSeconds],
        ),
        (
            "terminationGracePeriodSeconds default from a long failover timeout",
            json!({"config": {"cluster-manual-failover-timeout": "30000"}}),
            json!({"config": {"cluster-manual-failover-timeout": "30000"}, "terminationGracePeriodSeconds": 40}),
            vec![],
        ),
        (
            "terminationGracePeriodSeconds default not yet written",
            json!({"config": {"cluster-manual-failover-timeout": "30000"}}),
            json!({"config": {"cluster-manual-failover-timeout": "30000"}}),
            vec![F::TerminationGracePeriodSeconds],
        ),
        (
            "terminationGracePeriodSeconds default within 30 s: not written",
            json!({"config": {"cluster-manual-failover-timeout": "20000"}}),
            json!({"config": {"cluster-manual-failover-timeout": "20000"}}),
            vec![],
        ),
        (
            "imagePullSecrets",
            json!({"imagePullSecrets": [{"name": "regcred"}]}),
            json!({}),
            vec![F::ImagePullSecrets],
        ),
        (
            "podSecurityContext",
            json!({"podSecurityContext": {"runAsUser": 1000}}),
            json!({}),
            vec![F::PodSecurityContext],
        ),
        (
            "TLS from the cluster's networking",
            json!({"networking": {"tls": {"certificates": {"server": {"secretName": "rig-tls"}}}}}),
            json!({}),
            vec![F::Tls],
        ),
        (
            "TLS copied",
            json!({"networking": {"tls": {"certificates": {"server": {"secretName": "rig-tls"}}}}}),
            json!({"tls": {"certificates": {"server": {"secretName": "rig-tls"}}}}),
            vec![],
        ),
        (
            "workloadType absent reads StatefulSet",
            json!({}),
            json!({"workloadType": null}),
            vec![],
        ),
        (
            "a cluster read without its workloadType default cannot say",
            json!({"workloadType": null}),
            json!({"workloadType": "Deployment"}),
            vec![],
        ),
        (
            "workloadType",
            json!({"workloadType": "Deployment"}),
            json!({}),
            vec![F::WorkloadType],
        ),
        (
            "the user's nodeSelector, and the zone pin of shard 1 node 0",
            json!({"scheduling": {"nodeSelector": {"disk": "ssd"}, "zone": {"pinning": {"zones": ["a", "b", "c"]}}}}),
            json!({"nodeSelector": {"disk": "ssd", "topology.kubernetes.io/zone": "b"}}),
            vec![],
        ),
        (
            "a zone pin not yet written",
            json!({"scheduling": {"zone": {"pinning": {"zones": ["a", "b"]}}}}),
            json!({}),
            vec![F::NodeSelector],
        ),
        (
            "the shard anti-affinity the operator adds",
            json!({"scheduling": {"node": {"spread": {"shard": {"mode": "Preferred"}}}}}),
            json!({"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 100, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                 "labelSelector": {"matchLabels": {"valkey.io/cluster": "rig", "valkey.io/shard-index": "1"}}}}]}}}),
            vec![],
        ),
        (
            "a spread mode turned on",
            json!({"scheduling": {"node": {"spread": {"shard": {"mode": "Required"}}}}}),
            json!({}),
            vec![F::Affinity],
        ),
        (
            "the curated spread constraints of a primary (node 0)",
            json!({"scheduling": {"node": {"spread": {"primaries": {"mode": "Required"}}},
                                  "zone": {"spread": {"pods": {"mode": "Preferred"}}}}}),
            json!({"topologySpreadConstraints": [
                {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule",
                 "labelSelector": {"matchLabels": {"valkey.io/cluster": "rig", "valkey.io/node-index": "0"}}},
                {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway",
                 "labelSelector": {"matchLabels": {"valkey.io/cluster": "rig"}}}]}),
            vec![],
        ),
        (
            "shards and replicas are not mirrored",
            json!({"shards": 5, "replicas": 2, "users": [{"name": "app"}],
                   "podDisruptionBudget": {"mode": "Disabled"}}),
            json!({}),
            vec![],
        ),
        (
            "two fields at once, in the operator's order",
            json!({"config": {"hz": "20"}, "resources": {"requests": {"cpu": "1"}}}),
            json!({}),
            vec![F::Resources, F::Config],
        ),
    ];
    for (name, c, n, want) in cases {
        assert_eq!(cluster(c).spec_differs(&node(n)), want, "{name}");
    }
}

#[test]
fn fields_that_depend_on_the_place_are_not_compared_without_it() {
    let c = cluster(json!({"scheduling": {"zone": {"pinning": {"zones": ["a"]}},
                                          "node": {"spread": {"shard": {"mode": "Required"}}}}}));
    let mut n = node(json!({}));
    n.metadata.labels = Default::default();
    assert_eq!(c.spec_differs(&n), vec![]);
    assert_eq!(
        c.spec_differs(&node(json!({}))),
        vec![F::NodeSelector, F::Affinity]
    );
}

#[test]
fn quantities_read_by_value() {
    let cases: &[(&str, Option<(i128, i32)>)] = &[
        ("1", Some((1, 0))),
        ("1000m", Some((1, 0))),
        ("0.1", Some((1, -1))),
        ("100m", Some((1, -1))),
        ("1Gi", Some((1_073_741_824, 0))),
        ("1024Mi", Some((1_073_741_824, 0))),
        ("1e3", Some((1, 3))),
        ("1k", Some((1, 3))),
        ("1.5G", Some((15, 8))),
        ("-2", Some((-2, 0))),
        ("0", Some((0, 0))),
        ("0Gi", Some((0, 0))),
        ("", None),
        ("1x", None),
        ("one", None),
        (".", None),
    ];
    for (text, want) in cases {
        assert_eq!(parse_quantity(text), *want, "{text}");
    }
}

#[test]
fn every_field_has_a_key_and_only_live_config_is_live() {
    for f in SpecField::ALL {
        assert!(!f.key().is_empty());
        assert_eq!(f.live(), f == F::LiveConfig, "{f:?}");
    }
}
