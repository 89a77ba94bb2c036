//! One error type for the whole program, and its exit code
//! (`Error::exit`: 2 for a usage error, 1 for every other).
//!
//! Variants carry the facts (which object, which field, which verb) and,
//! where there is one, the typed cause (`source`: an I/O, JSON or kube
//! error); the message is built by `Display`, where it is shown. Some
//! still carry a cause in words (`problem`): those made by code that
//! words it itself (the snapshot reader's budgets and schema checks), or
//! by several error types at once (`Encode`).

/// Exit codes of every command (docs/plugin.md, "Exit codes").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    Done = 0,
    Error = 1,
    Usage = 2,
    NeedsAttention = 3,
    Refused = 4,
    TimedOut = 5,
    OtherHolder = 6,
    /// Several kubeconfig contexts were asked for and some could not be
    /// read: the others are shown, and a warning names each one missing.
    ContextsUnread = 7,
}

impl Exit {
    pub(crate) fn code(self) -> u8 {
        self as u8
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A document of a snapshot file breaks the schema.
    #[error("{source_name}: document {doc}{object}: field `{field}`: {problem}")]
    Snapshot {
        /// The file (or `stdin`).
        source_name: String,
        /// 1-based document index; `3/items[2]` for the third item of a List.
        doc: String,
        /// ` (Kind namespace/name)` when known, else empty.
        object: String,
        field: String,
        problem: String,
    },
    #[error("cannot read {path}: {problem}")]
    Read { path: String, problem: ReadProblem },
    /// A snapshot that holds no Kubernetes object: read as "nothing wrong",
    /// it would hide a `kubectl get` that failed upstream.
    #[error(
        "{source_name}: {found}, so there is nothing to judge; take a snapshot with `kubectl get valkeyclusters,valkeynodes,statefulsets,deployments,pods,events -n NS -o yaml > snapshot.yaml` or `kubectl valkey-roll bundle`"
    )]
    NoObjects { source_name: String, found: Nothing },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    /// `namespace` is `None` when every namespace in view was looked in
    /// (`ValkeyCluster cache not found in any namespace`).
    #[error("{kind} {} not found{}{}", located(.namespace, .name), if .namespace.is_none() { " in any namespace" } else { "" }, nearest_hint(.nearest))]
    NotFound {
        kind: &'static str,
        namespace: Option<String>,
        name: String,
        nearest: Vec<String>,
    },
    #[error(
        "{crd} is not installed on this cluster (no such CustomResourceDefinition; is the valkey-operator installed?)"
    )]
    CrdMissing { crd: String },
    /// A LIST in a namespace that does not exist answers an empty list; the
    /// plugin asks for the namespace before it says "nothing found".
    #[error(
        "namespace \"{namespace}\" does not exist on this cluster (check -n or the kubeconfig context's namespace)"
    )]
    NamespaceMissing { namespace: String },
    /// A 401, with what the client can tell about the credential it sent.
    #[error("unauthorized: the API server {server} rejected the credentials: {why}")]
    CredentialsRejected { server: String, why: String },
    /// The TLS handshake failed on the server's certificate.
    #[error(
        "the API server {server} presented a certificate that the certificate authority of {} does not trust ({problem}); check the cluster's certificate-authority(-data) in the kubeconfig, or --context",
        cluster_in(.cluster, .kubeconfig)
    )]
    ServerNotTrusted {
        server: String,
        cluster: Option<String>,
        kubeconfig: Option<String>,
        problem: String,
        #[source]
        source: Option<Box<kube::Error>>,
    },
    #[error(
        "forbidden: you may not {verb} {resource}{} ({message}); ask for a Role with that verb (see README, Permissions)",
        in_namespace(.namespace)
    )]
    Forbidden {
        verb: String,
        resource: String,
        namespace: Option<String>,
        message: String,
    },
    #[error(
        "unauthorized: the API server rejected the credentials ({message}); log in again or check --kubeconfig/--context"
    )]
    Unauthorized { message: String },
    #[error("cannot reach the API server {server}: {problem}")]
    Unreachable {
        server: String,
        /// The client's error chain, in words (`problem`) and kept (`source`).
        problem: String,
        #[source]
        source: Option<Box<kube::Error>>,
    },
    #[error("kubeconfig: {problem}")]
    Kubeconfig { problem: String },
    /// An answer (of a watch: one event) larger than the cap: a server or
    /// proxy that never ends it.
    #[error(
        "the API server {server} answered {verb} {resource} with more than {limit_mib} MiB; stopped reading it (a server or proxy that never ends its answer?)"
    )]
    AnswerTooLarge {
        server: String,
        verb: String,
        resource: String,
        limit_mib: u64,
    },
    /// Any other failed request. `status` is the HTTP status when the
    /// server answered; `source` the client's error, when there was one.
    #[error("API request {verb} {resource} failed: {}{message}", .status.map(|s| format!("{s} ")).unwrap_or_default())]
    Api {
        verb: String,
        resource: String,
        status: Option<u16>,
        message: String,
        #[source]
        source: Option<Box<kube::Error>>,
    },
    /// A steering command that took the Lease and then failed before it
    /// wrote anything: what was not sent, and whether the Lease is left.
    #[error(
        "{cause}. Nothing was written: {} not sent. {}",
        unsent_words(.not_sent),
        lease_words(.lease, *.lease_left)
    )]
    SteeringStopped {
        #[source]
        cause: Box<Error>,
        /// Every patch of the plan.
        not_sent: Vec<Unsent>,
        /// `prod/valkey-roll.cache`
        lease: String,
        /// The Lease could not be released.
        lease_left: bool,
    },
    /// A ValkeyNode named on the command line that no ValkeyCluster
    /// claims (no `valkey.io/cluster` label): part of no roll.
    #[error(
        "ValkeyNode {namespace}/{name} has no valkey.io/cluster label, so it is part of no cluster's roll; there is nothing to {doing}"
    )]
    NodeWithoutCluster {
        namespace: String,
        name: String,
        /// What the command would have done: `explain`.
        doing: &'static str,
    },
    /// `wait` with no cluster named, and none in view.
    #[error("no ValkeyCluster in {}", match .namespace { Some(ns) => format!("namespace {ns}"), None => "any namespace".to_string() })]
    NoClusters { namespace: Option<String> },
    /// A patch the plan holds without the resourceVersion it was decided
    /// on: a safety stop, never a write without the precondition.
    #[error(
        "ValkeyNode {namespace}/{name} has no metadata.resourceVersion: refusing to write without one"
    )]
    NoResourceVersion { namespace: String, name: String },
    /// A `replace-pod` plan that names no pod to delete reached the
    /// executor (the planner refuses such a plan first).
    #[error("replace-pod {node}: the plan names no pod to delete")]
    NoPodToDelete { node: String },
    /// The steering Lease was created and deleted by others on every try.
    #[error(
        "the Lease {lease} in namespace {namespace} kept appearing and disappearing; try again"
    )]
    LeaseUnstable { namespace: String, lease: String },
    /// A report or document that cannot be encoded (`JSON`, `YAML`).
    #[error("cannot write {format}: {problem}")]
    Encode {
        format: &'static str,
        problem: String,
    },
    /// A worker thread or task of the program failed: `what` says which,
    /// `source` how (with the runtime's words where it has any).
    #[error("{what}{}", task_words(.source))]
    Task {
        what: &'static str,
        source: TaskFailure,
    },
    /// kube could not build a LIST request (bad parameters).
    #[error("cannot build the list of {resource}: {source}")]
    ListRequest {
        resource: String,
        source: kube::core::request::Error,
    },
    /// An object of a watch's store that cannot be copied into a snapshot.
    #[error("watch {resource}: {source}")]
    WatchCopy {
        resource: String,
        source: serde_json::Error,
    },
    /// Every watch stream of `status --watch` or `wait` stopped.
    #[error("every watch ended")]
    WatchEnded,
    /// The exporter could not listen on its address (taken, not local).
    #[error("cannot listen on {address}: {source}")]
    Listen {
        address: String,
        source: std::io::Error,
    },
    /// Bad combination of arguments found after clap parsed them.
    #[error("{0}")]
    Usage(String),
}

