//! `completion SHELL` (static scripts from clap_complete) and the hidden
//! `__complete` that kubectl's plugin completion calls through
//! `kubectl_complete-valkey_roll`.
//!
//! kubectl (>= 1.26) runs `kubectl_complete-valkey_roll <words...>` for
//! `kubectl valkey-roll <words...><TAB>`, with the word being completed last
//! (maybe empty), and reads one candidate per line (`value<TAB>description`),
//! then an optional last line `:N`, a cobra ShellCompDirective. What it
//! prints on stderr reaches the user's terminal, so `__complete` never writes
//! there and always exits 0: a completion that cannot reach the cluster
//! offers nothing.

use crate::cli::{Cli, CompleteArgs, CompletionArgs, CompletionShell, GlobalArgs, Verb};
use crate::commands::Ctx;
use crate::error::{Outcome, Result};
use crate::render::style::clean;
use crate::report::{ClusterReport, NodeReport, NodeState, Report};
use clap::{Arg, CommandFactory, Parser};
use std::time::Duration;

/// The command the static scripts complete: the executable a person types.
/// `kubectl valkey-roll ...` is completed by kubectl's own completion, which
/// asks `kubectl_complete-valkey_roll`; registering a script for `kubectl`
/// would replace kubectl's.
pub(crate) const SCRIPT_BIN_NAME: &str = "kubectl-valkey-roll";

/// How long `__complete` may spend reading the cluster before it gives up
/// and offers nothing (a shell waiting on TAB feels broken after ~2 s).
pub(crate) const LIVE_TIMEOUT: Duration = Duration::from_secs(2);

/// cobra's ShellCompDirective bits that kubectl passes on to the shell.
pub(crate) mod directive {
    /// Let the shell complete file names (cobra's default).
    pub(crate) const DEFAULT: u32 = 0;
    /// Do not fall back to file names when there is no candidate.
    pub(crate) const NO_FILE_COMP: u32 = 4;
    /// Keep the candidates in the order given (cobra >= 1.7): the nodes that
    /// make sense come first.
    pub(crate) const KEEP_ORDER: u32 = 32;
}

pub(crate) fn run(args: &CompletionArgs) -> Result<Outcome> {
    Ok(Outcome::ok(script(args.shell)))
}

/// The completion script for one shell, as committed under `completions/`.
pub(crate) fn script(shell: CompletionShell) -> String {
    let mut cmd = script_command();
    let mut out = Vec::new();
    clap_complete::generate(clap_shell(shell), &mut cmd, SCRIPT_BIN_NAME, &mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    match shell {
        CompletionShell::Bash => fix_bash_case_labels(&text),
        _ => text,
    }
}

/// The command line as the scripts should offer it: clap_complete's
/// generators also offer hidden subcommands, so `__complete` (for kubectl
/// only) is left out here.
fn script_command() -> clap::Command {
    let cli = Cli::command();
    let mut cmd = clap::Command::new(SCRIPT_BIN_NAME)
        .disable_version_flag(true)
        .args(cli.get_arguments().cloned())
        .subcommands(cli.get_subcommands().filter(|c| !c.is_hide_set()).cloned());
    if let Some(about) = cli.get_about() {
        cmd = cmd.about(about.clone());
    }
    cmd
}

/// clap_complete's bash script spells a subcommand's state one way where it
/// walks the words (`kubectl__valkey__roll__subcmd__grant`) and another in
/// the case arms (`kubectl__subcmd__valkey__subcmd__roll__subcmd__grant`)
/// when the binary's name has a dash, so no subcommand's flags complete
/// (clap-rs/clap#6421). Spell the arms as the walk does; once clap_complete
/// is fixed this finds nothing to replace.
fn fix_bash_case_labels(text: &str) -> String {
    const SEP: &str = "__subcmd__";
    let broken = format!("{}{SEP}", SCRIPT_BIN_NAME.replace('-', SEP));
    let walked = format!("{}{SEP}", SCRIPT_BIN_NAME.replace('-', "__"));
    text.replace(&broken, &walked)
}

/// The file under `completions/` that holds `script`'s output, named as
/// each shell looks for it.
pub fn script_file_name(shell: CompletionShell) -> &'static str {
    match shell {
        CompletionShell::Bash => "kubectl-valkey-roll.bash",
        CompletionShell::Zsh => "_kubectl-valkey-roll",
        CompletionShell::Fish => "kubectl-valkey-roll.fish",
        CompletionShell::Powershell => "kubectl-valkey-roll.ps1",
    }
}

pub const SHELLS: [CompletionShell; 4] = [
    CompletionShell::Bash,
    CompletionShell::Zsh,
    CompletionShell::Fish,
    CompletionShell::Powershell,
];

fn clap_shell(shell: CompletionShell) -> clap_complete::Shell {
    match shell {
        CompletionShell::Bash => clap_complete::Shell::Bash,
        CompletionShell::Zsh => clap_complete::Shell::Zsh,
        CompletionShell::Fish => clap_complete::Shell::Fish,
        CompletionShell::Powershell => clap_complete::Shell::PowerShell,
    }
}

/// One completion candidate: a value and, for shells that show them, a
/// short description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub value: String,
    pub description: Option<String>,
}

