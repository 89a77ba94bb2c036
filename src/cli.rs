//! Command-line parsing: kubectl-style global flags and one struct per
//! subcommand. Only parsing and argument validation live here.

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use jiff::Timestamp;
use std::path::PathBuf;
use std::time::Duration;

/// `--version`: what `version` says, fixed at build time.
const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\ncommit:    ",
    env!("KUBECTL_VALKEY_ROLL_GIT_COMMIT"),
    "\ntarget:    ",
    env!("KUBECTL_VALKEY_ROLL_TARGET"),
    "\nprotocols: P1, P2"
);

#[derive(Debug, Parser)]
#[command(
    name = "kubectl-valkey-roll",
    bin_name = "kubectl valkey-roll",
    about = "Tell a slow Valkey cluster roll from a jammed one, and steer its roll permits by hand",
    long_about = None,
    version,
    long_version = LONG_VERSION,
    after_help = "Exit codes: 0 done, 1 error, 2 usage, 3 roll needs attention, 4 refused (nothing written), 5 timed out, 6 written but another holder appeared, 7 some kubeconfig context could not be read (the others are shown)."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command takes, as kubectl users expect them.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Namespace (live: default the kubeconfig context's, else `default`; with -f: every namespace in the file unless given)
    #[arg(short = 'n', long, global = true, value_name = "NAMESPACE", value_parser = non_blank)]
    pub namespace: Option<String>,
    /// Every namespace
    #[arg(short = 'A', long, global = true, conflicts_with = "namespace")]
    pub all_namespaces: bool,
    /// The kubeconfig context to use; status, wait, exporter and dashboard take several (repeat the flag)
    #[arg(long = "context", id = "context", global = true, value_name = "NAME")]
    pub contexts: Vec<String>,
    /// Every context of the kubeconfig (status, wait, exporter and dashboard)
    #[arg(long, global = true, conflicts_with = "context")]
    pub all_contexts: bool,
    /// The kubeconfig cluster entry to use (kubectl's --cluster; a ValkeyCluster is named by the positional CLUSTER)
    #[arg(long = "cluster", global = true, value_name = "NAME")]
    pub kube_cluster: Option<String>,
    /// The kubeconfig user entry to use
    #[arg(long, global = true, value_name = "NAME")]
    pub user: Option<String>,
    /// Path to a kubeconfig (else KUBECONFIG, which may list several paths, else ~/.kube/config, else in-cluster)
    #[arg(long, global = true, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// Act as this user
    #[arg(long = "as", global = true, value_name = "USER")]
    pub impersonate: Option<String>,
    /// Act as this group (repeatable)
    #[arg(long = "as-group", global = true, value_name = "GROUP")]
    pub impersonate_groups: Vec<String>,
    /// Time limit of each API request (watch streams are exempt)
    #[arg(long, global = true, value_name = "DURATION", default_value = "30s", value_parser = parse_request_timeout)]
    pub request_timeout: Duration,
    /// Output format
    #[arg(short = 'o', long, global = true, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
    /// How long without progress before a holder is Stuck or a wait is Stalled
    #[arg(long, global = true, value_name = "DURATION", default_value = "10m", value_parser = parse_duration)]
    pub stall_threshold: Duration,
    /// No colour (also NO_COLOR; colour is only used on a terminal)
    #[arg(long, global = true)]
    pub no_color: bool,
    /// Read a snapshot (`kubectl get ... -o yaml|json`, or a YAML stream) instead of a cluster; `-` is stdin. No cluster or kubeconfig needed
    #[arg(
        short = 'f',
        long = "filename",
        visible_alias = "from-file",
        global = true,
        value_name = "PATH"
    )]
    pub from_file: Option<PathBuf>,
    /// The clock for every duration (RFC 3339); default the real clock
    #[arg(long, global = true, value_name = "RFC3339", value_parser = parse_timestamp)]
    pub now: Option<Timestamp>,
    /// Fit text to this many columns (0: no limit). Default: the terminal's width (or COLUMNS); piped output keeps whole lines
    #[arg(long, global = true, value_name = "COLUMNS")]
    pub width: Option<usize>,
    /// Leave the headers out of a table (its rows alone)
    #[arg(long, global = true)]
    pub no_headers: bool,
    /// Log level, as kubectl's -v: 6 logs each API request (verb, URL, status, time taken) to stderr, 8 its response size too
    #[arg(
        short = 'v',
        long = "v",
        global = true,
        value_name = "LEVEL",
        default_value_t = 0
    )]
    pub verbosity: u8,
}

impl GlobalArgs {
    /// The one `--context` given (the first, should several be; commands
    /// that read one context refuse several in [`Cli::validate`]).
    pub(crate) fn context(&self) -> Option<&str> {
        self.contexts.first().map(String::as_str)
    }

    /// Several contexts are asked for (several `--context`, or
    /// `--all-contexts`).
    pub(crate) fn several_contexts(&self) -> bool {
        self.all_contexts || self.contexts.len() > 1
    }