/// Why a snapshot's text could not be read: the system's error where
/// there is one, kept typed; otherwise what the reader found, in words
/// (a byte that cannot be in YAML or JSON, the size cap, a text that is
/// neither).
#[derive(Debug, thiserror::Error)]
pub enum ReadProblem {
    #[error("{0}")]
    Io(std::io::Error),
    #[error("{0}")]
    Text(String),
}

/// `prod/cache`, or `cache` ... `in any namespace` (after "not found").
/// How a worker thread or task failed.
#[derive(Debug, thiserror::Error)]
pub enum TaskFailure {
    /// The thread could not be started (the system refused it: memory, a
    /// limit of threads).
    #[error(transparent)]
    Start(std::io::Error),
    /// A tokio task that panicked or was cancelled.
    #[error(transparent)]
    Join(tokio::task::JoinError),
    /// A thread that panicked: std gives no words for it (its payload is
    /// whatever was passed to `panic!`), and the panic printed its own.
    #[error("panicked")]
    Panicked,
}

/// What follows `what` in a [`Error::Task`]: the runtime's words, none for a
/// thread's panic (it printed them already).
fn task_words(failure: &TaskFailure) -> String {
    match failure {
        TaskFailure::Panicked => String::new(),
        other => format!(": {other}"),
    }
}