impl Candidate {
    pub(crate) fn new(value: impl Into<String>, description: Option<String>) -> Self {
        Candidate {
            value: value.into(),
            description,
        }
    }
}

/// What `__complete` answers: candidates in order, and the directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Completions {
    pub candidates: Vec<Candidate>,
    pub directive: u32,
}

impl Completions {
    fn none() -> Self {
        Completions {
            candidates: Vec::new(),
            directive: directive::NO_FILE_COMP,
        }
    }

    fn files() -> Self {
        Completions {
            candidates: Vec::new(),
            directive: directive::DEFAULT,
        }
    }

    /// Keeps the candidates that start with `prefix`, each value once.
    fn filtered(mut self, prefix: &str) -> Self {
        let mut seen = std::collections::HashSet::new();
        self.candidates
            .retain(|c| c.value.starts_with(prefix) && seen.insert(c.value.clone()));
        self
    }

    /// The lines kubectl reads: `value[<TAB>description]`, then `:N`.
    /// Descriptions are [`clean`]ed like all output (tab and newline
    /// become spaces, so the line protocol holds); a value that cleaning
    /// would change is left out, as completing it would type another name
    /// (only a hand-made file can hold such a name).
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        for c in &self.candidates {
            let value = clean(&c.value);
            if value != c.value {
                continue;
            }
            out.push_str(&value);
            if let Some(d) = c.description.as_deref().filter(|d| !d.is_empty()) {
                out.push('\t');
                out.push_str(&clean(d));
            }
            out.push('\n');
        }
        out.push_str(&format!(":{}\n", self.directive));
        out
    }
}

/// Where the word being completed stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A subcommand's name.
    Subcommand,
    /// A flag of the command so far.
    Flag,
    /// The value of the flag with this long name (`output`), typed as its
    /// own word or after `--flag=` (then `inline` is that `--flag=`).
    FlagValue { flag: String, inline: String },
    /// The subcommand's positional argument number `index` (from 0).
    Positional { index: usize },
}

/// The words typed so far, understood: what is being completed, and the
/// kubectl-style flags that say which cluster to ask.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Typed {
    /// The subcommand typed, by its canonical name (as typed when unknown).
    pub subcommand: Option<String>,
    pub slot: Slot,
    /// The (partial) word being completed.
    pub prefix: String,
    /// The words of the global flags given, to be parsed by clap as the
    /// program itself would (`-n prod`, `--context=x`, `--kubeconfig`, ...).
    pub global_words: Vec<String>,
}

/// The clap definition with global flags propagated to every subcommand.
fn built_command() -> clap::Command {
    let mut root = Cli::command();
    root.build();
    root
}

/// Understands `words` (everything after the plugin's name; the last one is
/// being completed) with the program's own clap definition, so every flag's
/// arity is the real one.
pub(crate) fn parse_words(words: &[String]) -> Typed {
    let root = built_command();
    let (current, before) = match words.split_last() {
        Some((last, before)) => (last.clone(), before),
        None => (String::new(), &[][..]),
    };

    let mut subcommand: Option<String> = None;
    let mut positionals = 0usize;
    let mut global_words = Vec::new();
    let mut after_dashes = false;
    // A flag whose value is the word being completed (its long name).
    let mut pending: Option<String> = None;

    let mut i = 0;
    while i < before.len() {
        let word = &before[i];
        i += 1;
        let cmd = command_of(&root, subcommand.as_deref());
        if after_dashes || !word.starts_with('-') || word == "-" {
            if subcommand.is_none() {
                let name = root
                    .find_subcommand(word)
                    .map(|c| c.get_name().to_string())
                    .unwrap_or_else(|| word.clone());
                subcommand = Some(name);
            } else {
                positionals += 1;
            }
            continue;
        }
        if word == "--" {
            after_dashes = true;
            continue;
        }
        let (arg, value_next) = if let Some(long) = word.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            let arg = cmd.get_arguments().find(|a| a.get_long() == Some(name));
            (arg, arg.is_some_and(|a| !inline && value_is_next_word(a)))
        } else {
            // A cluster of short flags: `-Ay`, `-nprod`, `-n prod`.
            let mut found = None;
            let mut next = false;
            for (at, c) in word.char_indices().skip(1) {
                let Some(arg) = cmd.get_arguments().find(|a| a.get_short() == Some(c)) else {
                    break;
                };
                found = Some(arg);
                if takes_value(arg) {
                    next = word[at + c.len_utf8()..].is_empty();
                    break;
                }
            }
            (found, next)
        };
        let global = arg.is_some_and(Arg::is_global_set);
        if !value_next {
            if global {
                global_words.push(word.clone());
            }
            continue;
        }
        match before.get(i) {
            Some(value) => {
                if global {
                    global_words.extend([word.clone(), value.clone()]);
                }
                i += 1;
            }
            // Its value is the word being completed.
            None => pending = arg.and_then(|a| a.get_long()).map(str::to_string),
        }
    }

    let slot = if let Some(flag) = pending {
        Slot::FlagValue {
            flag,
            inline: String::new(),
        }
    } else if let Some((flag, _)) = current
        .split_once('=')
        .filter(|(f, _)| !after_dashes && f.starts_with("--"))
    {
        Slot::FlagValue {
            flag: flag.trim_start_matches('-').to_string(),
            inline: format!("{flag}="),
        }
    } else if !after_dashes && current.starts_with('-') {
        Slot::Flag
    } else if subcommand.is_none() {
        Slot::Subcommand
    } else {
        Slot::Positional { index: positionals }
    };
    Typed {
        subcommand,
        slot,
        prefix: current,
        global_words,
    }
}

