//! The exporter as the e2e tests run it: [`Exporter`] starts the plugin's
//! `exporter` on a free loopback port (`--listen 127.0.0.1:0`, the address
//! read from its first stderr line), [`Exporter::get`] is an HTTP GET on
//! it, and [`Metrics`] reads the samples of a scrape. Each test binary uses
//! part of it.

#![allow(dead_code)]

use super::harness::plugin::Plugin;
use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The exporter running in the background; killed when dropped.
pub struct Exporter {
    pub plugin: Plugin,
    pub addr: SocketAddr,
}

impl Exporter {
    /// `kubectl-valkey-roll ARGS... exporter --listen 127.0.0.1:0`, once it
    /// says where it serves.
    pub async fn start(args: &[String], bound: Duration) -> Exporter {
        Exporter::start_with(args, &[], bound).await
    }

    /// `kubectl-valkey-roll ARGS... exporter --listen 127.0.0.1:0 OWN...`,
    /// once it says where it serves.
    pub async fn start_with(args: &[String], own: &[&str], bound: Duration) -> Exporter {
        Exporter::start_with_env(args, own, &[], bound).await
    }

    /// [`Exporter::start_with`] with these variables in its environment.
    pub async fn start_with_env(
        args: &[String],
        own: &[&str],
        env: &[(&str, &str)],
        bound: Duration,
    ) -> Exporter {
        let mut all = args.to_vec();
        all.extend(["exporter", "--listen", "127.0.0.1:0"].map(String::from));
        all.extend(own.iter().map(|a| a.to_string()));
        let mut plugin = Plugin::spawn_raw_env(&all, env, bound);
        plugin
            .until_stderr("the address it serves on", |l| {
                l.contains("serving metrics on http://")
            })
            .await;
        let line = plugin
            .stderr
            .iter()
            .find(|l| l.contains("serving metrics on http://"))
            .expect("the line");
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        Exporter { plugin, addr }
    }

    /// GET `path`: the status code and the body.
    pub async fn get(&self, path: &str) -> (u16, String) {
        let mut stream = tokio::time::timeout(
            Duration::from_secs(10),
            tokio::net::TcpStream::connect(self.addr),
        )
        .await
        .expect("connect in time")
        .unwrap_or_else(|e| panic!("connect {}: {e}\n{}", self.addr, self.plugin.transcript()));
        let request = format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
        stream
            .write_all(request.as_bytes())
            .await
            .expect("send the request");
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
            .await
            .expect("an answer in time")
            .expect("read the answer");
        let answer = String::from_utf8(answer).expect("UTF-8");
        let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
        let code = head
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no status in {head:?}"));
        (code, body.to_string())
    }

    /// Sends `bytes` as they are and returns whatever comes back before the
    /// connection closes (or 10 s pass).
    pub async fn raw(&self, bytes: &[u8]) -> String {
        let mut stream = tokio::net::TcpStream::connect(self.addr)
            .await
            .expect("connect");
        let _ = stream.write_all(bytes).await;
        let mut answer = Vec::new();
        let _ =
            tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
        String::from_utf8_lossy(&answer).into_owned()
    }

    /// A scrape of `/metrics` (it must answer 200).
    pub async fn metrics(&self) -> Metrics {
        let (code, text) = self.get("/metrics").await;
        assert_eq!(code, 200, "{text}");
        Metrics { text }
    }

    /// Scrapes until the one sample of `name` with `labels` is `want`, at
    /// most `bound`; returns that scrape.
    pub async fn until_value(
        &self,
        bound: Duration,
        name: &str,
        labels: &[(&str, &str)],
        want: f64,
    ) -> Metrics {
        let what = format!("{name} {labels:?} {want}");
        until(&what, bound, || async {
            let m = self.metrics().await;
            match m.value(name, labels) {
                Some(v) if v == want => Ok(m),
                _ => Err(m.text),
            }
        })
        .await
    }
}

/// One scrape.
#[derive(Clone, Debug)]
pub struct Metrics {
    pub text: String,
}

impl Metrics {
    /// The sample lines of metric `name` that carry every one of `labels`.
    pub fn samples(&self, name: &str, labels: &[(&str, &str)]) -> Vec<&str> {
        self.text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter(|l| l.starts_with(&format!("{name}{{")) || l.starts_with(&format!("{name} ")))
            .filter(|l| {
                labels
                    .iter()
                    .all(|(k, v)| l.contains(&format!("{k}=\"{v}\"")))
            })
            .collect()
    }

    /// The value of the one sample of `name` with `labels`.
    pub fn value(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        let found = self.samples(name, labels);
        assert!(found.len() <= 1, "several {name} {labels:?}: {found:?}");
        found
            .first()
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
    }

    /// The verdict whose state-set series is 1 for `cluster` (any context
    /// and namespace named in `labels`).
    pub fn verdict(&self, labels: &[(&str, &str)]) -> Option<String> {
        let on: Vec<&str> = self
            .samples("valkey_roll_verdict", labels)
            .into_iter()
            .filter(|l| l.ends_with(" 1"))
            .collect();
        assert!(on.len() <= 1, "more than one verdict at 1: {on:?}");
        on.first().and_then(|l| {
            l.split("verdict=\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .map(str::to_string)
        })
    }

    /// The `node` label of the samples of `name` for `labels`.
    pub fn nodes(&self, name: &str, labels: &[(&str, &str)]) -> Vec<String> {
        self.samples(name, labels)
            .iter()
            .filter_map(|l| {
                l.split("node=\"")
                    .nth(1)
                    .and_then(|rest| rest.split('"').next())
                    .map(str::to_string)
            })
            .collect()
    }
}

/// `promtool check metrics` on a scrape: its verdict and its words.
pub fn promtool_check(promtool: &Path, text: &str) -> (bool, String) {
    use std::io::Write;
    let mut child = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run promtool");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("feed promtool");
    let out = child.wait_with_output().expect("promtool");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// Polls `probe` every 250 ms until it answers `Ok`, at most `bound`; fails
/// with what it saw last. (`controlplane::eventually` adds the control
/// plane's logs, and so starts one: not for tests of the server alone.)
pub async fn until<T, F, Fut>(what: &str, bound: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, String>>,
{
    let deadline = std::time::Instant::now() + bound;
    loop {
        match probe().await {
            Ok(v) => return v,
            Err(seen) => assert!(
                std::time::Instant::now() < deadline,
                "{what}: not within {}s; last seen: {seen}",
                bound.as_secs()
            ),
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}
