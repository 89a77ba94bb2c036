//! What a ValkeyNode's spec mirrors of its ValkeyCluster's, and the one
//! rule that says whether a node's copy is behind (docs/protocol.md, "What
//! a node's spec mirrors").
//!
//! The cluster controller builds each node's whole spec from the cluster's
//! on every pass and writes it when it differs, one node at a time in the
//! walk's order. So a node whose mirrored fields differ from what the
//! cluster asks of it is still to be rolled, whatever its workload says.
//!
//! The comparison is semantic, as the operator's own is: the user's JSON
//! in the ValkeyCluster and what the operator writes into the node differ
//! in form (a zero value is left out, `resources: {}` is always written,
//! a quantity is written in its canonical form), so a field that is
//! absent, null or a zero value reads the same, and quantities compare by
//! value. Fields derived from the cluster's (the scheduling the operator
//! curates, the grace period's default, TLS) are derived here by the same
//! rules; where a node's place (its shard and node index labels) is not
//! known, the fields that depend on it are not compared, so a settled node
//! never reads as behind for want of a fact.

pub use super::spec_field::SpecField;
use super::{ValkeyCluster, ValkeyNode, keys};
use serde_json::{Map, Value, json};

/// The `spec.config` keys the operator (c33988f) sets with CONFIG SET and
/// leaves out of the pod template: a change of only these replaces no pod.
pub const LIVE_CONFIG_KEYS: [&str; 3] = ["maxmemory", "maxmemory-policy", "maxclients"];

/// Kubernetes' own grace period, which the operator leaves unwritten.
const DEFAULT_GRACE_SECONDS: i64 = 30;
/// Valkey's `cluster-manual-failover-timeout` default, in seconds.
const DEFAULT_FAILOVER_TIMEOUT_SECONDS: i64 = 5;
/// What the operator adds to the failover timeout for its grace period.
const GRACE_BUFFER_SECONDS: i64 = 10;
const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";
const LABEL_ZONE: &str = "topology.kubernetes.io/zone";

impl ValkeyCluster {
    /// The mirrored fields of `node`'s spec that differ from what this
    /// cluster asks of it ([`SpecField::ALL`]'s order; empty: the node is
    /// at the cluster's spec).
    pub fn spec_differs(&self, node: &ValkeyNode) -> Vec<SpecField> {
        let place = place(node);
        SpecField::ALL
            .into_iter()
            .filter(|f| {
                let Some(want) = self.desired(*f, place) else {
                    return false;
                };
                let have = node_field(node, *f);
                match f {
                    SpecField::Config => config_differs(&want, &have, false),
                    SpecField::LiveConfig => {
                        !config_differs(&want, &have, false) && config_differs(&want, &have, true)
                    }
                    _ => semantic(&want) != semantic(&have),
                }
            })
            .collect()
    }

    /// What the cluster controller writes into field `f` of the node at
    /// `place` (shard, node index), as JSON; None where it cannot be known
    /// here (the field is then not compared).
    fn desired(&self, f: SpecField, place: Option<(u64, u64)>) -> Option<Value> {
        let s = &self.spec;
        let scheduling = s.scheduling.as_ref().unwrap_or(&Value::Null);
        let opt = |v: &Option<Value>| v.clone().unwrap_or(Value::Null);
        Some(match f {
            // A cluster with no image of its own (the operator's default)
            // is not compared: hand-written clusters often leave it out.
            SpecField::Image => json!(s.image.as_deref().filter(|i| !i.is_empty())?),
            SpecField::ImagePullSecrets => opt(&s.image_pull_secrets),
            // Nor one read without its CRD's default (StatefulSet).
            SpecField::WorkloadType => {
                json!(workload_type(Some(
                    s.workload_type.as_deref().filter(|t| !t.is_empty())?
                )))
            }
            SpecField::Persistence => persistence(opt(&s.persistence)),
            SpecField::Resources => opt(&s.resources),
            SpecField::Tolerations => scheduling["tolerations"].clone(),
            SpecField::PriorityClassName => scheduling["priorityClassName"].clone(),
            SpecField::NodeSelector => {
                let (shard, index) = place?;
                node_selector(scheduling, shard, index)
            }
            SpecField::Affinity => {
                let (shard, _) = place?;
                affinity(scheduling, self.name(), shard)
            }
            SpecField::TopologySpreadConstraints => {
                let (shard, index) = place?;
                spread_constraints(scheduling, self.name(), shard, index)
            }
            // A cluster read without its CRD's default (`exporter:
            // {enabled: true}`, which the API server writes) cannot say.
            SpecField::Exporter => s.exporter.clone()?,
            SpecField::Containers => opt(&s.containers),
            SpecField::Tls => {
                let tls = &opt(&s.networking)["tls"];
                if tls.is_null() {
                    Value::Null
                } else {
                    let secret = tls["certificates"]["server"]["secretName"].clone();
                    json!({"certificates": {"server": {"secretName": secret}}})
                }
            }
            SpecField::Config | SpecField::LiveConfig => opt(&s.config),
            SpecField::PodSecurityContext => opt(&s.pod_security_context),
            SpecField::TerminationGracePeriodSeconds => grace_period(s),
        })
    }
}