fn located(namespace: &Option<String>, name: &str) -> String {
    match namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    }
}

fn nearest_hint(nearest: &[String]) -> String {
    if nearest.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", nearest.join(", "))
    }
}

/// What a snapshot without objects held instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Nothing {
    /// No document at all (an empty text, comments, `---` only).
    Empty,
    /// Documents, but no object in them (an empty List).
    NoObjects { documents: usize },
    /// An API `Status` (a failed request's answer), with its message.
    Status { message: String },
    /// A `Table` (kubectl's server-side printing, not the objects).
    Table,
}

impl std::fmt::Display for Nothing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Nothing::Empty => f.write_str("the text holds no document"),
            Nothing::NoObjects { documents } => write!(
                f,
                "{documents} document(s) but no Kubernetes object (an empty List?)"
            ),
            Nothing::Status { message } if message.is_empty() => {
                f.write_str("an API Status instead of objects (the request that wrote it failed)")
            }
            Nothing::Status { message } => write!(
                f,
                "an API Status instead of objects (the request that wrote it failed: {message:?})"
            ),
            Nothing::Table => f.write_str(
                "a Table (kubectl's printed columns) instead of objects (-o yaml or -o json keeps them)",
            ),
        }
    }
}

/// A patch a steering command did not send: what it would have done, to
/// which node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsent {
    /// `grant`, `force`, `revoke`.
    pub verb: &'static str,
    pub node: String,
}

/// `the revoke of cache-0-2, the force of cache-0-1`.
fn unsent_words(unsent: &[Unsent]) -> String {
    unsent
        .iter()
        .map(|u| format!("the {} of {}", u.verb, u.node))
        .collect::<Vec<_>>()
        .join(", ")
}

fn lease_words(lease: &str, left: bool) -> String {
    if left {
        format!(
            "The Lease {lease} could not be released: it stays until it expires, 30 s after it was taken (a steering command of yours on this machine takes it over at once)"
        )
    } else {
        format!("The Lease {lease} was released")
    }
}

fn cluster_in(cluster: &Option<String>, kubeconfig: &Option<String>) -> String {
    let entry = match cluster {
        Some(c) => format!("cluster \"{c}\""),
        None => "the cluster".to_string(),
    };
    match kubeconfig {
        Some(file) => format!("{entry} in kubeconfig {file}"),
        None => entry,
    }
}

fn in_namespace(namespace: &Option<String>) -> String {
    match namespace {
        Some(ns) => format!(" in namespace {ns}"),
        None => String::new(),
    }
}