/// The subcommand's definition (its own flags and the global ones), else
/// the root's.
fn command_of<'a>(root: &'a clap::Command, subcommand: Option<&str>) -> &'a clap::Command {
    subcommand
        .and_then(|s| root.find_subcommand(s))
        .unwrap_or(root)
}

fn takes_value(arg: &Arg) -> bool {
    arg.get_action().takes_values()
}

/// The value is the next word (not `--flag=value` only, not optional).
fn value_is_next_word(arg: &Arg) -> bool {
    takes_value(arg)
        && !arg.is_require_equals_set()
        && arg.get_num_args().is_none_or(|r| r.min_values() > 0)
}

/// What a slot takes from the cluster or the kubeconfig.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// ValkeyCluster names (`status`, `wait`).
    Clusters,
    /// ValkeyNode names in the order that suits the command.
    Nodes(NodeOrder),
    /// Namespaces (`-n`).
    Namespaces,
    /// Entries of the kubeconfig (`--context`, `--cluster`, `--user`).
    Contexts,
    KubeClusters,
    Users,
}

/// Which nodes come first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeOrder {
    /// `grant`, `force`: Waiting nodes (in queue order), then the rest.
    WaitingFirst,
    /// `revoke`: permit holders, then the rest.
    HoldersFirst,
    /// `explain`: stuck nodes, then the other holders, then every other
    /// node, then the clusters.
    TroubleFirst,
}

/// What the first positional of a subcommand names, in the order that
/// suits it: exhaustive, so a new command says what it completes (its
/// clap value name must agree: `CLUSTER`, `NODE` or `NAME`, see the tests).
fn first_positional(verb: Verb) -> Option<Lookup> {
    match verb {
        Verb::Status | Verb::Wait | Verb::History | Verb::Bundle | Verb::Dashboard => {
            Some(Lookup::Clusters)
        }
        Verb::Grant | Verb::Force => Some(Lookup::Nodes(NodeOrder::WaitingFirst)),
        Verb::Revoke => Some(Lookup::Nodes(NodeOrder::HoldersFirst)),
        // explain's NAME: a node, else a cluster.
        Verb::Explain | Verb::ReplacePod => Some(Lookup::Nodes(NodeOrder::TroubleFirst)),
        // A shell's name (clap's possible values), or nothing.
        Verb::Exporter | Verb::Completion | Verb::Version | Verb::Complete => None,
    }
}

/// What the request needs looked up, if anything.
pub(crate) fn lookup_for(req: &Typed) -> Option<Lookup> {
    match (&req.slot, req.subcommand.as_deref()) {
        (Slot::Positional { index: 0 }, Some(sub)) => Verb::of(sub).and_then(first_positional),
        (Slot::FlagValue { flag, .. }, _) => match flag.as_str() {
            "namespace" => Some(Lookup::Namespaces),
            "context" => Some(Lookup::Contexts),
            "cluster" => Some(Lookup::KubeClusters),
            "user" => Some(Lookup::Users),
            _ => None,
        },
        _ => None,
    }
}

/// Completions that need no cluster. `None` when the answer has to be
/// looked up ([`lookup_for`]).
pub(crate) fn static_completions(req: &Typed) -> Option<Completions> {
    if lookup_for(req).is_some() {
        return None;
    }
    let root = built_command();
    let cmd = command_of(&root, req.subcommand.as_deref());
    let candidates: Vec<Candidate> = match &req.slot {
        Slot::Subcommand => root
            .get_subcommands()
            .filter(|c| !c.is_hide_set())
            .map(|c| Candidate::new(c.get_name(), c.get_about().map(|a| a.to_string())))
            .collect(),
        Slot::Flag => {
            // As cobra does: short forms too unless `--` is typed.
            let shorts = !req.prefix.starts_with("--");
            let flags = cmd
                .get_arguments()
                .filter(|a| !a.is_hide_set() && !a.is_positional())
                .flat_map(|a| {
                    let help = a.get_help().map(|h| h.to_string());
                    let long = a.get_long().map(|l| format!("--{l}"));
                    let short = a.get_short().filter(|_| shorts).map(|s| format!("-{s}"));
                    [long, short]
                        .into_iter()
                        .flatten()
                        .map(move |name| Candidate::new(name, help.clone()))
                })
                .collect();
            return Some(
                Completions {
                    candidates: flags,
                    directive: directive::NO_FILE_COMP,
                }
                .filtered(&req.prefix),
            );
        }
        Slot::FlagValue { flag, inline } => {
            if matches!(
                flag.as_str(),
                "kubeconfig" | "filename" | "from-file" | "output-file"
            ) {
                return Some(Completions::files());
            }
            cmd.get_arguments()
                .find(|a| a.get_long() == Some(flag.as_str()))
                .map(|a| a.get_possible_values())
                .unwrap_or_default()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| {
                    Candidate::new(
                        format!("{inline}{}", v.get_name()),
                        v.get_help().map(|h| h.to_string()),
                    )
                })
                .collect()
        }
        Slot::Positional { index } => cmd
            .get_positionals()
            .nth(*index)
            .map(|a| a.get_possible_values())
            .unwrap_or_default()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| Candidate::new(v.get_name(), v.get_help().map(|h| h.to_string())))
            .collect(),
    };
    Some(
        Completions {
            candidates,
            directive: directive::NO_FILE_COMP | directive::KEEP_ORDER,
        }
        .filtered(&req.prefix),
    )
}

