//! The exporter's `/metrics` and `/readyz`: what the exporter last saw of
//! each kubeconfig context, as Prometheus metrics (docs/metrics.md).
//!
//! Pure: the contexts' state and the scrape's clock in, the Prometheus text
//! format (0.0.4, what Prometheus and `promtool check metrics` read) out,
//! written by the Prometheus project's client (`prometheus-client`). The
//! serving layer (`commands::exporter`) only keeps the state and calls this.
//!
//! What is exported:
//! - per ValkeyCluster, only while its context's view is whole (every kind
//!   listed and watched, every object readable) and judged: the verdict as
//!   a state set, the protocol, node counts by state, progress, the
//!   estimate, one series per holder (never one per node at rest), the
//!   front, the quiet time, a failover under way, a silent operator. A
//!   cluster that goes, or a view that is not whole, has no series: absent
//!   rather than last known (Prometheus marks them stale);
//! - per context, the exporter's own health: each kind's watch up or down
//!   and its last event, errors by kind of error, whether the view is whole,
//!   and when it was last judged.
//!
//! Durations that only the clock moves (a holder's time, the quiet time,
//! the operator's) are as of the scrape: the judged value plus the time
//! since the judgement (nothing has changed since, or the view would have
//! been judged again).

use crate::render::notice::{context_words, in_context};
use crate::render::style::{clean, needs_cleaning};
use crate::report::{NodeState, Verdict};
use jiff::Timestamp;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;
use std::sync::Arc;

/// The `Content-Type` of [`metrics_text`].
pub(crate) const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// One kubeconfig context as the exporter last saw it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ContextView {
    /// The context's name, the `context` label (empty: the kubeconfig names
    /// none, as in a pod).
    pub context: String,
    /// The roll as last judged, while the view is whole; `None` otherwise
    /// (no cluster series then).
    pub judged: Option<Judged>,
    /// Each kind's watch, in the order the reader lists them.
    pub kinds: Vec<KindView>,
    /// Errors since the exporter started, by kind of error (every kind,
    /// zero included, in [`ErrorKind::ALL`] order).
    pub errors: Vec<(ErrorKind, u64)>,
    /// Why the view is not whole, one line each, for `/readyz`; empty when
    /// it is.
    pub blind: Vec<String>,
}

impl ContextView {
    /// A context nothing is known of yet: every kind down, no error.
    pub(crate) fn new(context: &str, resources: &[&'static str]) -> ContextView {
        ContextView {
            context: context.to_string(),
            judged: None,
            kinds: resources
                .iter()
                .map(|&resource| KindView {
                    resource,
                    up: false,
                    last_event: None,
                })
                .collect(),
            errors: ErrorKind::ALL.iter().map(|&k| (k, 0)).collect(),
            blind: vec![NOT_LISTED_YET.to_string()],
        }
    }

    /// Counts one error of `kind`.
    pub(crate) fn count(&mut self, kind: ErrorKind) {
        match self.errors.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => self.errors.push((kind, 1)),
        }
    }
}

/// A judged view: what the metrics say of each cluster, and when it was
/// judged.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Judged {
    pub clusters: Arc<[ClusterSummary]>,
    pub at: Timestamp,
}

impl Judged {
    /// The summary of `report`, judged `at` (the exporter keeps each
    /// cluster's summary as it judges it, `live::judgements`).
    #[cfg(test)]
    pub(crate) fn of(report: &crate::report::Report, at: Timestamp) -> Judged {
        Judged {
            clusters: report.clusters.iter().map(ClusterSummary::of).collect(),
            at,
        }
    }
}

/// What the metrics say of one cluster, taken from its report.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ClusterSummary {
    pub namespace: String,
    pub name: String,
    pub verdict: Verdict,
    pub protocol: crate::report::Protocol,
    /// Nodes per state, in [`STATES`] order.
    pub states: [usize; 8],
    pub done: Option<usize>,
    pub total: usize,
    pub eta_seconds: Option<u64>,
    /// Each holder and how long it held, when known.
    pub holders: Vec<(String, Option<u64>)>,
    pub front: Option<String>,
    pub quiet_for_seconds: Option<u64>,
    pub failover: bool,
    /// The node the operator has not acted on, and for how long.
    pub operator: Option<(String, u64)>,
    /// When this cluster was judged, where it was judged apart from the
    /// rest of its view (the exporter judges again only the clusters that
    /// changed); `None`: when the view was ([`Judged::at`]).
    pub at: Option<Timestamp>,
    /// The shards at risk (the report's `risks`), each once.
    pub risks: Vec<ShardRisk>,
    /// What the last reading of the cluster's servers gave (`exporter
    /// --servers`); `None` when they are not read, or not yet.
    pub servers: Option<ServersSummary>,
}

/// A shard at risk: `valkey_roll_shard_at_risk`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ShardRisk {
    pub shard: u32,
    /// The shard's primary; `None` when it is not known.
    pub primary: Option<String>,
    pub kind: crate::report::RiskKind,
}

/// The servers of a cluster as last read: how many answered, and how many
/// did not, by the `reason` label of why (each label once, only those with
/// a server: several failures share one, as `tls_refused` does each
/// certificate's reason).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ServersSummary {
    pub read: usize,
    pub unread: Vec<(&'static str, usize)>,
}

