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
    /// A steering command that took the Lease and then failed before it
    /// wrote anything: what was not sent, and whether the Lease is left.
    #[error(
        "{cause}. Nothing was written: {not_sent} not sent. {}",
        lease_words(.lease, *.lease_left)
    )]
    SteeringStopped {
        #[source]
        cause: Box<Error>,
        /// `the grant of cache-0-1` (every patch of the plan).
        not_sent: String,
        /// `prod/valkey-roll.cache`
        lease: String,
        /// The Lease could not be released.
        lease_left: bool,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steering_command_stopped_after_the_lease_says_what_was_not_written() {
        let cause = Error::Unreachable {
            server: "https://127.0.0.1:6443".into(),
            problem: "connection refused".into(),
        };
        let stopped = |lease_left| Error::SteeringStopped {
            cause: Box::new(Error::Unreachable {
                server: "https://127.0.0.1:6443".into(),
                problem: "connection refused".into(),
            }),
            not_sent: "the grant of cache-0-1".into(),
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
        };
        assert!(
            untrusted.to_string().contains(
                "the certificate authority of cluster \"prod\" in kubeconfig /home/me/.kube/config does not trust (invalid peer certificate: UnknownIssuer)"
            ),
            "{untrusted}"
        );
    }
}