    /// These flags with one context in place of those given.
    pub(crate) fn for_context(&self, context: Option<&str>) -> GlobalArgs {
        GlobalArgs {
            contexts: context.map(str::to_string).into_iter().collect(),
            all_contexts: false,
            ..self.clone()
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Fitted to the terminal: low-priority columns and empty ones left out, long reasons cut
    Table,
    /// Every column, and every reason whole
    Wide,
    Json,
    Yaml,
    /// The objects' names, one a line (kubectl's resource/name)
    Name,
    /// history only: the roll as a picture, one row per node on a time axis (SVG)
    Svg,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// One report per ValkeyCluster: verdict, holder, queue, one row per node
    #[command(after_help = examples::STATUS)]
    Status(StatusArgs),
    /// Why a node (or a cluster) is in its state, with evidence and a timeline
    #[command(after_help = examples::EXPLAIN)]
    Explain(ExplainArgs),
    /// Let a node roll to its asked-for revision (P1: its permit; P2: its spec.workloadRevision)
    #[command(after_help = examples::GRANT)]
    Grant(GrantArgs),
    /// Remove a node's permit (P1 only)
    #[command(after_help = examples::REVOKE)]
    Revoke(RevokeArgs),
    /// Grant even when the safety checks refuse (P1 only; --reason required)
    #[command(after_help = examples::FORCE)]
    Force(ForceArgs),
    /// Delete a node's superseded, not-Ready pod so its StatefulSet recreates it (the OrderedReady trap)
    #[command(after_help = examples::REPLACE_POD)]
    ReplacePod(ReplacePodArgs),
    /// Block until the roll is Converged (exit 3 on Jammed, Stalled or Conflict)
    #[command(after_help = examples::WAIT)]
    Wait(WaitArgs),
    /// The current roll so far: one row per node, when it was advanced (and by whom), applied, Ready, how long it took
    #[command(after_help = examples::HISTORY)]
    History(HistoryArgs),
    /// Write the objects `status` reads as one kubectl List, for a hand-over (read it back with -f)
    #[command(after_help = examples::BUNDLE)]
    Bundle(BundleArgs),
    /// Serve the verdicts of every ValkeyCluster in view as Prometheus metrics, kept live
    #[command(after_help = examples::EXPORTER)]
    Exporter(ExporterArgs),
    /// A read-only web page of every roll in view, kept live (status --watch in a browser)
    #[command(after_help = examples::DASHBOARD)]
    Dashboard(DashboardArgs),
    /// Print a shell completion script
    #[command(after_help = examples::COMPLETION)]
    Completion(CompletionArgs),
    /// Version, commit, target and the protocols understood
    #[command(after_help = examples::VERSION)]
    Version,
    /// Candidates for kubectl's plugin completion (kubectl_complete-valkey_roll)
    #[command(name = "__complete", hide = true)]
    Complete(CompleteArgs),
}

/// A subcommand without its arguments: what code that knows only the name
/// typed decides on (completion, before the command line is whole). Named
/// as clap names the subcommands ([`Command::verb`] is exhaustive, so a new
/// command needs its verb, and each `match` on a verb its arm).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Verb {
    Status,
    Explain,
    Grant,
    Revoke,
    Force,
    ReplacePod,
    Wait,
    History,
    Bundle,
    Exporter,
    Dashboard,
    Completion,
    Version,
    #[value(name = "__complete")]
    Complete,
}

impl Verb {
    /// The verb of a subcommand's name as clap spells it.
    pub(crate) fn of(name: &str) -> Option<Verb> {
        <Verb as clap::ValueEnum>::from_str(name, false).ok()
    }
}

impl Command {
    /// The verb of this command. Its exhaustive `match` is what makes a new
    /// command name its verb; only completion's tests call it, hence `pub`
    /// (a `pub(crate)` item used by tests alone would be dead code).
    #[allow(private_interfaces)]
    pub fn verb(&self) -> Verb {
        match self {
            Command::Status(_) => Verb::Status,
            Command::Explain(_) => Verb::Explain,
            Command::Grant(_) => Verb::Grant,
            Command::Revoke(_) => Verb::Revoke,
            Command::Force(_) => Verb::Force,
            Command::ReplacePod(_) => Verb::ReplacePod,
            Command::Wait(_) => Verb::Wait,
            Command::History(_) => Verb::History,
            Command::Bundle(_) => Verb::Bundle,
            Command::Exporter(_) => Verb::Exporter,
            Command::Dashboard(_) => Verb::Dashboard,
            Command::Completion(_) => Verb::Completion,
            Command::Version => Verb::Version,
            Command::Complete(_) => Verb::Complete,
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct StatusArgs {
    /// A ValkeyCluster's name (default: every cluster in the namespace)
    #[arg(value_name = "CLUSTER")]
    pub cluster: Option<String>,
    /// Keep the report live until Ctrl-C (or SIGTERM)
    #[arg(short = 'w', long)]
    pub watch: bool,
    /// Exit 3 when a verdict needs attention (Jammed, Stalled, Conflict)
    #[arg(long)]
    pub exit_code: bool,
    /// Also read the Valkey servers (with --watch: every 5s), as the
    /// read-only user _exporter: through the API server's port-forward (the
    /// default), or straight to the pod IPs (direct, in the cluster)
    #[arg(long, value_enum, value_name = "HOW", num_args = 0..=1, require_equals = true, default_missing_value = "port-forward")]
    pub servers: Option<ServersArg>,
    #[command(flatten)]
    pub servers_ca: ServersCaArgs,
}

/// The CA that verifies the servers of a cluster with
/// `spec.networking.tls` (docs/servers.md, "TLS"): without one such
/// servers are not read. Never their certificate Secret, which holds
/// their private key.
#[derive(Debug, Clone, Default, Args)]
pub struct ServersCaArgs {
    /// For clusters with TLS: a PEM file of the CA that signed the
    /// servers' certificates (never read from their certificate Secret,
    /// which holds their private key)
    #[arg(long, value_name = "FILE", conflicts_with = "servers_ca_configmap")]
    pub servers_ca: Option<PathBuf>,
    /// For clusters with TLS: the same CA from a ConfigMap's key (default
    /// key ca.crt), read with one GET of that ConfigMap
    #[arg(long, value_name = "NAMESPACE/NAME[:KEY]", value_parser = parse_configmap_ref)]
    pub servers_ca_configmap: Option<ConfigMapRef>,
}

/// `--servers-ca-configmap`: a ConfigMap and one of its keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigMapRef {
    pub namespace: String,
    pub name: String,
    pub key: String,
}

/// `NAMESPACE/NAME[:KEY]`, the key `ca.crt` when not named.
pub(crate) fn parse_configmap_ref(s: &str) -> Result<ConfigMapRef, String> {
    let wrong = || format!("{s:?} is not NAMESPACE/NAME[:KEY]");
    let (namespace, rest) = s.split_once('/').ok_or_else(wrong)?;
    let (name, key) = match rest.split_once(':') {
        Some((name, key)) => (name, key),
        None => (rest, "ca.crt"),
    };
    let dns = |v: &str| {
        !v.is_empty()
            && v.len() <= 253
            && v.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
    };
    let key_ok = !key.is_empty()
        && key.len() <= 253
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    if !dns(namespace) || !dns(name) || !key_ok {
        return Err(wrong());
    }
    Ok(ConfigMapRef {
        namespace: namespace.to_string(),
        name: name.to_string(),
        key: key.to_string(),
    })
}

/// How `--servers` reaches the Valkey servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ServersArg {
    /// Do not read them.
    Off,
    /// The API server's port-forward to each pod's port 6379.
    PortForward,
    /// Each pod's IP, port 6379 (where the plugin runs in the cluster).
    Direct,
}

#[derive(Debug, Clone, Args)]
pub struct ExplainArgs {
    /// A ValkeyNode's name, else a ValkeyCluster's
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Where the valkey-operator runs: when it looks silent, explain reads
    /// its leader-election Lease there
    #[arg(
        long,
        value_name = "NAMESPACE",
        default_value = "valkey-operator-system"
    )]
    pub operator_namespace: String,
    /// Read the cluster's Valkey servers (as the read-only user
    /// _exporter): through the API server's port-forward, straight to the
    /// pod IPs (direct), or not at all (off)
    #[arg(long, value_enum, value_name = "HOW", default_value_t = ServersArg::PortForward, require_equals = true)]
    pub servers: ServersArg,
    #[command(flatten)]
    pub servers_ca: ServersCaArgs,
}

