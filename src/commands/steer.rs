//! `grant`, `revoke`, `force` and `replace-pod`: read, plan, and (against a cluster)
//! execute; print the result for people or as docs/plugin.md's steering
//! document. Exit 0 written or planned, 4 refused, 6 another holder after
//! the write, 1 errors.

use crate::cli::{
    DryRunArg, ForceArgs, GlobalArgs, GrantArgs, OutputFormat, ProtocolArg, ReplacePodArgs,
    RevokeArgs, SteerArgs,
};
use crate::commands::Ctx;
use crate::error::{Error, Outcome, Result};
use crate::render;
use crate::report::Protocol;
use crate::snapshot::Snapshot;
use crate::source;
use crate::steer::Steered;
use crate::steer::exec::{self, Confirm, Options};
use crate::steer::plan::{
    AccessFlags, Confirmation, Decision, DryRun, Request, ServersAsked, Steer,
};

pub(crate) async fn grant(ctx: &Ctx, args: &GrantArgs) -> Result<Outcome> {
    let steer = Steer::Grant {
        revision: args.revision.clone(),
        any: args.any,
        allow_primary: args.allow_primary,
    };
    run(ctx, steer, &args.node, args.reason.clone(), &args.steer).await
}

pub(crate) async fn revoke(ctx: &Ctx, args: &RevokeArgs) -> Result<Outcome> {
    run(
        ctx,
        Steer::Revoke,
        &args.node,
        args.reason.clone(),
        &args.steer,
    )
    .await
}

pub(crate) async fn force(ctx: &Ctx, args: &ForceArgs) -> Result<Outcome> {
    let steer = Steer::Force {
        revision: args.revision.clone(),
        any: args.any,
        takeover: args.takeover,
        unsafe_shard: args.unsafe_shard,
    };
    let reason = Some(args.reason.clone());
    run(ctx, steer, &args.node, reason, &args.steer).await
}

pub(crate) async fn replace_pod(ctx: &Ctx, args: &ReplacePodArgs) -> Result<Outcome> {
    run(
        ctx,
        Steer::ReplacePod,
        &args.node,
        args.reason.clone(),
        &args.steer,
    )
    .await
}

fn protocol(steer: &SteerArgs) -> Option<Protocol> {
    steer.protocol.map(|p| match p {
        ProtocolArg::P1 => Protocol::P1,
        ProtocolArg::P2 => Protocol::P2,
    })
}

fn dry_run(steer: &SteerArgs) -> DryRun {
    match steer.dry_run {
        DryRunArg::None => DryRun::None,
        DryRunArg::Client => DryRun::Client,
        DryRunArg::Server => DryRun::Server,
    }
}

/// The flags that chose the API server and the user, repeated in the undo
/// command a plan prints.
fn access_flags(global: &GlobalArgs) -> AccessFlags {
    AccessFlags {
        kubeconfig: global
            .kubeconfig
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
        context: global.context().map(str::to_string),
        kube_cluster: global.kube_cluster.clone(),
        user: global.user.clone(),
        impersonate: global.impersonate.clone(),
        impersonate_groups: global.impersonate_groups.clone(),
    }
}

/// Reads (the servers of the node's cluster too, unless `--servers=off`),
/// settles the node's namespace, then plans: against a cluster the
/// executor goes on to send; from a file the plan is the answer.
async fn run(
    ctx: &Ctx,
    steer: Steer,
    node: &str,
    reason: Option<String>,
    flags: &SteerArgs,
) -> Result<Outcome> {
    let mut loaded = source::load(&ctx.target(), None).await?;
    let namespace = namespace_of(&loaded.snapshot, loaded.namespace.as_deref(), node)?;
    let transport = super::shared::reach(flags.servers, &flags.servers_ca);
    let servers = match (&loaded.live, transport.clone()) {
        (None, _) => ServersAsked::File,
        (Some(_), None) => ServersAsked::Off,
        (Some(live), Some(how)) => {
            let cluster = cluster_of(&loaded.snapshot, &namespace, node);
            exec::read_servers(
                live,
                &mut loaded.snapshot,
                &namespace,
                cluster.as_deref(),
                &how,
            )
            .await
        }
    };
    let request = Request {
        steer,
        namespace,
        node: node.to_string(),
        reason,
        protocol_override: protocol(flags),
        dry_run: dry_run(flags),
        access: access_flags(&ctx.global),
        servers,
    };
    let opts = Options {
        yes: flags.yes,
        interactive: ctx.stdin_is_terminal,
        stall_threshold: ctx.global.stall_threshold,
        now: ctx.global.now,
        servers: transport,
    };
    let steered = match &loaded.live {
        Some(live) => {
            exec::execute(
                live,
                &loaded.snapshot,
                &request,
                &opts,
                &mut TerminalPrompt { color: ctx.color },
            )
            .await?
        }
        // A file (`--dry-run=client` only): a plan, with no API server to
        // ask who the actor is; the login name stands in.
        None => {
            let actor = std::env::var("USER")
                .or_else(|_| std::env::var("USERNAME"))
                .ok()
                .filter(|u| !u.is_empty())
                .unwrap_or_else(|| "unknown".to_string());
            Steered::planned(exec::first_plan(&loaded.snapshot, &request, &opts, &actor)?)
        }
    };
    let mut outcome = output(ctx, &steered)?;
    // A file read once from its copies says so, as status does.
    outcome
        .stderr
        .insert_str(0, &render::notice::duplicate_warning(&loaded.duplicates));
    Ok(outcome)
}