/// The node's own value of field `f`.
fn node_field(node: &ValkeyNode, f: SpecField) -> Value {
    let s = &node.spec;
    let opt = |v: &Option<Box<Value>>| v.as_deref().cloned().unwrap_or(Value::Null);
    match f {
        SpecField::Image => s.image.clone().map_or(Value::Null, Value::String),
        SpecField::ImagePullSecrets => opt(&s.image_pull_secrets),
        SpecField::WorkloadType => json!(workload_type(s.workload_type.as_deref())),
        SpecField::Persistence => persistence(opt(&s.persistence)),
        SpecField::Resources => opt(&s.resources),
        SpecField::NodeSelector => opt(&s.node_selector),
        SpecField::Affinity => opt(&s.affinity),
        SpecField::Tolerations => opt(&s.tolerations),
        SpecField::PriorityClassName => opt(&s.priority_class_name),
        SpecField::TopologySpreadConstraints => opt(&s.topology_spread_constraints),
        SpecField::Exporter => opt(&s.exporter),
        SpecField::Containers => opt(&s.containers),
        SpecField::Tls => opt(&s.tls),
        SpecField::Config | SpecField::LiveConfig => opt(&s.config),
        SpecField::PodSecurityContext => opt(&s.pod_security_context),
        SpecField::TerminationGracePeriodSeconds => opt(&s.termination_grace_period_seconds),
    }
}

/// The node's shard and node index, from its labels.
fn place(node: &ValkeyNode) -> Option<(u64, u64)> {
    let shard = node.label(keys::LABEL_SHARD_INDEX)?.parse().ok()?;
    let index = node.label(keys::LABEL_NODE_INDEX)?.parse().ok()?;
    Some((shard, index))
}

/// Both CRDs default `workloadType` to StatefulSet, and the operator reads
/// an empty one so.
fn workload_type(t: Option<&str>) -> &str {
    match t {
        None | Some("") => "StatefulSet",
        Some(t) => t,
    }
}

/// Both CRDs default `persistence.reclaimPolicy` to Retain.
fn persistence(mut p: Value) -> Value {
    if let Some(map) = p.as_object_mut()
        && map
            .get("reclaimPolicy")
            .is_none_or(|r| r.is_null() || r == "")
    {
        map.insert("reclaimPolicy".into(), json!("Retain"));
    }
    p
}

/// The config maps differ: in any key (`live`), or in a key the operator
/// cannot apply live (not `live`).
fn config_differs(want: &Value, have: &Value, live: bool) -> bool {
    let (want, have) = (semantic(want), semantic(have));
    let keys = |v: &Option<Value>| -> Vec<String> {
        v.as_ref()
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    let get = |v: &Option<Value>, k: &str| v.as_ref().and_then(|v| v.get(k)).cloned();
    keys(&want)
        .into_iter()
        .chain(keys(&have))
        .filter(|k| live || !LIVE_CONFIG_KEYS.contains(&k.as_str()))
        .any(|k| get(&want, &k) != get(&have, &k))
}

/// The grace period the operator writes: the user's, else its default
/// (the failover timeout in whole seconds plus a buffer) only where that
/// differs from Kubernetes' 30 s.
fn grace_period(s: &super::ValkeyClusterSpec) -> Value {
    if let Some(g) = s
        .termination_grace_period_seconds
        .as_ref()
        .filter(|g| !g.is_null())
    {
        return g.clone();
    }
    let timeout = s
        .config
        .as_ref()
        .and_then(|c| c.get("cluster-manual-failover-timeout"))
        .and_then(Value::as_str)
        .and_then(|v| v.trim().parse::<i64>().ok())
        .filter(|ms| *ms > 0)
        .map_or(DEFAULT_FAILOVER_TIMEOUT_SECONDS, |ms| {
            ms.saturating_add(999) / 1000
        });
    let grace = timeout.saturating_add(GRACE_BUFFER_SECONDS);
    if grace > DEFAULT_GRACE_SECONDS {
        json!(grace)
    } else {
        Value::Null
    }
}

/// A spread mode the operator curates a constraint for: Required or
/// Preferred (anything else, or nothing, is Disabled).
fn curated(mode: &Value) -> Option<&'static str> {
    match mode.as_str() {
        Some("Required") => Some("Required"),
        Some("Preferred") => Some("Preferred"),
        _ => None,
    }
}