/// Flags every steering command takes.
#[derive(Debug, Clone, Args)]
pub struct SteerArgs {
    /// none: write; client: print the plan, send nothing; server: send with dryRun=All
    #[arg(long, value_enum, default_value_t = DryRunArg::None, num_args = 0..=1, require_equals = true, default_missing_value = "client")]
    pub dry_run: DryRunArg,
    /// Do not ask for confirmation (needed off a terminal where a command would ask, dry runs too)
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// The protocol to assume for a cluster whose protocol is unknown
    #[arg(long, value_enum, value_name = "P1|P2")]
    pub protocol: Option<ProtocolArg>,
    /// Read the servers of the node's cluster before planning (as the
    /// read-only user _exporter): through the API server's port-forward,
    /// straight to the pod IPs (direct), or not at all (off: decided from
    /// the API alone, and the plan says so)
    #[arg(long, value_enum, value_name = "HOW", default_value_t = ServersArg::PortForward, require_equals = true)]
    pub servers: ServersArg,
    #[command(flatten)]
    pub servers_ca: ServersCaArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DryRunArg {
    None,
    Client,
    Server,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    #[value(name = "P1", alias = "p1")]
    P1,
    #[value(name = "P2", alias = "p2")]
    P2,
}

#[derive(Debug, Clone, Args)]
pub struct GrantArgs {
    /// The ValkeyNode to grant
    #[arg(value_name = "NODE")]
    pub node: String,
    /// Grant this revision instead of the asked-for one
    #[arg(long, value_name = "HASH", conflicts_with = "any", value_parser = non_blank)]
    pub revision: Option<String>,
    /// Grant `*` (whatever the node builds now; P1 only)
    #[arg(long)]
    pub any: bool,
    /// Allow granting a primary (the controller's proactive failover does not run for a permit given by hand)
    #[arg(long)]
    pub allow_primary: bool,
    /// Why, recorded on the node and in an Event
    #[arg(long, value_name = "TEXT", value_parser = non_blank)]
    pub reason: Option<String>,
    #[command(flatten)]
    pub steer: SteerArgs,
}

#[derive(Debug, Clone, Args)]
pub struct RevokeArgs {
    /// The ValkeyNode whose permit to remove
    #[arg(value_name = "NODE")]
    pub node: String,
    /// Why, recorded in an Event
    #[arg(long, value_name = "TEXT", value_parser = non_blank)]
    pub reason: Option<String>,
    #[command(flatten)]
    pub steer: SteerArgs,
}

#[derive(Debug, Clone, Args)]
pub struct ForceArgs {
    /// The ValkeyNode to grant regardless of the safety checks
    #[arg(value_name = "NODE")]
    pub node: String,
    /// Why (required), recorded on the node and in an Event
    #[arg(long, value_name = "TEXT", required = true, value_parser = non_blank)]
    pub reason: String,
    /// Revoke every other holder's permit in the same command
    #[arg(long)]
    pub takeover: bool,
    /// Write this revision instead of the asked-for one
    #[arg(long, value_name = "HASH", conflicts_with = "any", value_parser = non_blank)]
    pub revision: Option<String>,
    /// Write `*`
    #[arg(long)]
    pub any: bool,
    /// Go on though the servers say this shard (its number, typed out)
    /// would be left with no synced replica: what no replica has may be lost
    #[arg(long, value_name = "SHARD")]
    pub unsafe_shard: Option<u32>,
    #[command(flatten)]
    pub steer: SteerArgs,
}

#[derive(Debug, Clone, Args)]
pub struct ReplacePodArgs {
    /// The ValkeyNode whose pod to replace
    #[arg(value_name = "NODE")]
    pub node: String,
    /// Why, recorded in an Event
    #[arg(long, value_name = "TEXT", value_parser = non_blank)]
    pub reason: Option<String>,
    #[command(flatten)]
    pub steer: SteerArgs,
}

#[derive(Debug, Clone, Args)]
pub struct WaitArgs {
    /// A ValkeyCluster's name (default: every cluster in the namespace)
    #[arg(value_name = "CLUSTER")]
    pub cluster: Option<String>,
    /// Give up after this long (exit 5); default: no timeout
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// Keep waiting on Jammed, Stalled or Conflict
    #[arg(long)]
    pub no_fail_fast: bool,
    /// Also read the Valkey servers (every 5s), as the read-only user
    /// _exporter: through the API server's port-forward (the default), or
    /// straight to the pod IPs (direct, in the cluster)
    #[arg(long, value_enum, value_name = "HOW", num_args = 0..=1, require_equals = true, default_missing_value = "port-forward")]
    pub servers: Option<ServersArg>,
    #[command(flatten)]
    pub servers_ca: ServersCaArgs,
}

#[derive(Debug, Clone, Args)]
pub struct HistoryArgs {
    /// A ValkeyCluster's name (default: every cluster in the namespace)
    #[arg(value_name = "CLUSTER")]
    pub cluster: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct BundleArgs {
    /// A ValkeyCluster's name (default: every cluster in the namespace)
    #[arg(value_name = "CLUSTER")]
    pub cluster: Option<String>,
    /// Write the bundle to this file instead of stdout (-o is the output format, as everywhere)
    #[arg(long, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// yaml (with a header comment) or json (default: yaml; -o json also picks json)
    #[arg(long, value_enum)]
    pub format: Option<BundleFormat>,
    /// Keep what the clusters' Valkey servers say (read as the read-only
    /// user _exporter): through the API server's port-forward, straight to
    /// the pod IPs (direct), or not at all (off)
    #[arg(long, value_enum, value_name = "HOW", default_value_t = ServersArg::PortForward, require_equals = true)]
    pub servers: ServersArg,
    #[command(flatten)]
    pub servers_ca: ServersCaArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BundleFormat {
    Yaml,
    Json,
}

#[derive(Debug, Clone, Args)]
pub struct ExporterArgs {
    /// The address to serve /metrics, /healthz and /readyz on
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:9808")]
    pub listen: std::net::SocketAddr,
    /// Also read the Valkey servers, as the read-only user _exporter, and
    /// export the shards at risk: straight to the pod IPs (direct, the
    /// default, for the exporter in the cluster), or through the API
    /// server's port-forward
    #[arg(long, value_enum, value_name = "HOW", num_args = 0..=1, require_equals = true, default_missing_value = "direct")]
    pub servers: Option<ServersArg>,
    #[command(flatten)]
    pub servers_ca: ServersCaArgs,
    /// The pause between two readings of every cluster's servers
    #[arg(long, value_name = "DURATION", default_value = "15s", value_parser = parse_servers_interval)]
    pub servers_interval: Duration,
}

#[derive(Debug, Clone, Args)]
pub struct DashboardArgs {
    /// One ValkeyCluster (else every one in view)
    pub cluster: Option<String>,
    /// The address to serve the page on (anything but loopback: the page has no login)
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:9809")]
    pub listen: std::net::SocketAddr,
    /// Also read the Valkey servers (every 5s), as the read-only user
    /// _exporter: through the API server's port-forward (the default), or
    /// straight to the pod IPs (direct, in the cluster)
    #[arg(long, value_enum, value_name = "HOW", num_args = 0..=1, require_equals = true, default_missing_value = "port-forward")]
    pub servers: Option<ServersArg>,
    #[command(flatten)]
    pub servers_ca: ServersCaArgs,
}

#[derive(Debug, Clone, Args)]
pub struct CompletionArgs {
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
    Powershell,
}

#[derive(Debug, Clone, Args)]
pub struct CompleteArgs {
    /// The words typed so far, after the plugin's name (the last one is being completed)
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub words: Vec<String>,
}

/// Each subcommand's Examples, as kubectl's help has them. Every line that
/// reads `-f examples/...` runs on the bundled snapshots from the
/// repository's root (tests/cli_offline.rs runs them); the others need a
/// cluster.
pub(crate) mod examples {
    /// The snapshot and clock of a bundled example, on a line of its own.
    macro_rules! on {
        ($file:literal) => {
            concat!(
                " \\\n      -f examples/",
                $file,
                ".yaml --now 2026-11-29T10:16:11Z"
            )
        };
    }

    pub(crate) const STATUS: &str = concat!(
        "Examples:\n",
        "  # The jammed example (P2, the released operator), as it was at 10:16:11\n",
        "  kubectl valkey-roll status",
        on!("jammed"),
        "\n\n",
        "  # Every column, every reason whole: the same jam in P1\n",
        "  kubectl valkey-roll status -o wide",
        on!("jammed-p1"),
        "\n\n",
        "  # For a script: the clusters' names; exit 3 when a roll needs attention\n",
        "  kubectl valkey-roll status -o name --exit-code",
        on!("rolling"),
        "\n\n",
        "  # Live: every cluster in every namespace, kept up to date\n",
        "  kubectl valkey-roll status -A --watch\n\n",
        "Without -o wide, columns empty on every row are left out, and on a narrow\n",
        "terminal the least needed ones too (REASON is cut at a word, with …).\n",
        "-o wide shows every column, whole."
    );

    pub(crate) const EXPLAIN: &str = concat!(
        "Examples:\n",
        "  # The node that jams the roll: evidence, timeline, what to do next\n",
        "  kubectl valkey-roll explain cache-1-0",
        on!("jammed"),
        "\n\n",
        "  # Why the cluster's queue does not move\n",
        "  kubectl valkey-roll explain cache",
        on!("jammed"),
        "\n\n",
        "  # The node's entry of the status document, with its timeline\n",
        "  kubectl valkey-roll explain cache-1-1 -o json",
        on!("jammed-p1")
    );

    pub(crate) const GRANT: &str = concat!(
        "Examples:\n",
        "  # Plan a grant on a snapshot: refused while cache-1-1 holds the permit,\n",
        "  # and the refusal says the way out\n",
        "  kubectl valkey-roll grant cache-2-1 --dry-run=client",
        on!("jammed-p1"),
        "\n\n",
        "  # Live: advance the walk's front by hand, saying why\n",
        "  kubectl valkey-roll grant cache-1-1 -n prod --reason \"operator down\""
    );

    pub(crate) const REVOKE: &str = concat!(
        "Examples:\n",
        "  # Plan taking the stuck holder's permit away (P1), without asking\n",
        "  kubectl valkey-roll revoke cache-1-1 --dry-run=client --yes",
        on!("jammed-p1"),
        "\n\n",
        "  # Live\n",
        "  kubectl valkey-roll revoke cache-1-1 -n prod --reason \"bad image\""
    );

    pub(crate) const FORCE: &str = concat!(
        "Examples:\n",
        "  # Plan moving the permit to the walk's front, the stuck holder's revoked\n",
        "  kubectl valkey-roll force cache-1-0 --takeover --reason \"front first\" \\\n",
        "      --dry-run=client --yes",
        on!("jammed-p1"),
        "\n\n",
        "  # Live\n",
        "  kubectl valkey-roll force cache-1-0 -n prod --takeover --reason \"front first\""
    );

    pub(crate) const REPLACE_POD: &str = concat!(
        "Examples:\n",
        "  # Plan it on a snapshot: refused, the pod is on its StatefulSet's update\n",
        "  # revision (replacing it would only restart the same failure)\n",
        "  kubectl valkey-roll replace-pod cache-1-0 --dry-run=client",
        on!("jammed"),
        "\n\n",
        "  # Live, for a pod OrderedReady keeps on a superseded revision\n",
        "  kubectl valkey-roll replace-pod cache-1-0 -n prod --reason \"reverted\""
    );

    pub(crate) const WAIT: &str = concat!(
        "Examples (wait needs a live cluster):\n",
        "  # In a pipeline, after the change that starts the roll\n",
        "  kubectl valkey-roll wait cache -n prod --timeout 30m\n\n",
        "  # Keep waiting through a jam, until someone fixes it\n",
        "  kubectl valkey-roll wait cache -n prod --no-fail-fast"
    );

    pub(crate) const HISTORY: &str = concat!(
        "Examples:\n",
        "  # A finished roll: when each node was advanced and Ready, how long it took\n",
        "  kubectl valkey-roll history",
        on!("converged"),
        "\n\n",
        "  # The jammed roll so far, as a document\n",
        "  kubectl valkey-roll history cache -o yaml",
        on!("jammed")
    );

    pub(crate) const BUNDLE: &str = concat!(
        "Examples (bundle reads a live cluster):\n",
        "  # Hand over what you are looking at\n",
        "  kubectl valkey-roll bundle cache -n prod --output-file cache-bundle.yaml\n\n",
        "  # Anyone then reads it without the cluster\n",
        "  kubectl valkey-roll status -f cache-bundle.yaml"
    );

    pub(crate) const EXPORTER: &str = concat!(
        "Examples (the exporter reads live clusters):\n",
        "  # Beside Prometheus, every namespace of the current context\n",
        "  kubectl valkey-roll exporter --listen 127.0.0.1:9808\n\n",
        "  # One view over two clusters' contexts\n",
        "  kubectl valkey-roll exporter --context prod-eu --context prod-us"
    );

    pub(crate) const DASHBOARD: &str = concat!(
        "Examples (the dashboard reads live clusters):\n",
        "  # Every roll in view, at http://127.0.0.1:9809/\n",
        "  kubectl valkey-roll dashboard -A\n\n",
        "  # One cluster, every context of the kubeconfig\n",
        "  kubectl valkey-roll dashboard cache -n prod --all-contexts"
    );

    pub(crate) const COMPLETION: &str = concat!(
        "Examples:\n",
        "  kubectl valkey-roll completion bash > ~/.kube-valkey-roll.bash\n",
        "  kubectl valkey-roll completion zsh > \"${fpath[1]}/_kubectl-valkey-roll\""
    );

    pub(crate) const VERSION: &str = concat!(
        "Examples:\n",
        "  kubectl valkey-roll version\n",
        "  kubectl valkey-roll version -o json"
    );
}

pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    humantime::parse_duration(s)
        .map_err(|e| format!("`{s}` is not a duration (e.g. 30s, 10m, 1h): {e}"))
}

/// `--servers-interval`: a duration of at least a second (the servers are
/// read again that long after the last reading ends).
pub(crate) fn parse_servers_interval(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d < Duration::from_secs(1) {
        return Err(format!("`{s}` is too short: at least 1s"));
    }
    Ok(d)
}

/// `--request-timeout`: a duration, or a bare number of seconds as kubectl
/// takes it (`0`: no limit).
pub(crate) fn parse_request_timeout(s: &str) -> Result<Duration, String> {
    match s.parse::<u64>() {
        Ok(secs) => Ok(Duration::from_secs(secs)),
        Err(_) => parse_duration(s),
    }
}

/// A value that must say something (`--reason ""` records nothing).
pub(crate) fn non_blank(s: &str) -> Result<String, String> {
    if s.trim().is_empty() {
        Err("must not be empty".to_string())
    } else {
        Ok(s.to_string())
    }
}

/// `--now`: any time the API can hold, up to 9999-12-31T23:59:59Z (one
/// after 9999-12-30T22:00Z is read as that, see [`crate::snapshot::LATEST`]).
/// The error names the form, not the parser's internals.
pub(crate) fn parse_timestamp(s: &str) -> Result<Timestamp, String> {
    crate::snapshot::parse_time(s).ok_or_else(|| {
        format!("`{s}` is not an RFC 3339 time with a time zone (e.g. 2026-11-29T10:16:00Z)")
    })
}

impl Cli {
    /// Checks the combinations clap cannot express; a failure is a usage
    /// error (exit 2), reported in clap's own format with the
    /// subcommand's own usage line.
    pub fn validate(&self) -> Result<(), clap::Error> {
        let fail = |msg: &str| Err(self.command.usage_error(msg));
        let g = &self.global;
        // clap's conflicts_with misses a global flag given before the
        // subcommand and the other after it.
        if g.all_namespaces && g.namespace.is_some() {
            return fail("-A/--all-namespaces cannot be used with -n/--namespace");
        }
        if !g.impersonate_groups.is_empty() && g.impersonate.is_none() {
            return fail("--as-group needs --as (as in kubectl)");
        }
        if g.several_contexts() {
            match &self.command {
                Command::Status(s) if s.watch => {
                    return fail(
                        "--watch reads one context: several --context or --all-contexts go with status, wait, exporter or dashboard",
                    );
                }
                Command::Status(_)
                | Command::Wait(_)
                | Command::Exporter(_)
                | Command::Dashboard(_) => {}
                _ => {
                    return fail(
                        "several --context or --all-contexts go with status, wait, exporter or dashboard only",
                    );
                }
            }
            if g.from_file.is_some() {
                return fail("-f reads a file, not kubeconfig contexts");
            }
        }
        if g.output == OutputFormat::Svg && !matches!(self.command, Command::History(_)) {
            return fail("-o svg goes with history only (the roll as a picture)");
        }
        if g.contexts.iter().any(|c| c.is_empty()) {
            return fail("--context needs a name");
        }
        match &self.command {
            Command::Status(s) if s.watch && g.now.is_some() => {
                return fail("--now cannot be used with --watch, which runs on the real clock");
            }
            Command::Status(s) if s.watch && g.from_file.is_some() => {
                return fail("--watch needs a live cluster, not -f/--filename");
            }
            Command::Status(s)
                if g.several_contexts() && s.servers.is_some_and(|h| h != ServersArg::Off) =>
            {
                return fail("--servers reads one context's servers");
            }
            Command::Wait(w)
                if g.several_contexts() && w.servers.is_some_and(|h| h != ServersArg::Off) =>
            {
                return fail("--servers reads one context's servers");
            }
            Command::Status(s)
                if g.from_file.is_some() && s.servers.is_some_and(|h| h != ServersArg::Off) =>
            {
                return fail(
                    "--servers reads live servers; a snapshot file carries its readings (ServerReading items)",
                );
            }
            Command::Wait(_) if g.now.is_some() => {
                return fail("--now cannot be used with wait, which runs on the real clock");
            }
            Command::Wait(_) if g.from_file.is_some() => {
                return fail("wait needs a live cluster, not -f/--filename");
            }
            Command::Exporter(_) if g.now.is_some() => {
                return fail("--now cannot be used with exporter, which runs on the real clock");
            }
            Command::Exporter(_) if g.from_file.is_some() => {
                return fail("exporter needs a live cluster, not --from-file");
            }
            Command::Dashboard(_) if g.now.is_some() => {
                return fail("--now cannot be used with dashboard, which runs on the real clock");
            }
            Command::Dashboard(_) if g.from_file.is_some() => {
                return fail("dashboard needs a live cluster, not -f/--filename");
            }
            Command::Bundle(_) if g.from_file.is_some() => {
                return fail(
                    "bundle reads a live cluster, not -f/--filename (the file is a bundle already)",
                );
            }
            _ => {}
        }
        if let Some(steer) = self.command.steer_args()
            && g.from_file.is_some()
            && steer.dry_run != DryRunArg::Client
        {
            return fail("steering against -f/--filename only plans: add --dry-run=client");
        }
        Ok(())
    }
}

impl Command {
    /// The subcommand's name, as typed.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Command::Status(_) => "status",
            Command::Explain(_) => "explain",
            Command::Grant(_) => "grant",
            Command::Revoke(_) => "revoke",
            Command::Force(_) => "force",
            Command::ReplacePod(_) => "replace-pod",
            Command::Wait(_) => "wait",
            Command::History(_) => "history",
            Command::Bundle(_) => "bundle",
            Command::Exporter(_) => "exporter",
            Command::Dashboard(_) => "dashboard",
            Command::Completion(_) => "completion",
            Command::Version => "version",
            Command::Complete(_) => "__complete",
        }
    }