impl Error {
    /// The code the program exits with: [`Exit::Usage`] (2) for a bad
    /// combination of arguments, [`Exit::Error`] (1) for every other
    /// error. The other codes (3 to 7) are outcomes, not errors: a command
    /// returns them in its [`Outcome`].
    pub(crate) fn exit(&self) -> Exit {
        match self {
            Error::Usage(_) => Exit::Usage,
            _ => Exit::Error,
        }
    }
}

/// What a command hands back to `main`: the text for stdout (and stderr) and
/// the exit code. Commands never print; only `main` does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub exit: Exit,
}

impl Outcome {
    pub(crate) fn ok(stdout: String) -> Self {
        Outcome {
            stdout,
            stderr: String::new(),
            exit: Exit::Done,
        }
    }
    pub(crate) fn with_exit(mut self, exit: Exit) -> Self {
        self.exit = exit;
        self
    }
}

pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_failed_task_keeps_its_cause_typed_and_its_words() {
        let start = Error::Task {
            what: "cannot start the snapshot parser",
            source: TaskFailure::Start(std::io::Error::from(std::io::ErrorKind::OutOfMemory)),
        };
        assert_eq!(
            start.to_string(),
            format!(
                "cannot start the snapshot parser: {}",
                std::io::Error::from(std::io::ErrorKind::OutOfMemory)
            )
        );
        let cause = std::error::Error::source(&start).and_then(|s| s.downcast_ref::<TaskFailure>());
        assert!(
            matches!(cause, Some(TaskFailure::Start(e)) if e.kind() == std::io::ErrorKind::OutOfMemory),
            "{cause:?}"
        );
        // A thread's panic printed its own words: the error adds none.
        let panicked = Error::Task {
            what: "the snapshot parser failed",
            source: TaskFailure::Panicked,
        };
        assert_eq!(panicked.to_string(), "the snapshot parser failed");
        let join = tokio::task::spawn_blocking(|| std::panic::panic_any(7u8))
            .await
            .expect_err("it panicked");
        let words = join.to_string();
        let joined = Error::Task {
            what: "reading the snapshot failed",
            source: TaskFailure::Join(join),
        };
        assert_eq!(
            joined.to_string(),
            format!("reading the snapshot failed: {words}")
        );
        assert!(words.contains("panicked"), "{words}");
    }

    #[test]
    fn a_steering_command_stopped_after_the_lease_says_what_was_not_written() {
        let cause = Error::Unreachable {
            server: "https://127.0.0.1:6443".into(),
            problem: "connection refused".into(),
            source: None,
        };
        let stopped = |lease_left| Error::SteeringStopped {
            cause: Box::new(Error::Unreachable {
                server: "https://127.0.0.1:6443".into(),
                problem: "connection refused".into(),
                source: None,
            }),
            not_sent: vec![Unsent {
                verb: "grant",
                node: "cache-0-1".into(),
            }],
            lease: "prod/valkey-roll.cache".into(),
            lease_left,
        };
        assert_eq!(
            stopped(true).to_string(),
            format!(
                "{cause}. Nothing was written: the grant of cache-0-1 not sent. The Lease prod/valkey-roll.cache could not be released: it stays until it expires, 30 s after it was taken (a steering command of yours on this machine takes it over at once)"
            )
        );
        assert!(
            stopped(false)
                .to_string()
                .ends_with("The Lease prod/valkey-roll.cache was released")
        );
        assert_eq!(stopped(true).exit(), Exit::Error);
        let untrusted = Error::ServerNotTrusted {
            server: "https://127.0.0.1:6443".into(),
            cluster: Some("prod".into()),
            kubeconfig: Some("/home/me/.kube/config".into()),
            problem: "invalid peer certificate: UnknownIssuer".into(),
            source: None,
        };
        assert!(
            untrusted.to_string().contains(
                "the certificate authority of cluster \"prod\" in kubeconfig /home/me/.kube/config does not trust (invalid peer certificate: UnknownIssuer)"
            ),
            "{untrusted}"
        );
    }
}