/// Node (or cluster) names from a report, in the order that suits the
/// command, each with its state as the description.
pub(crate) fn name_candidates(report: &Report, lookup: Lookup) -> Vec<Candidate> {
    let clusters = || {
        report
            .clusters
            .iter()
            .filter(|c| c.cluster_found)
            .map(|c| Candidate::new(&c.name, Some(format!("{} ({})", c.verdict, qualified(c)))))
    };
    let order = match lookup {
        Lookup::Nodes(order) => order,
        Lookup::Clusters => return clusters().collect(),
        _ => return Vec::new(),
    };
    // A stable sort by rank: within a rank, clusters in report order and
    // nodes in walk order (so Waiting nodes come in queue order).
    let mut nodes: Vec<(u8, &ClusterReport, &NodeReport)> = report
        .clusters
        .iter()
        .flat_map(|c| c.nodes.iter().map(move |n| (rank(order, n), c, n)))
        .collect();
    nodes.sort_by_key(|(r, _, _)| *r);
    let mut out: Vec<Candidate> = nodes
        .into_iter()
        .map(|(_, c, n)| Candidate::new(&n.name, Some(node_description(c, n))))
        .collect();
    if order == NodeOrder::TroubleFirst {
        out.extend(clusters());
    }
    out
}

/// A node that jams its cluster: a stuck or stale holder, or a Blocking
/// node with failure evidence.
fn in_trouble(n: &NodeReport) -> bool {
    matches!(n.state, NodeState::Stuck | NodeState::StalePermit)
        || (n.state == NodeState::Blocking && !n.evidence.is_empty())
}

fn rank(order: NodeOrder, n: &NodeReport) -> u8 {
    match order {
        NodeOrder::WaitingFirst => u8::from(n.state != NodeState::Waiting),
        NodeOrder::HoldersFirst => u8::from(!n.state.is_holder()),
        NodeOrder::TroubleFirst if in_trouble(n) => 0,
        NodeOrder::TroubleFirst if n.state.is_holder() => 1,
        NodeOrder::TroubleFirst => 2,
    }
}

fn qualified(c: &ClusterReport) -> String {
    format!("{}/{}", c.namespace, c.name)
}

fn node_description(c: &ClusterReport, n: &NodeReport) -> String {
    match n.queue_position {
        Some(q) => format!("{}, queue {q} ({})", n.state, qualified(c)),
        None => format!("{} ({})", n.state, qualified(c)),
    }
}

/// The global flags typed on the words, as the program would parse them;
/// the defaults when they do not parse (a completion never fails).
pub(crate) fn global_args(req: &Typed) -> Option<GlobalArgs> {
    let parse = |words: &[String]| {
        let argv = std::iter::once("kubectl-valkey-roll".to_string())
            .chain(words.iter().cloned())
            .chain(std::iter::once("version".to_string()));
        Cli::try_parse_from(argv).ok().map(|cli| cli.global)
    };
    parse(&req.global_words).or_else(|| parse(&[]))
}

/// The hidden `__complete`: always exit 0, never a word on stderr.
pub(crate) async fn complete(_ctx: &Ctx, args: &CompleteArgs) -> Result<Outcome> {
    let req = parse_words(&args.words);
    let completions = match static_completions(&req) {
        Some(c) => c,
        None => {
            let looked_up = tokio::time::timeout(LIVE_TIMEOUT, looked_up(&req)).await;
            match looked_up {
                Ok(Some(c)) => c.filtered(&req.prefix),
                _ => Completions::none(),
            }
        }
    };
    Ok(Outcome::ok(completions.render()))
}

/// Candidates read from the cluster, the `-f` snapshot or the kubeconfig;
/// `None` on any error.
async fn looked_up(req: &Typed) -> Option<Completions> {
    let lookup = lookup_for(req)?;
    let ctx = Ctx {
        global: global_args(req)?,
        color: false,
        stdout_is_terminal: false,
        stdin_is_terminal: false,
    };
    // Spawned, so that the caller's timeout still fires if a step blocks
    // its thread (a kubeconfig exec plugin, a slow file).
    let candidates = tokio::spawn(async move {
        match lookup {
            Lookup::Clusters | Lookup::Nodes(_) => {
                let loaded = crate::source::load(&ctx.target(), None).await.ok()?;
                let report = crate::classify::classify(
                    &loaded.snapshot,
                    ctx.now(),
                    ctx.global.stall_threshold,
                );
                Some(name_candidates(&report, lookup))
            }
            Lookup::Namespaces => namespaces(&ctx).await,
            Lookup::Contexts | Lookup::KubeClusters | Lookup::Users => {
                kubeconfig_names(&ctx.global, lookup)
            }
        }
    })
    .await
    .ok()??;
    let candidates: Vec<Candidate> = candidates
        .into_iter()
        .filter(|c| typable(lookup, &c.value))
        .collect();
    let candidates = match &req.slot {
        Slot::FlagValue { inline, .. } if !inline.is_empty() => candidates
            .into_iter()
            .map(|c| Candidate::new(format!("{inline}{}", c.value), c.description))
            .collect(),
        _ => candidates,
    };
    Some(Completions {
        candidates,
        directive: directive::NO_FILE_COMP | directive::KEEP_ORDER,
    })
}

