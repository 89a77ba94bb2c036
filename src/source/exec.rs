//! Credential (exec) plugins, run here rather than by kube: kube runs one
//! on the async worker that builds the client, unbounded, so a plugin that
//! never returns (a hung SSO helper or cloud CLI) held a worker for ever,
//! and an abandoned run (completion's time limit) left its process behind.
//!
//! Here a plugin runs as a child process waited on by a thread of its own,
//! off the async workers; the wait is bounded by `--request-timeout`, and
//! a run given up on (timed out, or its future dropped) is killed: its
//! process group, which it leads, so what it started goes too. A plugin
//! that may talk to the person (interactive, on a terminal) stays in this
//! process group, since it must read the terminal; only it is killed then.
//!
//! The credential it gives is checked as kubectl checks a header (no
//! control character), and its token is renewed in the background before
//! it expires (`expirationTimestamp`), as kube would on the next request.

use crate::error::{Error, Result};
use jiff::Timestamp;
use kube::config::{ExecConfig, ExecInteractiveMode};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The most a plugin may print on stdout (an ExecCredential is a few KiB).
const MAX_OUTPUT: u64 = 1024 * 1024;

/// What a plugin gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Minted {
    pub token: Option<String>,
    /// PEM certificate and key.
    pub certificate: Option<(String, String)>,
    /// When the credential stops being valid, if the plugin said.
    pub expires: Option<Timestamp>,
}

#[derive(serde::Deserialize)]
struct ExecCredential {
    status: Option<Status>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Status {
    token: Option<String>,
    client_certificate_data: Option<String>,
    client_key_data: Option<String>,
    expiration_timestamp: Option<String>,
}

/// Kills a plugin's process group (or the plugin alone) unless it ended.
struct Reaper {
    pid: i32,
    group: bool,
    done: bool,
}

impl Drop for Reaper {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let target = if self.group { -self.pid } else { self.pid };
        // SAFETY: kill(2) on the process (group) this module started; it
        // is not waited for yet (the waiting thread owns the child), so
        // the pid cannot have been reused.
        unsafe {
            libc::kill(target, libc::SIGKILL);
        }
    }
}

/// How a plugin is named in an error: `the credential plugin "aws" of
/// user "dev"`.
fn plugin_words(exec: &ExecConfig, user: Option<&str>) -> String {
    format!(
        "the credential plugin \"{}\"{}",
        exec.command.as_deref().unwrap_or_default(),
        user.map(|u| format!(" of user \"{u}\""))
            .unwrap_or_default()
    )
}

fn kubeconfig_error(problem: String) -> Error {
    Error::Kubeconfig { problem }
}

/// Runs `exec` once, for `user`, waiting at most `limit` (`None`: no
/// limit, but still killed if this future is dropped).
pub(crate) async fn mint(
    exec: &ExecConfig,
    limit: Option<Duration>,
    user: Option<&str>,
) -> Result<Minted> {
    use std::io::IsTerminal;
    use std::os::unix::process::CommandExt;
    let who = plugin_words(exec, user);
    let Some(program) = exec.command.as_deref().filter(|c| !c.is_empty()) else {
        return Err(kubeconfig_error(format!("{who} names no command")));
    };
    let interactive =
        exec.interactive_mode != Some(ExecInteractiveMode::Never) && std::io::stdin().is_terminal();
    let mut command = Command::new(program);
    command.args(exec.args.iter().flatten());
    for pair in exec.env.iter().flatten() {
        if let (Some(name), Some(value)) = (pair.get("name"), pair.get("value")) {
            command.env(name, value);
        }
    }
    let mut spec = serde_json::json!({"interactive": interactive});
    if exec.provide_cluster_info
        && let Some(cluster) = &exec.cluster
        && let Ok(cluster) = serde_json::to_value(cluster)
    {
        spec["cluster"] = cluster;
    }
    let info = serde_json::json!({
        "apiVersion": exec.api_version.clone().unwrap_or_default(),
        "kind": "ExecCredential",
        "spec": spec,
    });
    command.env("KUBERNETES_EXEC_INFO", info.to_string());
    for name in exec.drop_env.iter().flatten() {
        command.env_remove(name);
    }
    command.stdout(Stdio::piped());
    if interactive {
        command.stdin(Stdio::inherit()).stderr(Stdio::inherit());
    } else {
        command
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0);
    }
    let mut child = command
        .spawn()
        .map_err(|e| kubeconfig_error(format!("{who} could not be started: {e}")))?;
    let mut reaper = Reaper {
        pid: i32::try_from(child.id()).unwrap_or(0),
        group: !interactive,
        done: false,
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let waited = std::thread::Builder::new()
        .name("credential-plugin".into())
        .spawn(move || {
            let err_thread = stderr.take().map(|pipe| {
                std::thread::spawn(move || {
                    let mut text = Vec::new();
                    let _ = pipe.take(64 * 1024).read_to_end(&mut text);
                    text
                })
            });
            let mut out = Vec::new();
            if let Some(pipe) = stdout.take() {
                let _ = pipe.take(MAX_OUTPUT).read_to_end(&mut out);
            }
            let status = child.wait();
            let err = err_thread.and_then(|t| t.join().ok()).unwrap_or_default();
            let _ = tx.send((status, out, err));
        });
    if let Err(e) = waited {
        return Err(kubeconfig_error(format!(
            "{who} could not be waited for: {e}"
        )));
    }
    let ended = match limit {
        Some(limit) => match tokio::time::timeout(limit, rx).await {
            Ok(ended) => ended,
            Err(_) => {
                return Err(kubeconfig_error(format!(
                    "{who} gave no credential within --request-timeout ({}s); it was stopped",
                    limit.as_secs_f64()
                )));
            }
        },
        None => rx.await,
    };
    let Ok((status, out, err)) = ended else {
        return Err(kubeconfig_error(format!("{who} could not be waited for")));
    };
    reaper.done = true;
    let status = status.map_err(|e| kubeconfig_error(format!("{who} failed: {e}")))?;
    if !status.success() {
        let said = String::from_utf8_lossy(&err);
        let said = said.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        return Err(kubeconfig_error(format!(
            "{who} failed ({status}){}",
            if said.is_empty() {
                String::new()
            } else {
                format!(": {}", said.chars().take(300).collect::<String>())
            }
        )));
    }
    let credential: ExecCredential = serde_saphyr::from_slice(&out).map_err(|e| {
        let e = e.to_string();
        kubeconfig_error(format!(
            "{who} printed no ExecCredential: {}",
            e.lines().next().unwrap_or_default()
        ))
    })?;
    let Some(status) = credential.status else {
        return Err(kubeconfig_error(format!(
            "{who} printed an ExecCredential without a status"
        )));
    };
    let expires = match &status.expiration_timestamp {
        Some(t) => Some(
            t.parse::<Timestamp>()
                .map_err(|e| kubeconfig_error(format!("{who}: expirationTimestamp {t:?}: {e}")))?,
        ),
        None => None,
    };
    if let Some(token) = &status.token
        && !header_safe(token)
    {
        return Err(kubeconfig_error(format!(
            "the token that {who} gave cannot be sent: it holds a control character"
        )));
    }
    let certificate = match (status.client_certificate_data, status.client_key_data) {
        (Some(cert), Some(key)) => Some((cert, key)),
        _ => None,
    };
    Ok(Minted {
        token: status.token,
        certificate,
        expires,
    })
}