/// The user's node selector, and the zone the operator pins the node to.
fn node_selector(scheduling: &Value, shard: u64, index: u64) -> Value {
    let mut out = scheduling["nodeSelector"].clone();
    let zones: Vec<&Value> = scheduling["zone"]["pinning"]["zones"]
        .as_array()
        .map(|z| z.iter().collect())
        .unwrap_or_default();
    if zones.is_empty() {
        return out;
    }
    let at = (shard.saturating_add(index) % zones.len() as u64) as usize;
    let zone = zones.get(at).map_or(Value::Null, |z| (*z).clone());
    if zone.as_str().is_none_or(str::is_empty) {
        return out;
    }
    if !out.is_object() {
        out = Value::Object(Map::new());
    }
    if let Some(map) = out.as_object_mut() {
        map.insert(LABEL_ZONE.into(), zone);
    }
    out
}

/// The user's affinity, and the shard anti-affinity the operator adds by
/// `scheduling.node.spread.shard.mode`.
fn affinity(scheduling: &Value, cluster: &str, shard: u64) -> Value {
    let base = scheduling["affinity"].clone();
    let Some(mode) = curated(&scheduling["node"]["spread"]["shard"]["mode"]) else {
        return base;
    };
    let mut out = if base.is_object() {
        base
    } else {
        Value::Object(Map::new())
    };
    let term = json!({
        "topologyKey": LABEL_HOSTNAME,
        "labelSelector": {"matchLabels": {
            keys::LABEL_CLUSTER: cluster,
            keys::LABEL_SHARD_INDEX: shard.to_string(),
        }},
    });
    let (list, item) = if mode == "Required" {
        ("requiredDuringSchedulingIgnoredDuringExecution", term)
    } else {
        (
            "preferredDuringSchedulingIgnoredDuringExecution",
            json!({"weight": 100, "podAffinityTerm": term}),
        )
    };
    push(&mut out, &["podAntiAffinity", list], item);
    out
}

/// Appends `item` to the list at `path` in `v`, making what is missing.
fn push(v: &mut Value, path: &[&str], item: Value) {
    let mut at = v;
    for key in path {
        if !at.is_object() {
            *at = Value::Object(Map::new());
        }
        let Some(map) = at.as_object_mut() else {
            return;
        };
        at = map.entry(key.to_string()).or_insert(Value::Null);
    }
    match at {
        Value::Array(items) => items.push(item),
        other => *other = Value::Array(vec![item]),
    }
}