    /// A usage error (exit 2) about this subcommand, in clap's format and
    /// with its usage line, not the top level's.
    pub(crate) fn usage_error(&self, msg: &str) -> clap::Error {
        let mut root = Cli::command();
        root.build();
        let kind = clap::error::ErrorKind::ArgumentConflict;
        match root.find_subcommand_mut(self.name()) {
            Some(sub) => sub.error(kind, msg),
            None => root.error(kind, msg),
        }
    }

    pub(crate) fn steer_args(&self) -> Option<&SteerArgs> {
        match self {
            Command::Grant(a) => Some(&a.steer),
            Command::Revoke(a) => Some(&a.steer),
            Command::Force(a) => Some(&a.steer),
            Command::ReplacePod(a) => Some(&a.steer),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        let cli = Cli::try_parse_from(
            std::iter::once("kubectl-valkey-roll").chain(args.iter().copied()),
        )?;
        cli.validate()?;
        Ok(cli)
    }

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    /// `--servers-ca-configmap NAMESPACE/NAME[:KEY]`, the key `ca.crt`
    /// when not named; and the two CA flags on every command that reads
    /// servers, one or the other.
    #[test]
    fn a_ca_configmap_is_namespace_name_and_key() {
        let cm = |ns: &str, name: &str, key: &str| ConfigMapRef {
            namespace: ns.into(),
            name: name.into(),
            key: key.into(),
        };
        let cases = [
            ("prod/valkey-ca", Some(cm("prod", "valkey-ca", "ca.crt"))),
            (
                "prod/valkey-ca:bundle.pem",
                Some(cm("prod", "valkey-ca", "bundle.pem")),
            ),
            ("valkey-ca", None),
            ("/valkey-ca", None),
            ("prod/", None),
            ("prod/valkey-ca:", None),
            ("prod/Valkey_CA", None),
            ("prod/a/b", None),
            ("prod/ca:k\u{1b}[31m", None),
        ];
        for (given, want) in cases {
            assert_eq!(parse_configmap_ref(given).ok(), want, "{given:?}");
        }
        for args in [
            &["status", "--servers", "--servers-ca", "ca.pem"][..],
            &["explain", "c", "--servers-ca-configmap", "ns/ca"],
            &["wait", "--servers", "--servers-ca", "ca.pem"],
            &["bundle", "--servers-ca", "ca.pem"],
            &["exporter", "--servers", "--servers-ca", "/etc/ca/ca.crt"],
            &["grant", "n", "--servers-ca", "ca.pem"],
            &["force", "n", "--reason", "r", "--servers-ca", "ca.pem"],
            &["revoke", "n", "--servers-ca", "ca.pem"],
            &["replace-pod", "n", "--servers-ca", "ca.pem"],
        ] {
            assert!(parse(args).is_ok(), "{args:?}");
        }
        assert!(
            parse(&[
                "status",
                "--servers-ca",
                "a",
                "--servers-ca-configmap",
                "ns/ca"
            ])
            .is_err()
        );
    }

    #[test]
    fn usage_errors() {
        let cases: &[(&str, &[&str])] = &[
            ("force without --reason", &["force", "cache-0-1"]),
            (
                "--now with --watch",
                &["status", "--watch", "--now", "2026-11-29T10:00:00Z"],
            ),
            (
                "--now with wait",
                &["wait", "--now", "2026-11-29T10:00:00Z"],
            ),
            (
                "steer a file without dry-run",
                &["grant", "x", "-f", "snap.yaml"],
            ),
            (
                "steer a file with server dry-run",
                &["revoke", "x", "-f", "snap.yaml", "--dry-run=server"],
            ),
            ("bad duration", &["status", "--stall-threshold", "ten"]),
            ("bad now", &["status", "--now", "yesterday"]),
            (
                "revision and any",
                &["grant", "x", "--revision", "abc", "--any"],
            ),
            ("-A with -n", &["status", "-A", "-n", "prod"]),
            ("bundle of a file", &["bundle", "-f", "snap.yaml"]),
            ("bundle in xml", &["bundle", "--format", "xml"]),
            (
                "-n before, -A after the subcommand",
                &["-n", "prod", "status", "-A"],
            ),
            ("bad output", &["status", "-o", "xml"]),
            (
                "replace-pod a file without dry-run",
                &["replace-pod", "x", "-f", "snap.yaml"],
            ),
            ("replace-pod without a node", &["replace-pod"]),
            ("empty --revision", &["grant", "x", "--revision", ""]),
            ("blank --reason", &["force", "x", "--reason", "  "]),
            ("--as-group without --as", &["status", "--as-group", "ops"]),
            (
                "bad request timeout",
                &["status", "--request-timeout", "soon"],
            ),
            (
                "two contexts for explain",
                &["explain", "x", "--context", "a", "--context", "b"],
            ),
            ("all contexts for grant", &["grant", "x", "--all-contexts"]),
            (
                "two contexts for --watch",
                &["status", "--watch", "--context", "a", "--context", "b"],
            ),
            (
                "--all-contexts with --context",
                &["status", "--all-contexts", "--context", "a"],
            ),
            ("exporter of a file", &["exporter", "-f", "snap.yaml"]),
            (
                "exporter with --now",
                &["exporter", "--now", "2026-11-29T10:00:00Z"],
            ),
            (
                "exporter on a bad address",
                &["exporter", "--listen", "9808"],
            ),
            (
                "several contexts and a file",
                &["status", "--all-contexts", "-f", "snap.yaml"],
            ),
            ("an empty namespace", &["status", "-n", ""]),
            ("an empty --namespace=", &["status", "--namespace="]),
            ("a blank namespace", &["explain", "x", "-n", " "]),
            (
                "an empty namespace after the subcommand",
                &["grant", "x", "-f", "-", "--dry-run", "-n", ""],
            ),
        ];
        for (name, args) in cases {
            let err = parse(args).expect_err(name);
            assert_eq!(err.exit_code(), 2, "{name}: {err}");
        }
    }

    #[test]
    fn accepted_forms() {
        let cli = parse(&["grant", "cache-0-2", "--dry-run", "-f", "-"])
            .expect("dry-run alone means client");
        assert_eq!(
            cli.command.steer_args().map(|s| s.dry_run),
            Some(DryRunArg::Client)
        );
        let cli = parse(&[
            "status",
            "-n",
            "prod",
            "cache",
            "-o",
            "json",
            "--stall-threshold",
            "90s",
        ])
        .expect("status");
        assert_eq!(cli.global.stall_threshold, Duration::from_secs(90));
        assert_eq!(cli.global.output, OutputFormat::Json);
        let cli = parse(&[
            "-n",
            "prod",
            "force",
            "x",
            "--reason",
            "jammed",
            "--takeover",
            "--yes",
        ])
        .expect("force");
        assert!(matches!(
            cli.command,
            Command::Force(ForceArgs { takeover: true, .. })
        ));
        let cli = parse(&[
            "replace-pod",
            "cache-0-1",
            "--reason",
            "trap",
            "--dry-run=server",
            "-o",
            "json",
        ])
        .expect("replace-pod");
        assert!(matches!(
            cli.command,
            Command::ReplacePod(ReplacePodArgs { ref reason, .. }) if reason.as_deref() == Some("trap")
        ));
        assert_eq!(
            cli.command.steer_args().map(|s| s.dry_run),
            Some(DryRunArg::Server)
        );
        let cli = parse(&["status", "--request-timeout", "45"]).expect("bare seconds");
        assert_eq!(cli.global.request_timeout, Duration::from_secs(45));
        // The planner refuses these with exit 4, like a detected P2 cluster.
        parse(&["force", "x", "--reason", "r", "--protocol", "P2"])
            .expect("force --protocol P2 parses");
        parse(&["grant", "x", "--any", "--protocol", "P2"])
            .expect("grant --any --protocol P2 parses");
        let cli = parse(&["status", "--context", "a", "--context", "b"]).expect("two contexts");
        assert_eq!(cli.global.contexts, ["a", "b"]);
        assert!(cli.global.several_contexts());
        let one = cli.global.for_context(Some("b"));
        assert_eq!(one.context(), Some("b"));
        assert!(!one.several_contexts());
        let cli = parse(&["wait", "--all-contexts"]).expect("all contexts");
        assert!(cli.global.several_contexts());
        let cli = parse(&["exporter", "--context", "a"]).expect("exporter");
        assert!(matches!(
            cli.command,
            Command::Exporter(ExporterArgs { listen, servers: None, .. }) if listen.to_string() == "127.0.0.1:9808"
        ));
        // A bare --servers reads the pod IPs: the exporter runs in the
        // cluster; the pause between readings is 15 s unless given.
        let cli = parse(&["exporter", "--servers"]).expect("exporter --servers");
        assert!(matches!(
            cli.command,
            Command::Exporter(ExporterArgs { servers: Some(ServersArg::Direct), servers_interval, .. })
                if servers_interval == Duration::from_secs(15)
        ));
        let cli = parse(&[
            "exporter",
            "--servers=port-forward",
            "--servers-interval",
            "1m",
        ])
        .expect("exporter --servers=port-forward");
        assert!(matches!(
            cli.command,
            Command::Exporter(ExporterArgs { servers: Some(ServersArg::PortForward), servers_interval, .. })
                if servers_interval == Duration::from_secs(60)
        ));
        assert!(parse(&["exporter", "--servers", "--servers-interval", "0s"]).is_err());
        assert!(!cli.global.several_contexts());
        let cli = parse(&["grant", "x", "--protocol", "p1"]).expect("lower-case protocol");
        assert_eq!(
            cli.command.steer_args().and_then(|s| s.protocol),
            Some(ProtocolArg::P1)
        );
    }
}