impl ServersSummary {
    /// The summary of one cluster's reading: `pods` servers were to be
    /// read (all of them unread when the cluster could not be read at all:
    /// its Secret, TLS).
    pub(crate) fn of(account: &crate::snapshot::ClusterServers, pods: usize) -> ServersSummary {
        let mut unread: std::collections::BTreeMap<&'static str, usize> = Default::default();
        match &account.trouble {
            Some(f) => *unread.entry(unread_reason(f)).or_default() += pods,
            None => {
                for (_, f) in &account.failed {
                    *unread.entry(unread_reason(f)).or_default() += 1;
                }
            }
        }
        unread.retain(|_, n| *n > 0);
        ServersSummary {
            read: account.read,
            unread: unread.into_iter().collect(),
        }
    }
}

/// The `kind` label of a shard at risk: the JSON's word for it.
pub(crate) fn risk_kind(k: crate::report::RiskKind) -> &'static str {
    use crate::report::RiskKind;
    match k {
        RiskKind::NoReadyReplica => "NoReadyReplica",
        RiskKind::NoSyncedReplica => "NoSyncedReplica",
        RiskKind::ClusterStateFail => "ClusterStateFail",
    }
}

/// The `reason` label of a server not read: the reading's `error` code
/// (docs/servers.md) in the words of a label.
pub(crate) fn unread_reason(f: &crate::snapshot::Failure) -> &'static str {
    use crate::snapshot::Failure;
    match f {
        Failure::Forbidden => "forbidden",
        Failure::NoReadOnlyUser => "no_read_only_user",
        Failure::AuthRefused => "auth_refused",
        Failure::Unreachable => "unreachable",
        Failure::TimedOut => "timed_out",
        Failure::TooLarge => "reply_too_large",
        Failure::BadReply => "bad_reply",
        Failure::ClosedEarly => "closed_early",
        Failure::Tls => "tls",
        Failure::TlsRefused(_) => "tls_refused",
        Failure::CaUnread(_) => "ca_unread",
    }
}

impl ClusterSummary {
    pub(crate) fn of(r: &crate::report::ClusterReport) -> ClusterSummary {
        let mut states = [0; 8];
        for n in &r.nodes {
            if let Some(i) = STATES.iter().position(|s| *s == n.state) {
                states[i] += 1;
            }
        }
        ClusterSummary {
            namespace: r.namespace.clone(),
            name: r.name.clone(),
            verdict: r.verdict,
            protocol: r.protocol,
            states,
            done: r.done,
            total: r.total,
            eta_seconds: r.eta_seconds,
            holders: r
                .holders
                .iter()
                .map(|h| {
                    let held = r
                        .nodes
                        .iter()
                        .find(|n| &n.name == h)
                        .and_then(|n| n.held_for_seconds);
                    (h.clone(), held)
                })
                .collect(),
            front: r.front.clone(),
            quiet_for_seconds: r.quiet_for_seconds,
            failover: r.failover.is_some(),
            operator: r
                .operator
                .as_ref()
                .map(|o| (o.node.clone(), o.quiet_for_seconds)),
            at: None,
            risks: {
                let mut risks: Vec<ShardRisk> = r
                    .risks
                    .iter()
                    .map(|k| ShardRisk {
                        shard: k.shard,
                        primary: k.primary.clone(),
                        kind: k.kind,
                    })
                    .collect();
                // One series each: a label set is never written twice.
                risks.sort_by(|a, b| {
                    (a.shard, &a.primary, risk_kind(a.kind)).cmp(&(
                        b.shard,
                        &b.primary,
                        risk_kind(b.kind),
                    ))
                });
                risks.dedup();
                risks
            },
            servers: None,
        }
    }
}

/// One kind's watch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KindView {
    /// `valkeyclusters`, `pods`...
    pub resource: &'static str,
    pub up: bool,
    /// The last time its objects changed as the watch saw them.
    pub last_event: Option<Timestamp>,
}

/// What kind of error the exporter met (the `error` label): a closed set,
/// so the series stay few.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    /// The API server could not be reached (refused, timed out, TLS).
    Unreachable,
    /// 401: the credentials were rejected.
    Unauthorized,
    /// 403: a kind the exporter may not list or watch.
    Forbidden,
    /// A CRD or a namespace that does not exist.
    NotFound,
    /// Any other answer of the API server.
    Api,
    /// An object that breaks the schema (bad data in the cluster).
    BadData,
    /// The kubeconfig entry of the context could not be used.
    Kubeconfig,
}

impl ErrorKind {
    pub(crate) const ALL: [ErrorKind; 7] = [
        ErrorKind::Unreachable,
        ErrorKind::Unauthorized,
        ErrorKind::Forbidden,
        ErrorKind::NotFound,
        ErrorKind::Api,
        ErrorKind::BadData,
        ErrorKind::Kubeconfig,
    ];

    pub(crate) fn label(self) -> &'static str {
        match self {
            ErrorKind::Unreachable => "unreachable",
            ErrorKind::Unauthorized => "unauthorized",
            ErrorKind::Forbidden => "forbidden",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Api => "api",
            ErrorKind::BadData => "bad_data",
            ErrorKind::Kubeconfig => "kubeconfig",
        }
    }
}