/// Whether `value` may be offered: the shell types a candidate in as it
/// is (kubectl's bash script quotes nothing), so one that would need
/// quoting could split into words, become a flag or run a command. A name
/// of an object (node, cluster, namespace) is a DNS-1123 subdomain, as the
/// API server requires: anything else is not a real name (only a hand-made
/// file holds one) and is dropped without a word. A kubeconfig entry's
/// name is free text (`arn:aws:eks:...:cluster/prod`, `admin@prod`): it is
/// offered when it needs no quoting and does not start with `-`.
pub(crate) fn typable(lookup: Lookup, value: &str) -> bool {
    match lookup {
        Lookup::Clusters | Lookup::Nodes(_) | Lookup::Namespaces => is_dns_subdomain(value),
        Lookup::Contexts | Lookup::KubeClusters | Lookup::Users => {
            !value.is_empty() && !value.starts_with('-') && crate::shell::word(value) == value
        }
    }
}

/// Kubernetes' DNS-1123 subdomain: at most 253 characters, dot-separated
/// labels of lower-case letters, digits and `-`, each starting and ending
/// with a letter or digit.
fn is_dns_subdomain(value: &str) -> bool {
    let label_ok = |l: &str| {
        let b = l.as_bytes();
        !b.is_empty()
            && b.iter()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
            && b[0] != b'-'
            && b[b.len() - 1] != b'-'
    };
    value.len() <= 253 && value.split('.').all(label_ok)
}

/// The namespaces the user may list; with `-f`, the snapshot's.
async fn namespaces(ctx: &Ctx) -> Option<Vec<Candidate>> {
    let mut names: Vec<String> = if ctx.global.from_file.is_some() {
        let loaded = crate::source::load(&ctx.target(), None).await.ok()?;
        loaded
            .snapshot
            .clusters
            .iter()
            .map(|c| c.namespace().to_string())
            .collect()
    } else {
        let live = crate::source::live::connect(&ctx.access()).await.ok()?;
        live.namespace_names().await?
    };
    names.sort();
    names.dedup();
    Some(names.into_iter().map(|n| Candidate::new(n, None)).collect())
}