/// The ValkeyCluster of node `node` in `namespace`, by its label or owner.
fn cluster_of(snapshot: &Snapshot, namespace: &str, node: &str) -> Option<String> {
    snapshot
        .nodes
        .iter()
        .find(|n| n.namespace() == namespace && n.name() == node)
        .and_then(|n| n.cluster_name())
        .map(str::to_string)
}

/// The node's namespace: the one in view, else (a file read without `-n`,
/// or `-A`) the one namespace where a node of that name exists.
fn namespace_of(snapshot: &Snapshot, in_view: Option<&str>, node: &str) -> Result<String> {
    if let Some(ns) = in_view {
        return Ok(ns.to_string());
    }
    let mut found: Vec<&str> = snapshot
        .nodes
        .iter()
        .filter(|n| n.name() == node)
        .map(|n| n.namespace())
        .collect();
    found.sort_unstable();
    found.dedup();
    match found.as_slice() {
        [one] => Ok((*one).to_string()),
        [] => {
            let names: Vec<&str> = snapshot.nodes.iter().map(|n| n.name()).collect();
            Err(Error::NotFound {
                kind: "ValkeyNode",
                namespace: None,
                name: node.to_string(),
                nearest: crate::names::nearest(node, &names),
            })
        }
        many => Err(Error::Usage(render::steer::several_namespaces(node, many))),
    }
}

/// The screen of text for stderr: the terminal's width, no colour.
fn plain(ctx: &Ctx) -> crate::render::fit::Screen {
    crate::render::fit::Screen {
        color: false,
        ..ctx.screen()
    }
}

fn output(ctx: &Ctx, steered: &Steered) -> Result<Outcome> {
    let (stdout, stderr) = match ctx.global.output {
        OutputFormat::Json => (
            render::json::to_json(&render::steer::document(steered))?,
            String::new(),
        ),
        OutputFormat::Yaml => (
            render::json::to_yaml(&render::steer::document(steered))?,
            String::new(),
        ),
        // kubectl's `-o name`: what was (or would be) written to; a refusal
        // says why on stderr, as in text.
        OutputFormat::Name if steered.plan.decision == Decision::Refused => {
            (String::new(), render::steer::text(steered, plain(ctx)))
        }
        OutputFormat::Name => (
            match &steered.plan.pod_delete {
                Some(d) => render::name::pod(&d.pod),
                None => render::name::node(&steered.plan.node),
            },
            String::new(),
        ),
        OutputFormat::Table | OutputFormat::Wide | OutputFormat::Svg => {
            // A refusal is a failure: it goes where errors go, as plain
            // text (colour is chosen for stdout; stderr is cleaned as a
            // whole by `main`).
            if steered.plan.decision == Decision::Refused {
                (String::new(), render::steer::text(steered, plain(ctx)))
            } else {
                (render::steer::text(steered, ctx.screen()), String::new())
            }
        }
    };
    Ok(Outcome {
        stdout,
        stderr,
        exit: steered.exit,
    })
}

/// Asks on the terminal: the plan and the question on stderr, the answer
/// from stdin. Only `y` or `yes` goes ahead.
pub(crate) struct TerminalPrompt {
    /// Colour the plan shown before asking.
    pub color: bool,
}

impl Confirm for TerminalPrompt {
    async fn ask(&mut self, planned: &Steered, question: &Confirmation) -> bool {
        let prompt = render::steer::prompt(planned, question, self.color);
        // Reading stdin blocks: keep it off the async workers.
        let answer = tokio::task::spawn_blocking(move || {
            use std::io::Write;
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(prompt.as_bytes());
            let _ = err.flush();
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).map(|_| line)
        })
        .await;
        matches!(
            answer.as_ref().map(|r| r.as_ref().map(|l| l.trim().to_ascii_lowercase())),
            Ok(Ok(a)) if a == "y" || a == "yes"
        )
    }
}
