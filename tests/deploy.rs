//! deploy/: the alert rules pass `promtool check rules` and their unit
//! tests (`promtool test rules`, deploy/prometheus/rules_test.yaml: each
//! alert fires naming the cluster and the node, does not fire when it
//! should not, and waits for its `for:`); the PrometheusRule carries exactly
//! the rules of rules.yaml; each alert's runbook is a section of
//! docs/metrics.md that starts with the command to run; the RBAC grants
//! list and watch on the six kinds and nothing else; the Deployment, its
//! Service and the ServiceMonitor agree on labels and the port.

mod harness;

use harness::common::root;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn read(path: &str) -> String {
    let p = root().join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn yaml(path: &str) -> Value {
    serde_saphyr::from_str(&read(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn yaml_docs(path: &str) -> Vec<Value> {
    serde_saphyr::from_multiple(&read(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn promtool(dir: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(harness::promtool())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run promtool");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

const ALERTS: [&str; 6] = [
    "ValkeyRollJammed",
    "ValkeyRollStalled",
    "ValkeyRollConflict",
    "ValkeyRollOperatorSilent",
    "ValkeyRollShardAtRisk",
    "ValkeyRollExporterBlind",
];

#[test]
fn the_rules_pass_promtool_check_and_their_unit_tests() {
    let dir = root().join("deploy/prometheus");
    let (ok, out) = promtool(&dir, &["check", "rules", "rules.yaml"]);
    assert!(ok, "promtool check rules:\n{out}");
    assert!(out.contains("SUCCESS: 6 rules found"), "{out}");
    let (ok, out) = promtool(&dir, &["test", "rules", "rules_test.yaml"]);
    assert!(ok, "promtool test rules:\n{out}");
    // Every alert is tested: firing, and not.
    let tests = read("deploy/prometheus/rules_test.yaml");
    for alert in ALERTS {
        assert!(
            tests.matches(&format!("alertname: {alert}\n")).count() >= 2,
            "{alert} is not tested both ways"
        );
    }
}

#[test]
fn the_prometheus_rule_holds_exactly_the_rules() {
    let rules = yaml("deploy/prometheus/rules.yaml");
    let object = yaml("deploy/prometheus/prometheusrule.yaml");
    assert_eq!(object["kind"], "PrometheusRule");
    assert_eq!(object["apiVersion"], "monitoring.coreos.com/v1");
    assert_eq!(object["spec"]["groups"], rules["groups"]);
    let names: Vec<&str> = rules["groups"][0]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter_map(|r| r["alert"].as_str())
        .collect();
    assert_eq!(names, ALERTS);
}

#[test]
fn each_alert_names_cluster_and_node_and_links_a_runbook_that_starts_with_the_command() {
    let rules = yaml("deploy/prometheus/rules.yaml");
    let docs = read("docs/metrics.md");
    for rule in rules["groups"][0]["rules"].as_array().expect("rules") {
        let alert = rule["alert"].as_str().expect("alert");
        let summary = rule["annotations"]["summary"].as_str().expect("summary");
        // The exporter's own alert is about a context, not a cluster; a
        // shard at risk names its shard and primary.
        if alert != "ValkeyRollExporterBlind" {
            assert!(summary.contains("$labels.cluster"), "{alert}: {summary}");
            let node = if alert == "ValkeyRollShardAtRisk" {
                assert!(summary.contains("$labels.shard"), "{alert}: {summary}");
                "$labels.primary"
            } else {
                "$labels.node"
            };
            assert!(summary.contains(node), "{alert}: {summary}");
        }
        assert!(
            rule["for"].as_str().is_some_and(|f| f.ends_with('m')),
            "{alert} has no for"
        );
        let url = rule["annotations"]["runbook_url"]
            .as_str()
            .expect("runbook");
        let anchor = url.split('#').nth(1).expect("an anchor");
        assert_eq!(anchor, alert.to_lowercase(), "{alert}: {url}");
        assert!(
            url.starts_with(
                "https://github.com/kubectl-valkey-roll/kubectl-valkey-roll/blob/main/docs/metrics.md#"
            ),
            "{url}"
        );
        // The section: a heading `### Alert`, its first line the command.
        let heading = format!("\n### {alert}\n");
        let at = docs
            .find(&heading)
            .unwrap_or_else(|| panic!("docs/metrics.md has no section {alert}"));
        let first = docs[at + heading.len()..]
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or_default();
        let command = if alert == "ValkeyRollExporterBlind" {
            "`kubectl valkey-roll status"
        } else {
            "`kubectl valkey-roll explain"
        };
        assert!(
            first.starts_with(command),
            "{alert}: its section starts {first:?}"
        );
    }
}

/// The optional rules of `exporter --servers`: get on the system-passwords
/// Secrets by name (and nothing else of Secrets: never a TLS certificate
/// Secret, which holds the servers' private key), get and create on
/// pods/portforward (a WebSocket GET), get on the CA's ConfigMap by name;
/// bound to the exporter's ServiceAccount.
#[test]
fn the_exporter_may_read_the_servers_by_optional_rules_of_their_own() {
    let docs = yaml_docs("deploy/rbac.yaml");
    let role = docs
        .iter()
        .find(|d| {
            d["kind"] == "ClusterRole" && d["metadata"]["name"] == "valkey-roll-exporter-servers"
        })
        .expect("the servers' ClusterRole");
    let rules = role["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), 3, "{role}");
    let secrets = &rules[0];
    assert_eq!(secrets["resources"], serde_json::json!(["secrets"]));
    assert_eq!(secrets["verbs"], serde_json::json!(["get"]));
    let names = secrets["resourceNames"].as_array().expect("resourceNames");
    assert!(!names.is_empty());
    for n in names {
        let n = n.as_str().expect("a name");
        assert!(
            n.starts_with("internal-") && n.ends_with("-system-passwords"),
            "{n}"
        );
    }
    assert_eq!(
        rules[1]["resources"],
        serde_json::json!(["pods/portforward"])
    );
    assert_eq!(rules[1]["verbs"], serde_json::json!(["get", "create"]));
    assert!(rules[1].get("resourceNames").is_none());
    assert_eq!(rules[2]["resources"], serde_json::json!(["configmaps"]));
    assert_eq!(rules[2]["verbs"], serde_json::json!(["get"]));
    assert!(
        rules[2]["resourceNames"]
            .as_array()
            .is_some_and(|n| !n.is_empty()),
        "the CA's ConfigMap by name: {role}"
    );
    let binding = docs
        .iter()
        .find(|d| {
            d["kind"] == "ClusterRoleBinding" && d["roleRef"]["name"] == role["metadata"]["name"]
        })
        .expect("its binding");
    assert_eq!(binding["subjects"][0]["name"], "valkey-roll-exporter");
    // The Deployment says how to turn it on, commented.
    let exporter = read("deploy/exporter.yaml");
    assert!(
        exporter
            .lines()
            .any(|l| l.trim_start().starts_with('#') && l.contains("\"--servers\"")),
        "deploy/exporter.yaml does not say --servers"
    );
    // And how to give it the CA of TLS clusters, mounted or by ConfigMap.
    for flag in ["\"--servers-ca\"", "\"--servers-ca-configmap\""] {
        assert!(
            exporter
                .lines()
                .any(|l| l.trim_start().starts_with('#') && l.contains(flag)),
            "deploy/exporter.yaml does not say {flag}"
        );
    }
}

#[test]
fn the_exporter_may_list_and_watch_the_six_kinds_and_nothing_else() {
    let docs = yaml_docs("deploy/rbac.yaml");
    let role = docs
        .iter()
        .find(|d| d["kind"] == "ClusterRole" && d["metadata"]["name"] == "valkey-roll-exporter")
        .expect("a ClusterRole");
    let mut granted = Vec::new();
    for rule in role["rules"].as_array().expect("rules") {
        let verbs: Vec<&str> = rule["verbs"]
            .as_array()
            .expect("verbs")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(verbs, ["list", "watch"], "{rule}");
        assert!(rule.get("resourceNames").is_none(), "{rule}");
        for group in rule["apiGroups"].as_array().expect("groups") {
            for resource in rule["resources"].as_array().expect("resources") {
                granted.push(format!(
                    "{}/{}",
                    group.as_str().unwrap_or("?"),
                    resource.as_str().unwrap_or("?")
                ));
            }
        }
    }
    granted.sort();
    assert_eq!(
        granted,
        [
            "/events",
            "/pods",
            "apps/deployments",
            "apps/statefulsets",
            "valkey.io/valkeyclusters",
            "valkey.io/valkeynodes"
        ]
    );
    let binding = docs
        .iter()
        .find(|d| {
            d["kind"] == "ClusterRoleBinding" && d["roleRef"]["name"] == role["metadata"]["name"]
        })
        .expect("a binding");
    let account = docs
        .iter()
        .find(|d| d["kind"] == "ServiceAccount")
        .expect("a ServiceAccount");
    assert_eq!(binding["roleRef"]["name"], role["metadata"]["name"]);
    assert_eq!(binding["subjects"][0]["name"], account["metadata"]["name"]);
    assert_eq!(
        binding["subjects"][0]["namespace"],
        account["metadata"]["namespace"]
    );
}

#[test]
fn deployment_service_and_service_monitor_agree() {
    let docs = yaml_docs("deploy/exporter.yaml");
    let deployment = docs
        .iter()
        .find(|d| d["kind"] == "Deployment")
        .expect("Deployment");
    let service = docs
        .iter()
        .find(|d| d["kind"] == "Service")
        .expect("Service");
    let monitor = yaml("deploy/prometheus/servicemonitor.yaml");
    let rbac = yaml_docs("deploy/rbac.yaml");
    let account = rbac
        .iter()
        .find(|d| d["kind"] == "ServiceAccount")
        .expect("a ServiceAccount");
    let pod = &deployment["spec"]["template"];
    assert_eq!(
        pod["spec"]["serviceAccountName"],
        account["metadata"]["name"]
    );
    assert_eq!(
        deployment["metadata"]["namespace"],
        account["metadata"]["namespace"]
    );
    let labels = &pod["metadata"]["labels"];
    assert_eq!(&deployment["spec"]["selector"]["matchLabels"], labels);
    assert_eq!(&service["spec"]["selector"], labels);
    for (k, v) in monitor["spec"]["selector"]["matchLabels"]
        .as_object()
        .expect("selector")
    {
        assert_eq!(&service["metadata"]["labels"][k], v, "{k}");
    }
    let container = &pod["spec"]["containers"][0];
    assert_eq!(container["ports"][0]["name"], "metrics");
    assert_eq!(service["spec"]["ports"][0]["targetPort"], "metrics");
    assert_eq!(
        monitor["spec"]["endpoints"][0]["port"],
        service["spec"]["ports"][0]["name"]
    );
    let args: Vec<&str> = container["args"]
        .as_array()
        .expect("args")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(args, ["exporter", "--listen", "0.0.0.0:9808"]);
    assert_eq!(container["readinessProbe"]["httpGet"]["path"], "/healthz");
    let dockerfile = read("deploy/Dockerfile");
    assert!(dockerfile.contains("CMD [\"exporter\", \"--listen\", \"0.0.0.0:9808\"]"));
}