/// Context, cluster or user names of the kubeconfig in use.
fn kubeconfig_names(global: &GlobalArgs, lookup: Lookup) -> Option<Vec<Candidate>> {
    use kube::config::Kubeconfig;
    let config = match &global.kubeconfig {
        Some(path) => Kubeconfig::read_from(path),
        None => Kubeconfig::read(),
    }
    .ok()?;
    let names: Vec<Candidate> = match lookup {
        Lookup::Contexts => config
            .contexts
            .iter()
            .map(|c| {
                let current = config.current_context.as_deref() == Some(c.name.as_str());
                Candidate::new(&c.name, current.then(|| "current".to_string()))
            })
            .collect(),
        Lookup::KubeClusters => config
            .clusters
            .iter()
            .map(|c| Candidate::new(&c.name, None))
            .collect(),
        Lookup::Users => config
            .auth_infos
            .iter()
            .map(|u| Candidate::new(&u.name, None))
            .collect(),
        _ => Vec::new(),
    };
    Some(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample::{bare_cluster, bare_node};
    use crate::report::Finding;
    use crate::report::{Evidence, EvidenceKind, Verdict};

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    fn values(c: &Completions) -> Vec<&str> {
        c.candidates.iter().map(|c| c.value.as_str()).collect()
    }

    #[test]
    fn words_are_understood_with_the_real_flag_arity() {
        let positional = |sub: &str, index| (Some(sub.to_string()), Slot::Positional { index });
        let value = |flag: &str, inline: &str| Slot::FlagValue {
            flag: flag.into(),
            inline: inline.into(),
        };
        // (words, subcommand, slot, global words)
        type Case<'a> = (&'a [&'a str], (Option<String>, Slot), &'a [&'a str]);
        let cases: Vec<Case> = vec![
            (&[], (None, Slot::Subcommand), &[]),
            (&[""], (None, Slot::Subcommand), &[]),
            (&["gr"], (None, Slot::Subcommand), &[]),
            (&["grant", ""], positional("grant", 0), &[]),
            (&["grant", "x", ""], positional("grant", 1), &[]),
            (
                &["-n", "prod", "grant", ""],
                positional("grant", 0),
                &["-n", "prod"],
            ),
            (
                &["grant", "-n", "prod", "c"],
                positional("grant", 0),
                &["-n", "prod"],
            ),
            (
                &["grant", "-nprod", ""],
                positional("grant", 0),
                &["-nprod"],
            ),
            (
                &["revoke", "--context=kind", "--kubeconfig", "/k", ""],
                positional("revoke", 0),
                &["--context=kind", "--kubeconfig", "/k"],
            ),
            // A flag's value that is not global is skipped, not recorded.
            (&["grant", "--reason", "r", ""], positional("grant", 0), &[]),
            // --dry-run takes its value only after `=`: the next word is the node.
            (&["grant", "--dry-run", ""], positional("grant", 0), &[]),
            (&["-A", "status", ""], positional("status", 0), &["-A"]),
            (
                &["status", "-o", ""],
                (Some("status".into()), value("output", "")),
                &[],
            ),
            (&["-n", ""], (None, value("namespace", "")), &[]),
            (
                &["grant", "--dry-run=s"],
                (Some("grant".into()), value("dry-run", "--dry-run=")),
                &[],
            ),
            (
                &["status", "--wa"],
                (Some("status".into()), Slot::Flag),
                &[],
            ),
            (&["grant", "--", "-x"], positional("grant", 0), &[]),
        ];
        for (w, (sub, slot), globals) in cases {
            let req = parse_words(&words(w));
            assert_eq!(
                (req.subcommand.clone(), req.slot.clone()),
                (sub, slot),
                "{w:?}"
            );
            assert_eq!(req.global_words, words(globals), "{w:?}");
            assert_eq!(req.prefix, w.last().copied().unwrap_or(""), "{w:?}");
        }
    }

    #[test]
    fn global_flags_on_the_words_reach_the_connection() {
        let req = parse_words(&words(&[
            "--kubeconfig",
            "/tmp/kc",
            "grant",
            "--context",
            "kind",
            "-n",
            "prod",
            "",
        ]));
        let global = global_args(&req).expect("parses");
        assert_eq!(global.namespace.as_deref(), Some("prod"));
        assert_eq!(global.context(), Some("kind"));
        assert_eq!(
            global.kubeconfig.as_deref(),
            Some(std::path::Path::new("/tmp/kc"))
        );
        // Flags that do not parse together fall back to the defaults.
        let req = parse_words(&words(&["-A", "-n", "prod", "status", ""]));
        let global = global_args(&req).expect("defaults");
        assert_eq!(global.namespace, None);
        assert!(!global.all_namespaces);
    }

    #[test]
    fn static_answers() {
        // (words, expected values in order, directive)
        let keep = directive::NO_FILE_COMP | directive::KEEP_ORDER;
        let cases: Vec<(&[&str], &[&str], u32)> = vec![
            (&["gr"], &["grant"], keep),
            (&["w"], &["wait"], keep),
            (
                &["completion", ""],
                &["bash", "zsh", "fish", "powershell"],
                keep,
            ),
            (&["completion", "z"], &["zsh"], keep),
            (
                &["status", "-o", ""],
                &["table", "wide", "json", "yaml", "name", "svg"],
                keep,
            ),
            (&["status", "--output", "j"], &["json"], keep),
            (
                &["grant", "x", "--dry-run="],
                &["--dry-run=none", "--dry-run=client", "--dry-run=server"],
                keep,
            ),
            (&["grant", "x", "--protocol", ""], &["P1", "P2"], keep),
            (&["status", "--wat"], &["--watch"], directive::NO_FILE_COMP),
            (&["status", "-w"], &["-w"], directive::NO_FILE_COMP),
            (&["status", "-A"], &["-A"], directive::NO_FILE_COMP),
            (
                &["force", "x", "--ta"],
                &["--takeover"],
                directive::NO_FILE_COMP,
            ),
            (&["status", "--kubeconfig", ""], &[], directive::DEFAULT),
            (&["status", "-f", ""], &[], directive::DEFAULT),
            (&["bundle", "--output-file", ""], &[], directive::DEFAULT),
            (&["version", ""], &[], keep),
            (&["grant", "x", ""], &[], keep),
        ];
        for (w, want, dir) in cases {
            let req = parse_words(&words(w));
            let got = static_completions(&req).unwrap_or_else(|| panic!("{w:?}: static"));
            assert_eq!(values(&got), want.to_vec(), "{w:?}");
            assert_eq!(got.directive, dir, "{w:?}");
        }
    }

    #[test]
    fn hidden_and_global_flags() {
        let got = static_completions(&parse_words(&words(&[""]))).expect("static");
        assert!(!values(&got).contains(&"__complete"), "{:?}", values(&got));
        let got = static_completions(&parse_words(&words(&["grant", "--"]))).expect("static");
        for flag in [
            "--namespace",
            "--context",
            "--kubeconfig",
            "--reason",
            "--dry-run",
        ] {
            assert!(values(&got).contains(&flag), "{flag} in {:?}", values(&got));
        }
        assert!(
            !values(&got).contains(&"--takeover"),
            "force's flag offered for grant"
        );
    }

    #[test]
    fn names_need_a_lookup() {
        let cases: &[(&[&str], Lookup)] = &[
            (&["status", ""], Lookup::Clusters),
            (&["wait", "c"], Lookup::Clusters),
            (&["bundle", ""], Lookup::Clusters),
            (&["grant", ""], Lookup::Nodes(NodeOrder::WaitingFirst)),
            (
                &["force", "--reason", "r", ""],
                Lookup::Nodes(NodeOrder::WaitingFirst),
            ),
            (&["revoke", ""], Lookup::Nodes(NodeOrder::HoldersFirst)),
            (&["explain", ""], Lookup::Nodes(NodeOrder::TroubleFirst)),
            (&["replace-pod", ""], Lookup::Nodes(NodeOrder::TroubleFirst)),
            (&["status", "-n", ""], Lookup::Namespaces),
            (&["--namespace=p"], Lookup::Namespaces),
            (&["--context", ""], Lookup::Contexts),
            (&["status", "--cluster", ""], Lookup::KubeClusters),
            (&["status", "--user", ""], Lookup::Users),
        ];
        for (w, want) in cases {
            let req = parse_words(&words(w));
            assert_eq!(lookup_for(&req), Some(*want), "{w:?}");
            assert_eq!(static_completions(&req), None, "{w:?}");
        }
    }

    /// Every subcommand clap knows has its verb, under the same name, and
    /// completes what its first positional names in clap's definition: a
    /// cluster (`CLUSTER`), a node (`NODE`, `NAME`), or nothing.
    #[test]
    fn lookups_follow_clap_s_subcommands() {
        let root = built_command();
        let mut named = Vec::new();
        // clap's own `help` is no command of this program.
        for sub in root.get_subcommands().filter(|s| s.get_name() != "help") {
            let name = sub.get_name();
            let verb = Verb::of(name).unwrap_or_else(|| panic!("{name} has no verb"));
            named.push(verb);
            let value_name = sub
                .get_positionals()
                .next()
                .and_then(|a| a.get_value_names()?.first().map(|v| v.to_string()));
            let lookup = first_positional(verb);
            match value_name.as_deref() {
                Some("CLUSTER") => assert_eq!(lookup, Some(Lookup::Clusters), "{name}"),
                Some("NODE" | "NAME") => {
                    assert!(
                        matches!(lookup, Some(Lookup::Nodes(_))),
                        "{name}: {lookup:?}"
                    );
                }
                _ => assert_eq!(lookup, None, "{name}"),
            }
            let req = parse_words(&words(&[name, ""]));
            assert_eq!(lookup_for(&req), lookup, "{name}");
        }
        for verb in <Verb as clap::ValueEnum>::value_variants() {
            assert!(named.contains(verb), "{verb:?} is no subcommand");
        }
        // Command::verb names each parsed command as clap does.
        let parsed = |args: &[&str]| {
            Cli::try_parse_from(["kubectl-valkey-roll"].iter().chain(args))
                .expect("parses")
                .command
                .verb()
        };
        assert_eq!(parsed(&["replace-pod", "cache-0-1"]), Verb::ReplacePod);
        assert_eq!(parsed(&["version"]), Verb::Version);
        assert_eq!(parsed(&["__complete", "gr"]), Verb::Complete);
    }

    fn node(name: &str, state: NodeState, queue: Option<usize>) -> NodeReport {
        NodeReport {
            queue_position: queue,
            ..bare_node(name, state)
        }
    }

    fn cluster(name: &str, verdict: Verdict, nodes: Vec<NodeReport>) -> ClusterReport {
        bare_cluster(name, verdict, nodes)
    }

    fn report() -> Report {
        use NodeState::*;
        let mut jammed_front = node("b-0-1", Blocking, None);
        jammed_front.evidence.push(Evidence::new(
            EvidenceKind::CrashLoopBackOff,
            Finding::ContainerWaiting {
                pod: "valkey-b-0-1-0".into(),
                container: "server".into(),
                reason: "CrashLoopBackOff".into(),
                restarts: 7,
            },
        ));
        let mut orphan = cluster(
            "gone",
            Verdict::Waiting,
            vec![node("g-0-0", Waiting, Some(1))],
        );
        orphan.cluster_found = false;
        Report {
            clusters: vec![
                // Nodes in walk order, as the classifier gives them.
                cluster(
                    "a",
                    Verdict::Jammed,
                    vec![
                        node("a-0-1", Converged, None),
                        node("a-0-0", Waiting, Some(1)),
                        node("a-1-1", Stuck, None),
                        node("a-1-0", Waiting, Some(2)),
                    ],
                ),
                cluster(
                    "b",
                    Verdict::Rolling,
                    vec![
                        node("b-0-0", Rolling, None),
                        jammed_front,
                        node("b-1-0", Settling, None),
                        node("b-1-1", Waiting, Some(1)),
                    ],
                ),
                orphan,
            ],
        }
    }

    #[test]
    fn nodes_that_make_sense_come_first() {
        let cases: &[(Lookup, &[&str])] = &[
            (
                Lookup::Nodes(NodeOrder::WaitingFirst),
                &[
                    "a-0-0", "a-1-0", "b-1-1", "g-0-0", "a-0-1", "a-1-1", "b-0-0", "b-0-1", "b-1-0",
                ],
            ),
            (
                Lookup::Nodes(NodeOrder::HoldersFirst),
                &[
                    "a-1-1", "b-0-0", "b-1-0", "a-0-1", "a-0-0", "a-1-0", "b-0-1", "b-1-1", "g-0-0",
                ],
            ),
            (
                Lookup::Nodes(NodeOrder::TroubleFirst),
                &[
                    "a-1-1", "b-0-1", "b-0-0", "b-1-0", "a-0-1", "a-0-0", "a-1-0", "b-1-1",
                    "g-0-0", "a", "b",
                ],
            ),
            // Only clusters that exist: `wait` on a missing one is an error.
            (Lookup::Clusters, &["a", "b"]),
        ];
        let report = report();
        for (lookup, want) in cases {
            let got = name_candidates(&report, *lookup);
            let names: Vec<&str> = got.iter().map(|c| c.value.as_str()).collect();
            assert_eq!(names, want.to_vec(), "{lookup:?}");
        }
    }

    #[test]
    fn descriptions_name_state_queue_and_cluster() {
        let got = name_candidates(&report(), Lookup::Nodes(NodeOrder::WaitingFirst));
        assert_eq!(
            got[0].description.as_deref(),
            Some("Waiting, queue 1 (prod/a)")
        );
        let got = name_candidates(&report(), Lookup::Clusters);
        assert_eq!(got[0].description.as_deref(), Some("Jammed (prod/a)"));
    }

    #[test]
    fn only_names_that_need_no_quoting_are_offered() {
        let node = Lookup::Nodes(NodeOrder::TroubleFirst);
        let long = "a".repeat(254);
        let longest = format!("{}.{}", "a".repeat(63), "b".repeat(189));
        // (case, lookup, value, offered)
        let cases: &[(&str, Lookup, &str, bool)] = &[
            ("a node name", node, "cache-0-1", true),
            ("a dotted name", node, "valkey.cache-0-1", true),
            ("a cluster name", Lookup::Clusters, "cache", true),
            ("a namespace", Lookup::Namespaces, "prod", true),
            ("253 characters", node, &longest, true),
            ("254 characters", node, &long, false),
            ("a command after a semicolon", node, "x;touch PWNED", false),
            ("a space", node, "a b", false),
            ("a flag", node, "-n", false),
            ("a flag namespace", Lookup::Namespaces, "-A", false),
            ("command substitution", node, "$(id)", false),
            ("backquotes", node, "`id`", false),
            ("a single quote", node, "it's", false),
            ("a double quote", node, "say\"hi\"", false),
            ("a newline", node, "a\nb", false),
            ("a tab", node, "a\tb", false),
            ("a glob", node, "cache-*", false),
            ("a tilde", Lookup::Clusters, "~root", false),
            ("upper case", node, "Cache", false),
            ("non-ASCII", node, "caf\u{e9}", false),
            ("a trailing dash", node, "cache-", false),
            ("an empty label", node, "a..b", false),
            ("empty", node, "", false),
            (
                "a context with an ARN",
                Lookup::Contexts,
                "arn:aws:eks:eu-west-1:1:cluster/prod",
                true,
            ),
            ("a user at a cluster", Lookup::Users, "admin@prod", true),
            (
                "a kubeconfig cluster",
                Lookup::KubeClusters,
                "kind-dev",
                true,
            ),
            ("a context with a space", Lookup::Contexts, "my ctx", false),
            ("a context like a flag", Lookup::Contexts, "--all", false),
            (
                "a context with a semicolon",
                Lookup::Contexts,
                "x;touch PWNED",
                false,
            ),
            ("a context with $()", Lookup::Contexts, "$(id)", false),
            ("an empty context", Lookup::Contexts, "", false),
        ];
        for (case, lookup, value, offered) in cases {
            assert_eq!(typable(*lookup, value), *offered, "{case}: {value:?}");
        }
    }

    #[test]
    fn rendered_lines_follow_kubectls_protocol() {
        let c = Completions {
            candidates: vec![
                Candidate::new("cache-0-0", Some("Waiting,\tqueue 1\n(prod/cache)".into())),
                Candidate::new("cache-0-1", None),
                Candidate::new("cache-0-0", None),
                Candidate::new("other", None),
            ],
            directive: directive::NO_FILE_COMP | directive::KEEP_ORDER,
        }
        .filtered("cache");
        assert_eq!(
            c.render(),
            "cache-0-0\tWaiting, queue 1 (prod/cache)\ncache-0-1\n:36\n"
        );
        assert_eq!(Completions::none().render(), ":4\n");
        // Escapes and invisible characters reach no terminal: shown in a
        // description, and a name that holds one is not offered.
        let c = Completions {
            candidates: vec![
                Candidate::new("cache-0-0", Some("Stuck \u{1b}[2J\u{200b}".into())),
                Candidate::new("cache\u{1b}[31m", None),
                Candidate::new("cache\u{200b}", None),
            ],
            directive: directive::NO_FILE_COMP,
        };
        assert_eq!(c.render(), "cache-0-0\tStuck \\u{1b}[2J\\u{200b}\n:4\n");
    }

    #[test]
    fn every_shell_has_a_script_for_the_direct_name() {
        for shell in SHELLS {
            let text = script(shell);
            assert!(text.contains(SCRIPT_BIN_NAME), "{shell:?}");
            assert!(
                !text.contains("__complete"),
                "{shell:?}: hidden command in the script"
            );
        }
    }
}