/// Every verdict, in the order the state set lists them.
const VERDICTS: [Verdict; 6] = Verdict::ALL;

/// Every node state, in PLUGIN.md's order.
const STATES: [NodeState; 8] = NodeState::ALL;

/// The version and commit of this build, for `valkey_roll_exporter_build_info`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Build {
    pub version: &'static str,
    pub commit: &'static str,
}

/// The whole `/metrics` answer at `now`.
pub(crate) fn metrics_text(contexts: &[ContextView], build: Build, now: Timestamp) -> String {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Metrics {
        contexts: contexts.to_vec(),
        build,
        now,
    }));
    let mut out = String::with_capacity(4096);
    // Writing into a String cannot fail, and the collector's own encoding
    // only fails when the writer does.
    let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &registry);
    out
}

/// `/readyz`: ready when every context's view is whole and judged; the
/// text names each context and what it cannot see.
pub(crate) fn readiness(contexts: &[ContextView]) -> (bool, String) {
    let mut ready = true;
    let mut text = String::new();
    for c in contexts {
        let name = context_name(&c.context);
        if c.blind.is_empty() && c.judged.is_some() {
            text.push_str(&format!("{name}: ready\n"));
        } else {
            ready = false;
            let why = if c.blind.is_empty() {
                vec!["not judged yet".to_string()]
            } else {
                c.blind.clone()
            };
            for line in why {
                text.push_str(&format!("{name}: not ready: {}\n", clean(&line)));
            }
        }
    }
    if contexts.is_empty() {
        ready = false;
        text.push_str("no context\n");
    }
    (ready, text)
}

/// How a context is named in words (`/readyz`, the log): its label is
/// empty for the current context (a `--context` is never empty).
pub(crate) fn context_name(context: &str) -> String {
    context_words((!context.is_empty()).then_some(context))
}

/// The exporter's first log line: where it serves, and what it watches (in
/// `namespace`, every namespace for `None`, of each context).
pub(crate) fn serving(
    address: std::net::SocketAddr,
    namespace: Option<&str>,
    contexts: &[Option<&str>],
) -> String {
    let scope = match namespace {
        Some(ns) => format!("namespace {ns}"),
        None => "all namespaces".to_string(),
    };
    let contexts: Vec<String> = contexts.iter().map(|c| context_words(*c)).collect();
    format!(
        "serving metrics on http://{address}/metrics (/healthz, /readyz); watching ValkeyClusters in {scope} of {}\n",
        contexts.join(", ")
    )
}

/// Why a kind's watch leaves the view not whole, one `/readyz` line:
/// `pods: WHY` (its last error, a one-shot read's words), or `pods: not
/// listed yet` before its first answer.
pub(crate) fn kind_down(resource: &str, error: Option<&str>) -> String {
    match error {
        Some(e) => format!("{resource}: {e}"),
        None => format!("{resource}: {NOT_LISTED_YET}"),
    }
}

/// A watch (or the whole view) before its first LIST answered.
const NOT_LISTED_YET: &str = "not listed yet";

/// The exporter's log line when a context's readiness changes: `context
/// eu: ready`, or `context eu: not ready: WHY; WHY`.
pub(crate) fn readiness_news(context: Option<&str>, blind: &[String]) -> String {
    if blind.is_empty() {
        in_context(context, "ready\n")
    } else {
        // An error's words are the API server's too: each on one line.
        let blind: Vec<String> = blind.iter().map(|b| clean(b)).collect();
        in_context(context, &format!("not ready: {}\n", blind.join("; ")))
    }
}

/// The exporter's log lines when what it could read of a cluster's
/// servers changes: `unread`, the lines of the servers not read
/// ([`crate::render::notice::servers_unread`]), each said in its context
/// and namespace; when it is empty, that every server was read again.
pub(crate) fn servers_news(
    context: Option<&str>,
    namespace: &str,
    cluster: &str,
    unread: &str,
) -> String {
    if unread.is_empty() {
        return in_context(
            context,
            &format!("namespace {namespace}: every server of cluster {cluster} read again\n"),
        );
    }
    unread
        .lines()
        .map(|l| {
            let l = l.strip_prefix("warning: ").unwrap_or(l);
            in_context(context, &format!("namespace {namespace}: {l}\n"))
        })
        .collect()
}

/// The exporter's log line when every watch of a context stopped (it
/// never should) and it starts them again.
pub(crate) fn watches_restarted(context: Option<&str>) -> String {
    in_context(context, "every watch stopped; starting again\n")
}

#[derive(Debug)]
struct Metrics {
    contexts: Vec<ContextView>,
    build: Build,
    now: Timestamp,
}