/// The user's topology spread constraints, then the ones the operator
/// curates by `scheduling.node.spread` and `scheduling.zone.spread`.
fn spread_constraints(scheduling: &Value, cluster: &str, shard: u64, index: u64) -> Value {
    let mut out: Vec<Value> = scheduling["topologySpreadConstraints"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let constraint = |topology: &str, mode: &str, labels: Value| {
        let action = if mode == "Required" {
            "DoNotSchedule"
        } else {
            "ScheduleAnyway"
        };
        json!({"maxSkew": 1, "topologyKey": topology, "whenUnsatisfiable": action,
               "labelSelector": {"matchLabels": labels}})
    };
    let cluster_only = json!({ keys::LABEL_CLUSTER: cluster });
    let primaries = json!({ keys::LABEL_CLUSTER: cluster, keys::LABEL_NODE_INDEX: "0" });
    let of_shard =
        json!({ keys::LABEL_CLUSTER: cluster, keys::LABEL_SHARD_INDEX: shard.to_string() });
    let node = &scheduling["node"]["spread"];
    if index == 0
        && let Some(m) = curated(&node["primaries"]["mode"])
    {
        out.push(constraint(LABEL_HOSTNAME, m, primaries.clone()));
    }
    if let Some(m) = curated(&node["pods"]["mode"]) {
        out.push(constraint(LABEL_HOSTNAME, m, cluster_only.clone()));
    }
    let zone = &scheduling["zone"]["spread"];
    if let Some(m) = curated(&zone["shard"]["mode"]) {
        out.push(constraint(LABEL_ZONE, m, of_shard));
    }
    if index == 0
        && let Some(m) = curated(&zone["primaries"]["mode"])
    {
        out.push(constraint(LABEL_ZONE, m, primaries));
    }
    if let Some(m) = curated(&zone["pods"]["mode"]) {
        out.push(constraint(LABEL_ZONE, m, cluster_only));
    }
    Value::Array(out)
}

/// `v` as the operator's comparison sees it: None for an absent, null or
/// zero value (false, 0, "", an empty list or object, or an object of
/// only such values); quantities (the values of `limits` and `requests`,
/// and `size`) by their exact value.
pub(crate) fn semantic(v: &Value) -> Option<Value> {
    semantic_at(v, None)
}

fn semantic_at(v: &Value, key: Option<&str>) -> Option<Value> {
    match v {
        Value::Null | Value::Bool(false) => None,
        Value::Number(n) if n.as_f64() == Some(0.0) && key != Some("size") => None,
        Value::String(s) if s.is_empty() => None,
        Value::String(_) | Value::Number(_) if key == Some("size") => Some(quantity(v)),
        Value::Bool(_) | Value::Number(_) | Value::String(_) => Some(v.clone()),
        Value::Array(items) => {
            let out: Vec<Value> = items
                .iter()
                .map(|i| semantic_at(i, None).unwrap_or(Value::Null))
                .collect();
            (!out.is_empty()).then_some(Value::Array(out))
        }
        Value::Object(map) => {
            let quantities = matches!(key, Some("limits" | "requests"));
            let out: Map<String, Value> = map
                .iter()
                .filter_map(|(k, v)| {
                    let v = if quantities {
                        (!v.is_null()).then(|| quantity(v))
                    } else {
                        semantic_at(v, Some(k))
                    };
                    v.map(|v| (k.clone(), v))
                })
                .collect();
            (!out.is_empty()).then_some(Value::Object(out))
        }
    }
}

/// A Kubernetes quantity by its exact value (`1000m` and `1`, `1024Mi` and
/// `1Gi` alike); one that does not parse stays as written.
fn quantity(v: &Value) -> Value {
    let text = match v {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        other => return other.clone(),
    };
    match parse_quantity(&text) {
        Some((n, e)) => json!({ "quantity": format!("{n}e{e}") }),
        None => v.clone(),
    }
}

/// A quantity's value as `n * 10^e`, reduced (`n` has no trailing zero):
/// sign, digits with at most one point, then a binary suffix (Ki .. Ei), a
/// decimal one (n u m k M G T P E) or an exponent (e3, E-2).
fn parse_quantity(text: &str) -> Option<(i128, i32)> {
    let (sign, rest) = match text.as_bytes().first()? {
        b'-' => (-1i128, &text[1..]),
        b'+' => (1, &text[1..]),
        _ => (1, text),
    };
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(end);
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && frac.is_empty() {
        return None;
    }
    let digits = format!("{whole}{frac}");
    let mut n: i128 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    let mut e: i32 = -i32::try_from(frac.len()).ok()?;
    let binary = |k: u32| 1024i128.checked_pow(k);
    match suffix {
        "" => {}
        "Ki" => n = n.checked_mul(binary(1)?)?,
        "Mi" => n = n.checked_mul(binary(2)?)?,
        "Gi" => n = n.checked_mul(binary(3)?)?,
        "Ti" => n = n.checked_mul(binary(4)?)?,
        "Pi" => n = n.checked_mul(binary(5)?)?,
        "Ei" => n = n.checked_mul(binary(6)?)?,
        "n" => e -= 9,
        "u" => e -= 6,
        "m" => e -= 3,
        "k" => e += 3,
        "M" => e += 6,
        "G" => e += 9,
        "T" => e += 12,
        "P" => e += 15,
        "E" => e += 18,
        s if s.starts_with(['e', 'E']) => {
            let exp: i32 = s[1..].parse().ok()?;
            e = e.checked_add(exp)?;
        }
        _ => return None,
    }
    if n == 0 {
        return Some((0, 0));
    }
    while n % 10 == 0 {
        n /= 10;
        e = e.checked_add(1)?;
    }
    Some((sign * n, e))
}

#[cfg(test)]
mod tests;
