//! One error type for the whole program; each variant knows its exit code.
//!
//! Variants carry the facts (which object, which field, which verb); the
//! message is built by `Display`, where it is shown.

/// Exit codes of every command (PLUGIN.md, "Exit codes").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Done = 0,
    Error = 1,
    Usage = 2,
    NeedsAttention = 3,
    Refused = 4,
    TimedOut = 5,
    OtherHolder = 6,
}

impl Exit {
    pub fn code(self) -> u8 {
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
    Read { path: String, problem: String },
    #[error("cannot write {path}: {problem}")]
    Write { path: String, problem: String },
    #[error("{kind} {namespace}/{name} not found{}", nearest_hint(.nearest))]
    NotFound {
        kind: &'static str,
        namespace: String,
        name: String,
        nearest: Vec<String>,
    },
    #[error(
        "the {crd} CustomResourceDefinition is not installed on this cluster (is the valkey-operator installed?)"
    )]
    CrdMissing { crd: String },
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
    Unreachable { server: String, problem: String },
    #[error("kubeconfig: {problem}")]
    Kubeconfig { problem: String },
    #[error("API request {verb} {resource} failed: {status} {message}")]
    Api {
        verb: String,
        resource: String,
        status: u16,
        message: String,
    },
    /// Bad combination of arguments found after clap parsed them.
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Other(String),
}

fn nearest_hint(nearest: &[String]) -> String {
    if nearest.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", nearest.join(", "))
    }
}

fn in_namespace(namespace: &Option<String>) -> String {
    match namespace {
        Some(ns) => format!(" in namespace {ns}"),
        None => String::new(),
    }
}

impl Error {
    pub fn exit(&self) -> Exit {
        match self {
            Error::Usage(_) => Exit::Usage,
            _ => Exit::Error,
        }
    }
}

/// What a command hands back to `main`: the text for stdout (and stderr) and
/// the exit code. Commands never print; only `main` does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub exit: Exit,
}

impl Outcome {
    pub fn ok(stdout: String) -> Self {
        Outcome {
            stdout,
            stderr: String::new(),
            exit: Exit::Done,
        }
    }
    pub fn with_exit(mut self, exit: Exit) -> Self {
        self.exit = exit;
        self
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