type Labels = Vec<(&'static str, String)>;

/// One metric family: its series, written in order.
struct Family {
    name: &'static str,
    help: &'static str,
    kind: MetricType,
    series: Vec<(Labels, f64)>,
}

impl Family {
    fn gauge(name: &'static str, help: &'static str) -> Family {
        Family {
            name,
            help,
            kind: MetricType::Gauge,
            series: Vec::new(),
        }
    }

    fn counter(name: &'static str, help: &'static str) -> Family {
        Family {
            kind: MetricType::Counter,
            ..Family::gauge(name, help)
        }
    }

    fn push(&mut self, labels: Labels, value: f64) {
        self.series.push((labels, value));
    }

    fn encode(&self, encoder: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let mut metric = encoder.encode_descriptor(self.name, self.help, None, self.kind)?;
        for (labels, value) in &self.series {
            let family = metric.encode_family(labels)?;
            // Whole numbers are written as such (`1`, not `1.0`).
            let whole = value.is_finite() && value.fract() == 0.0 && value.abs() < 9.0e15;
            match self.kind {
                MetricType::Counter => ConstCounter::new(*value as u64).encode(family)?,
                _ if whole => ConstGauge::new(*value as i64).encode(family)?,
                _ => ConstGauge::new(*value).encode(family)?,
            }
        }
        Ok(())
    }
}

impl Metrics {
    fn families(&self) -> Vec<Family> {
        let mut verdict = Family::gauge(
            "valkey_roll_verdict",
            "The roll's verdict as a state set: 1 for the current verdict, 0 for the others.",
        );
        let mut info = Family::gauge(
            "valkey_roll_info",
            "1 for every ValkeyCluster in view, with the protocol it speaks (P1, P2, unknown).",
        );
        let mut nodes = Family::gauge("valkey_roll_nodes", "The cluster's nodes in each state.");
        let mut done = Family::gauge(
            "valkey_roll_done_nodes",
            "The nodes of the current roll that have rolled (absent when that cannot be told).",
        );
        let mut total = Family::gauge(
            "valkey_roll_total_nodes",
            "The nodes that take part in the roll (standalone nodes are not counted).",
        );
        let mut eta = Family::gauge(
            "valkey_roll_eta_seconds",
            "The estimated time until the roll is done, as last judged (absent when unknown).",
        );
        let mut holder = Family::gauge(
            "valkey_roll_holder_seconds",
            "For each node that holds the permit (is in flight): how long it has held it (NaN when the grant time is unknown).",
        );
        let mut front = Family::gauge(
            "valkey_roll_front",
            "1 for the node at the front of the walk: the next the roll waits on.",
        );
        let mut quiet = Family::gauge(
            "valkey_roll_quiet_seconds",
            "How long nothing in the roll has moved (absent when unknown).",
        );
        let mut failover = Family::gauge(
            "valkey_roll_failover_in_progress",
            "1 while a failover is under way in the cluster, else 0.",
        );
        let mut operator = Family::gauge(
            "valkey_roll_operator_quiet_seconds",
            "How long the operator has not acted on a node in flight whose pod is Ready (absent while it acts).",
        );
        let mut at_risk = Family::gauge(
            "valkey_roll_shard_at_risk",
            "1 for each shard at risk, by kind: its primary has no Ready replica (NoReadyReplica), no synced replica by its servers (NoSyncedReplica), or a server says cluster_state is not ok (ClusterStateFail); absent otherwise.",
        );
        let mut servers_read = Family::gauge(
            "valkey_roll_servers_read",
            "The cluster's Valkey servers read at the last reading (exporter --servers).",
        );
        let mut servers_unread = Family::gauge(
            "valkey_roll_servers_unread",
            "The cluster's Valkey servers not read at the last reading (exporter --servers), by reason; absent for a reason no server had.",
        );
        let mut up = Family::gauge(
            "valkey_roll_exporter_watch_up",
            "1 while the exporter lists and watches this kind in this context, else 0.",
        );
        let mut last_event = Family::gauge(
            "valkey_roll_exporter_last_event_timestamp_seconds",
            "When the watch of this kind last saw a change (Unix time).",
        );
        let mut errors = Family::counter(
            "valkey_roll_exporter_errors",
            "Errors met since the exporter started, by kind of error.",
        );
        let mut ready = Family::gauge(
            "valkey_roll_exporter_ready",
            "1 while the context's view is whole and judged (its cluster series are exported), else 0.",
        );
        let mut judged = Family::gauge(
            "valkey_roll_exporter_last_judged_timestamp_seconds",
            "When the context's view was last judged (Unix time).",
        );
        let mut build = Family::gauge(
            "valkey_roll_exporter_build_info",
            "1, with the exporter's version and commit.",
        );
        build.push(
            vec![
                ("version", self.build.version.to_string()),
                ("commit", self.build.commit.to_string()),
            ],
            1.0,
        );

        for c in &self.contexts {
            let context = label(&c.context);
            let whole = c.blind.is_empty() && c.judged.is_some();
            if let Some(j) = c.judged.as_ref().filter(|_| whole) {
                judged.push(vec![("context", context.clone())], unix(j.at));
                for r in j.clusters.iter() {
                    let at = r.at.unwrap_or(j.at);
                    let elapsed = self.now.duration_since(at).as_secs().max(0) as f64;
                    let base: Labels = vec![
                        ("context", context.clone()),
                        ("namespace", label(&r.namespace)),
                        ("cluster", label(&r.name)),
                    ];
                    let with = |name: &'static str, value: String| {
                        let mut l = base.clone();
                        l.push((name, value));
                        l
                    };
                    for v in VERDICTS {
                        let on = if r.verdict == v { 1.0 } else { 0.0 };
                        verdict.push(with("verdict", v.to_string()), on);
                    }
                    info.push(with("protocol", r.protocol.to_string()), 1.0);
                    for (s, n) in STATES.iter().zip(r.states) {
                        nodes.push(with("state", s.to_string()), n as f64);
                    }
                    if let Some(d) = r.done {
                        done.push(base.clone(), d as f64);
                    }
                    total.push(base.clone(), r.total as f64);
                    if let Some(e) = r.eta_seconds {
                        eta.push(base.clone(), e as f64);
                    }
                    for (name, held) in &r.holders {
                        let held = held.map_or(f64::NAN, |s| s as f64 + elapsed);
                        holder.push(with("node", label(name)), held);
                    }
                    if let Some(f) = &r.front {
                        front.push(with("node", label(f)), 1.0);
                    }
                    if let Some(q) = r.quiet_for_seconds {
                        quiet.push(base.clone(), q as f64 + elapsed);
                    }
                    failover.push(base.clone(), if r.failover { 1.0 } else { 0.0 });
                    if let Some((node, secs)) = &r.operator {
                        operator.push(with("node", label(node)), *secs as f64 + elapsed);
                    }
                    for k in &r.risks {
                        let mut l = with("shard", k.shard.to_string());
                        l.push((
                            "primary",
                            k.primary.as_deref().map(label).unwrap_or_default(),
                        ));
                        l.push(("kind", risk_kind(k.kind).to_string()));
                        at_risk.push(l, 1.0);
                    }
                    if let Some(s) = &r.servers {
                        servers_read.push(base.clone(), s.read as f64);
                        for (why, n) in &s.unread {
                            servers_unread.push(with("reason", why.to_string()), *n as f64);
                        }
                    }
                }
            }
            ready.push(
                vec![("context", context.clone())],
                if whole { 1.0 } else { 0.0 },
            );
            for k in &c.kinds {
                let labels = vec![
                    ("context", context.clone()),
                    ("resource", k.resource.to_string()),
                ];
                if let Some(at) = k.last_event {
                    last_event.push(labels.clone(), unix(at));
                }
                up.push(labels, if k.up { 1.0 } else { 0.0 });
            }
            for (kind, n) in &c.errors {
                errors.push(
                    vec![
                        ("context", context.clone()),
                        ("error", kind.label().to_string()),
                    ],
                    *n as f64,
                );
            }
        }
        vec![
            verdict,
            info,
            nodes,
            done,
            total,
            eta,
            holder,
            front,
            quiet,
            failover,
            operator,
            at_risk,
            servers_read,
            servers_unread,
            up,
            last_event,
            errors,
            ready,
            judged,
            build,
        ]
    }
}

