//! The live layer: what keeps a roll live for the four commands that
//! follow one (`status --watch`, `wait`, `exporter`, `dashboard`). Each
//! takes from it and renders; none wires a watch or a retry itself.
//!
//! - [`start`]: connect to one context and start its watch (the reading
//!   layer's [`Watch`], whose watchers retry on their own with
//!   kube-runtime's back-off);
//! - [`keep`]: a context kept for as long as a long-running command
//!   serves (the exporter, the dashboard): started, followed until it
//!   ends, told why, started again after kube-runtime's back-off
//!   ([`DefaultBackoff`]: 0.8 s doubling to 30 s, with jitter, reset once
//!   a start succeeds);
//! - [`ConnectionView`]: a context's connection, live or lost since when
//!   (what a stale view is "as of");
//! - [`judgements`]: each cluster's judgement, kept between changes;
//! - [`servers`]: the Valkey servers read again on one schedule
//!   ([`servers::Rereader`]), for whichever of the four asked for them;
//! - [`stop_requested`]: Ctrl-C or SIGTERM, the one door out of each.
//!
//! Direction: commands -> live -> source; render never imports it
//! (tests/layers.rs).

mod connection;
pub(crate) mod judgements;
pub(crate) mod servers;

pub(crate) use connection::ConnectionView;

use crate::error::{Error, Result};
use crate::source::live::{Live, connect};
use crate::source::watch::{Scope, Watch};
use crate::source::{Access, live_namespace};
use kube::runtime::utils::Backoff;
use kube::runtime::watcher::DefaultBackoff;
use std::future::Future;
use std::time::Duration;

/// Which namespaces a context's view takes in.
#[derive(Clone, Copy, Debug)]
pub(crate) enum InView<'a> {
    /// `-A` every namespace, `-n` that one, else the kubeconfig
    /// context's (status, watch, wait, dashboard).
    AsAsked {
        namespace: Option<&'a str>,
        all_namespaces: bool,
    },
    /// `-n` that one, else every namespace (the exporter, which serves a
    /// whole cluster's rolls whatever its kubeconfig says).
    NamespaceOrAll(Option<&'a str>),
}

/// How a watch takes an error of one kind (a kind it may not list, an
/// object that breaks the schema).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tolerance {
    /// The watch ends with the error: a command a person reads.
    Strict,
    /// The kind is marked and the rest watched: the exporter.
    Tolerant,
}

/// Connects to the context of `access` and starts the watch of what
/// `status`/`wait` would read there (one `cluster`, or all in view).
pub(crate) async fn start(
    access: &Access,
    in_view: InView<'_>,
    cluster: Option<&str>,
    tolerance: Tolerance,
) -> Result<(Live, Watch, Scope)> {
    let live = connect(access).await?;
    let namespace = match in_view {
        InView::AsAsked {
            namespace,
            all_namespaces,
        } => live_namespace(namespace, all_namespaces, &live.default_namespace),
        InView::NamespaceOrAll(namespace) => namespace.map(str::to_string),
    };
    let scope = Scope {
        namespace,
        cluster: cluster.map(str::to_string),
    };
    let watch = match tolerance {
        Tolerance::Strict => Watch::start(&live, &scope)?,
        Tolerance::Tolerant => Watch::start_tolerant(&live, &scope)?,
    };
    Ok((live, watch, scope))
}

/// A context kept by [`keep`]: how it starts, what follows it, and what is
/// said while it is down.
pub(crate) trait Kept {
    /// What a start gives (a connection and its watch).
    type Started;
    /// Connects and starts the watch.
    fn start(&mut self) -> impl Future<Output = Result<Self::Started>> + Send;
    /// Follows a started context until it ends: why, when an error ended
    /// it (`None`: every watcher stopped).
    fn follow(&mut self, started: Self::Started) -> impl Future<Output = Option<Error>> + Send;
    /// The context is down (`why`, `None` when its watch ended without an
    /// error) and is tried again in `retry_in`.
    fn down(&mut self, why: Option<&Error>, retry_in: Duration);
}

/// Keeps `context` for as long as the caller runs this (it never returns;
/// abort its task to stop): starts it, follows it, and when a start fails
/// or the followed watch ends, says so and tries again after the back-off.
pub(crate) async fn keep<K: Kept>(mut context: K) {
    let mut backoff = DefaultBackoff::default();
    loop {
        let why = match context.start().await {
            Ok(started) => {
                backoff.reset();
                context.follow(started).await
            }
            Err(e) => Some(e),
        };
        // DefaultBackoff never runs out; were it to, the longest wait.
        let retry_in = backoff.next().unwrap_or(LONGEST_RETRY);
        context.down(why.as_ref(), retry_in);
        tokio::time::sleep(retry_in).await;
    }
}

/// DefaultBackoff's longest wait.
const LONGEST_RETRY: Duration = Duration::from_secs(30);

/// Resolves when Ctrl-C (SIGINT) or SIGTERM asks the view to end: both leave
/// through the same door, so the terminal is restored and the exit is 0. A
/// signal that cannot be listened for is simply not listened for; the view
/// must not end because of it.
pub(crate) async fn stop_requested() {
    let sigterm = async {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            if let Ok(mut terminate) = signal(SignalKind::terminate()) {
                terminate.recv().await;
                return;
            }
        }
        std::future::pending::<()>().await
    };
    tokio::select! {
        Ok(()) = tokio::signal::ctrl_c() => {}
        () = sigterm => {}
    }
}