/// `Bearer TOKEN` is a valid HTTP header value (kube panics building a
/// client whose token is not).
pub(crate) fn header_safe(token: &str) -> bool {
    http::HeaderValue::try_from(format!("Bearer {token}")).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plugin(script: &str) -> ExecConfig {
        ExecConfig {
            api_version: Some("client.authentication.k8s.io/v1".into()),
            command: Some("sh".into()),
            args: Some(vec!["-c".into(), script.into()]),
            env: None,
            drop_env: None,
            install_hint: None,
            interactive_mode: Some(ExecInteractiveMode::Never),
            provide_cluster_info: false,
            cluster: None,
            ..ExecConfig::default()
        }
    }

    #[tokio::test]
    async fn a_plugin_gives_a_token() {
        let minted = mint(
            &plugin(r#"echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t0k","expirationTimestamp":"2030-01-01T00:00:00Z"}}'"#),
            Some(Duration::from_secs(10)),
            Some("dev"),
        )
        .await
        .expect("a token");
        assert_eq!(minted.token.as_deref(), Some("t0k"));
        assert_eq!(
            minted.expires,
            Some("2030-01-01T00:00:00Z".parse().unwrap())
        );
    }

    #[tokio::test]
    async fn a_bad_plugin_is_an_error_naming_it_and_the_user() {
        let cases = [
            ("exit 3", "failed"),
            ("echo nonsense", "printed no ExecCredential"),
            (
                r#"printf '{"status":{"token":"a\\u0001b"}}'"#,
                "cannot be sent",
            ),
        ];
        for (script, want) in cases {
            match mint(&plugin(script), Some(Duration::from_secs(10)), Some("dev")).await {
                Err(Error::Kubeconfig { problem }) => {
                    assert!(problem.contains(want), "{script}: {problem}");
                    assert!(problem.contains("user \"dev\""), "{script}: {problem}");
                }
                other => panic!("{script}: {other:?}"),
            }
        }
    }

    /// A plugin that never returns is stopped at the limit, its process
    /// group killed: what it started goes too.
    #[tokio::test]
    async fn a_hung_plugin_is_stopped_with_what_it_started() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pidfile = dir.path().join("pid");
        let script = format!("sleep 300 & echo $! > {}; wait", pidfile.display());
        let start = std::time::Instant::now();
        let got = mint(&plugin(&script), Some(Duration::from_secs(1)), Some("dev")).await;
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        match got {
            Err(Error::Kubeconfig { problem }) => {
                assert!(
                    problem.contains("within --request-timeout (1s)"),
                    "{problem}"
                )
            }
            other => panic!("{other:?}"),
        }
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .expect("the pid")
            .trim()
            .parse()
            .expect("a pid");
        // Gone, or a zombie left for init to reap: either way not running.
        let mut gone = false;
        for _ in 0..100 {
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let state = state.rsplit(')').next().unwrap_or_default().trim_start();
            if state.is_empty() || state.starts_with('Z') {
                gone = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(gone, "the plugin's child {pid} outlived it");
    }
}