/// A name as a label value: what must not be printed raw (a control or
/// invisible character, layout white space included) as its code, as
/// [`crate::render::style::clean`] shows it (`\u{1b}`), but one to one,
/// so two names are never one label (issue 30, item 9: contexts `a<TAB>b`
/// and `a b` were both `a b`, a duplicate series that Prometheus drops):
/// a tab is `\u{9}`, not a space, and a backslash the name holds before
/// `u{` is `\u{5c}`, so a name that spells a code is not the character.
fn label(name: &str) -> String {
    let spells_code = |at: usize| name[at + 1..].starts_with("u{");
    let escaped = |(at, c): &(usize, char)| needs_cleaning(*c) || (*c == '\\' && spells_code(*at));
    if !name.char_indices().any(|ic| escaped(&ic)) {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len() + 8);
    for ic in name.char_indices() {
        if escaped(&ic) {
            out.extend(ic.1.escape_unicode());
        } else {
            out.push(ic.1);
        }
    }
    out
}

/// Unix time in seconds, to the millisecond.
fn unix(t: Timestamp) -> f64 {
    t.as_millisecond() as f64 / 1000.0
}

impl Collector for Metrics {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        for family in self.families() {
            // A family with no series says nothing: leave it out, as a
            // client library leaves out a metric vector never set.
            if !family.series.is_empty() {
                family.encode(&mut encoder)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each failure's `reason` label is a label (lower case and `_`), and
    /// a TLS server refused is `tls_refused` whatever the refusal (issue
    /// 44), apart from a TLS cluster with no CA (`tls`) and a CA that
    /// cannot be had (`ca_unread`).
    #[test]
    fn each_unread_reason_is_a_label() {
        use crate::snapshot::{CaTrouble, Failure, TlsRefusal};
        for f in Failure::all() {
            let label = unread_reason(&f);
            assert!(
                !label.is_empty() && label.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{f:?}: {label}"
            );
        }
        for why in TlsRefusal::ALL {
            assert_eq!(unread_reason(&Failure::TlsRefused(why)), "tls_refused");
        }
        assert_eq!(unread_reason(&Failure::Tls), "tls");
        assert_eq!(
            unread_reason(&Failure::CaUnread(CaTrouble::Forbidden)),
            "ca_unread"
        );
    }

    #[test]
    fn a_kind_down_says_why_or_that_it_is_not_listed_yet() {
        let cases = [
            (
                Some("cannot reach the API server"),
                "pods: cannot reach the API server",
            ),
            (None, "pods: not listed yet"),
        ];
        for (error, want) in cases {
            assert_eq!(kind_down("pods", error), want);
        }
    }
    use crate::fixture::sample::{converged, jammed};
    use crate::report::{FailoverSource, FailoverUnderWay, OperatorSilence, Report};

    const BUILD: Build = Build {
        version: "0.1.0",
        commit: "abc",
    };
    const RESOURCES: [&str; 2] = ["valkeyclusters", "pods"];

    fn t(secs: i64) -> Timestamp {
        crate::fixture::t(secs)
    }

    /// A whole view of `report`, judged at t(0).
    fn whole(context: &str, report: Report) -> ContextView {
        let mut view = ContextView::new(context, &RESOURCES);
        for k in &mut view.kinds {
            k.up = true;
            k.last_event = Some(t(-5));
        }
        view.blind.clear();
        view.judged = Some(Judged::of(&report, t(0)));
        view
    }

    /// The sample lines of `text` (no comments).
    fn samples(text: &str) -> Vec<&str> {
        text.lines().filter(|l| !l.starts_with('#')).collect()
    }

    fn has(text: &str, line: &str) -> bool {
        samples(text).contains(&line)
    }

    /// How many samples of `text` start with `prefix`.
    fn count(text: &str, prefix: &str) -> usize {
        samples(text)
            .iter()
            .filter(|l| l.starts_with(prefix))
            .count()
    }

    #[test]
    fn a_jammed_roll_as_metrics() {
        let text = metrics_text(&[whole("eu", jammed())], BUILD, t(60));
        let c = r#"context="eu",namespace="prod",cluster="cache""#;
        for want in [
            format!(r#"valkey_roll_verdict{{{c},verdict="Jammed"}} 1"#),
            format!(r#"valkey_roll_verdict{{{c},verdict="Rolling"}} 0"#),
            format!(r#"valkey_roll_verdict{{{c},verdict="Converged"}} 0"#),
            format!(r#"valkey_roll_info{{{c},protocol="P1"}} 1"#),
            format!(r#"valkey_roll_nodes{{{c},state="Stuck"}} 1"#),
            format!(r#"valkey_roll_nodes{{{c},state="Waiting"}} 4"#),
            format!(r#"valkey_roll_nodes{{{c},state="Converged"}} 1"#),
            format!(r#"valkey_roll_nodes{{{c},state="Rolling"}} 0"#),
            format!(r#"valkey_roll_done_nodes{{{c}}} 1"#),
            format!(r#"valkey_roll_total_nodes{{{c}}} 6"#),
            // Held 840 s when judged, a minute before the scrape.
            format!(r#"valkey_roll_holder_seconds{{{c},node="cache-1-1"}} 900"#),
            format!(r#"valkey_roll_front{{{c},node="cache-0-0"}} 1"#),
            format!(r#"valkey_roll_quiet_seconds{{{c}}} 900"#),
            format!(r#"valkey_roll_failover_in_progress{{{c}}} 0"#),
            r#"valkey_roll_exporter_ready{context="eu"} 1"#.to_string(),
            r#"valkey_roll_exporter_watch_up{context="eu",resource="pods"} 1"#.to_string(),
            r#"valkey_roll_exporter_errors_total{context="eu",error="forbidden"} 0"#.to_string(),
            r#"valkey_roll_exporter_build_info{version="0.1.0",commit="abc"} 1"#.to_string(),
        ] {
            assert!(has(&text, &want), "missing {want}\n{text}");
        }
        // Six verdicts and eight node states per cluster; one series per
        // holder, none for a node at rest; no estimate for a jam.
        let count = |prefix: &str| count(&text, prefix);
        assert_eq!(count("valkey_roll_verdict{"), 6);
        assert_eq!(count("valkey_roll_nodes{"), 8);
        assert_eq!(count("valkey_roll_holder_seconds{"), 1);
        assert_eq!(count("valkey_roll_eta_seconds"), 0);
        assert_eq!(count("valkey_roll_operator_quiet_seconds"), 0);
        assert!(
            !text.contains("cache-2-0"),
            "a node at rest has no series\n{text}"
        );
        // Every family says what it is.
        assert!(
            text.contains("# TYPE valkey_roll_verdict gauge\n"),
            "{text}"
        );
        assert!(
            text.contains("# TYPE valkey_roll_exporter_errors_total counter\n"),
            "{text}"
        );
    }

    #[test]
    fn failover_operator_and_estimate() {
        let mut report = converged();
        let c = &mut report.clusters[0];
        c.verdict = Verdict::Rolling;
        c.eta_seconds = Some(120);
        c.failover = Some(FailoverUnderWay {
            shard: Some(0),
            from: None,
            to: None,
            since: None,
            source: FailoverSource::Event,
            for_seconds: 2,
        });
        c.operator = Some(OperatorSilence {
            quiet_for_seconds: 53,
            node: "sessions-0-1".into(),
            after: crate::report::SilentAfter::PodReady,
            lease: None,
        });
        let text = metrics_text(&[whole("", report)], BUILD, t(7));
        let c = r#"context="",namespace="prod",cluster="sessions""#;
        for want in [
            format!(r#"valkey_roll_eta_seconds{{{c}}} 120"#),
            format!(r#"valkey_roll_failover_in_progress{{{c}}} 1"#),
            format!(r#"valkey_roll_operator_quiet_seconds{{{c},node="sessions-0-1"}} 60"#),
            format!(r#"valkey_roll_verdict{{{c},verdict="Rolling"}} 1"#),
        ] {
            assert!(has(&text, &want), "missing {want}\n{text}");
        }
    }

    #[test]
    fn shards_at_risk_and_servers_not_read() {
        use crate::report::{Risk, RiskKind};
        use crate::snapshot::{ClusterServers, Failure, TlsRefusal};
        let risk = |kind, shard, primary: Option<&str>| Risk {
            kind,
            shard,
            primary: primary.map(str::to_string),
            since: None,
            for_seconds: None,
            replicas: None,
        };
        let mut report = converged();
        report.clusters[0].risks = vec![
            risk(RiskKind::NoReadyReplica, 1, Some("sessions-1-0")),
            risk(RiskKind::NoSyncedReplica, 1, Some("sessions-1-0")),
            risk(RiskKind::NoReadyReplica, 2, None),
            // Said twice: one series.
            risk(RiskKind::NoReadyReplica, 2, None),
        ];
        let mut view = whole("", report.clone());
        let account = ClusterServers {
            namespace: "prod".into(),
            cluster: "sessions".into(),
            trouble: None,
            read: 4,
            failed: vec![
                ("p1".into(), Failure::TimedOut),
                ("p2".into(), Failure::AuthRefused),
                ("p3".into(), Failure::TimedOut),
                // Two reasons of one label: one series (a scrape with a
                // series twice is not valid exposition).
                ("p4".into(), Failure::TlsRefused(TlsRefusal::Expired)),
                ("p5".into(), Failure::TlsRefused(TlsRefusal::WrongName)),
            ],
        };
        if let Some(j) = view.judged.as_mut() {
            let mut clusters = j.clusters.to_vec();
            clusters[0].servers = Some(ServersSummary::of(&account, 7));
            j.clusters = clusters.into();
        }
        let text = metrics_text(&[view], BUILD, t(7));
        let c = r#"context="",namespace="prod",cluster="sessions""#;
        for want in [
            format!(
                r#"valkey_roll_shard_at_risk{{{c},shard="1",primary="sessions-1-0",kind="NoReadyReplica"}} 1"#
            ),
            format!(
                r#"valkey_roll_shard_at_risk{{{c},shard="1",primary="sessions-1-0",kind="NoSyncedReplica"}} 1"#
            ),
            format!(
                r#"valkey_roll_shard_at_risk{{{c},shard="2",primary="",kind="NoReadyReplica"}} 1"#
            ),
            format!(r#"valkey_roll_servers_read{{{c}}} 4"#),
            format!(r#"valkey_roll_servers_unread{{{c},reason="auth_refused"}} 1"#),
            format!(r#"valkey_roll_servers_unread{{{c},reason="timed_out"}} 2"#),
            format!(r#"valkey_roll_servers_unread{{{c},reason="tls_refused"}} 2"#),
        ] {
            assert!(has(&text, &want), "missing {want}\n{text}");
        }
        let count = |prefix: &str| count(&text, prefix);
        assert_eq!(count("valkey_roll_shard_at_risk{"), 3, "{text}");
        assert_eq!(count("valkey_roll_servers_unread{"), 3, "{text}");

        // A cluster whose Secret cannot be read: every server unread, for
        // that reason.
        let none = ClusterServers {
            trouble: Some(Failure::NoReadOnlyUser),
            read: 0,
            failed: Vec::new(),
            ..account
        };
        assert_eq!(
            ServersSummary::of(&none, 7),
            ServersSummary {
                read: 0,
                unread: vec![("no_read_only_user", 7)]
            }
        );
        // No risk, servers not read: no series of either (a family with
        // no series is not declared).
        let text = metrics_text(&[whole("", converged())], BUILD, t(7));
        for family in [
            "valkey_roll_shard_at_risk",
            "valkey_roll_servers_read",
            "valkey_roll_servers_unread",
        ] {
            assert!(!text.contains(family), "{family}: {text}");
        }
    }

    #[test]
    fn a_view_that_is_not_whole_exports_no_cluster_and_says_why() {
        let mut lost = whole("eu", jammed());
        lost.kinds[1].up = false;
        lost.blind = vec!["pods: cannot reach the API server".into()];
        lost.count(ErrorKind::Unreachable);
        lost.count(ErrorKind::Unreachable);
        let fresh = ContextView::new("us", &RESOURCES);
        let views = [lost, fresh, whole("ap", converged())];
        let text = metrics_text(&views, BUILD, t(1));
        assert!(!text.contains(r#"context="eu",namespace"#), "{text}");
        assert!(!text.contains(r#"context="us",namespace"#), "{text}");
        assert!(
            has(
                &text,
                r#"valkey_roll_verdict{context="ap",namespace="prod",cluster="sessions",verdict="Converged"} 1"#
            ),
            "{text}"
        );
        for want in [
            r#"valkey_roll_exporter_ready{context="eu"} 0"#,
            r#"valkey_roll_exporter_ready{context="us"} 0"#,
            r#"valkey_roll_exporter_ready{context="ap"} 1"#,
            r#"valkey_roll_exporter_watch_up{context="eu",resource="pods"} 0"#,
            r#"valkey_roll_exporter_watch_up{context="eu",resource="valkeyclusters"} 1"#,
            r#"valkey_roll_exporter_watch_up{context="us",resource="pods"} 0"#,
            r#"valkey_roll_exporter_errors_total{context="eu",error="unreachable"} 2"#,
        ] {
            assert!(has(&text, want), "missing {want}\n{text}");
        }
        // A kind never seen has no last event.
        assert!(
            !text.contains(r#"last_event_timestamp_seconds{context="us""#),
            "{text}"
        );
        let (ready, why) = readiness(&views);
        assert!(!ready);
        assert_eq!(
            why,
            "context eu: not ready: pods: cannot reach the API server\n\
             context us: not ready: not listed yet\n\
             context ap: ready\n"
        );
        assert_eq!(
            readiness(&views[2..]),
            (true, "context ap: ready\n".to_string())
        );
        assert!(!readiness(&[]).0);
        // The log says the same as `/readyz`, one line a change.
        assert_eq!(readiness_news(Some("ap"), &[]), "context ap: ready\n");
        assert_eq!(
            readiness_news(
                None,
                &["pods: forbidden".into(), "events: forbidden".into()]
            ),
            "the current context: not ready: pods: forbidden; events: forbidden\n"
        );
        assert_eq!(
            serving("127.0.0.1:9187".parse().unwrap(), None, &[Some("eu"), None]),
            "serving metrics on http://127.0.0.1:9187/metrics (/healthz, /readyz); \
             watching ValkeyClusters in all namespaces of context eu, the current context\n"
        );
        assert_eq!(
            watches_restarted(Some("eu")),
            "context eu: every watch stopped; starting again\n"
        );
    }

    #[test]
    fn a_cluster_that_goes_loses_its_series() {
        let two = {
            let mut r = jammed();
            r.clusters.extend(converged().clusters);
            r
        };
        let before = metrics_text(&[whole("", two)], BUILD, t(0));
        assert!(before.contains(r#"cluster="sessions""#));
        let after = metrics_text(&[whole("", jammed())], BUILD, t(0));
        assert!(!after.contains(r#"cluster="sessions""#), "{after}");
        assert!(after.contains(r#"cluster="cache""#));
    }

    #[test]
    fn label_values_are_escaped_and_cleaned() {
        let mut report = converged();
        report.clusters[0].name = "a\"b\\c".into();
        let text = metrics_text(&[whole("ctx\u{7}\n", report)], BUILD, t(0));
        assert!(text.contains(r#"cluster="a\"b\\c""#), "{text}");
        assert!(text.contains(r#"context="ctx\\u{7}\\u{a}""#), "{text}");
        assert!(!text.contains('\u{7}'));
    }

    /// Issue 30, item 9: context names that differ only in a control
    /// character against a space (or that spell a character's code) were
    /// one label, so every series of theirs came twice. Each name is its
    /// own label now, and no series is written twice.
    #[test]
    fn names_that_clean_alike_are_distinct_labels() {
        let names = [
            "a b",
            "a\tb",
            "a\nb",
            r"a\u{9}b",
            r"a\\u{9}b",
            r"a\b",
            r"a\",
        ];
        let views: Vec<ContextView> = names.iter().map(|n| whole(n, jammed())).collect();
        let text = metrics_text(&views, BUILD, t(60));
        let mut seen = std::collections::BTreeSet::new();
        for line in samples(&text) {
            let series = line.rsplit_once(' ').map_or(line, |(series, _)| series);
            assert!(seen.insert(series), "{series} twice in\n{text}");
        }
        let ready: Vec<&str> = samples(&text)
            .into_iter()
            .filter(|l| l.starts_with("valkey_roll_exporter_ready{"))
            .collect();
        // As written in the text, where a backslash is doubled.
        assert_eq!(
            ready,
            [
                r#"valkey_roll_exporter_ready{context="a b"} 1"#,
                r#"valkey_roll_exporter_ready{context="a\\u{9}b"} 1"#,
                r#"valkey_roll_exporter_ready{context="a\\u{a}b"} 1"#,
                r#"valkey_roll_exporter_ready{context="a\\u{5c}u{9}b"} 1"#,
                r#"valkey_roll_exporter_ready{context="a\\\\u{5c}u{9}b"} 1"#,
                r#"valkey_roll_exporter_ready{context="a\\b"} 1"#,
                r#"valkey_roll_exporter_ready{context="a\\"} 1"#,
            ],
            "{text}"
        );
        assert!(!text.contains('\t'), "{text}");
    }

    #[test]
    fn an_unknown_hold_time_is_nan() {
        let mut report = jammed();
        for n in &mut report.clusters[0].nodes {
            n.held_for_seconds = None;
        }
        let text = metrics_text(&[whole("", report)], BUILD, t(0));
        assert!(
            has(
                &text,
                r#"valkey_roll_holder_seconds{context="",namespace="prod",cluster="cache",node="cache-1-1"} NaN"#
            ),
            "{text}"
        );
    }
}
