//! The dashboard as the tests reach it: the plugin's `dashboard` started on
//! a free loopback port, plain HTTP requests, and its event stream read
//! event by event. Every wait is bounded.

#![allow(dead_code)]

use super::harness::plugin::Plugin;
use serde_json::Value;
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The longest a single request may take.
const REQUEST_BOUND: Duration = Duration::from_secs(30);

pub struct Dashboard {
    pub plugin: Plugin,
    pub addr: SocketAddr,
}

/// One answer: status, headers (names lowercased) and body.
#[derive(Debug)]
pub struct Answer {
    pub code: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl Dashboard {
    /// `kubectl-valkey-roll --kubeconfig K -n NS dashboard ARGS... --listen
    /// 127.0.0.1:0`, once it says where it serves.
    pub async fn start(kubeconfig: &Path, ns: &str, args: &[&str], bound: Duration) -> Dashboard {
        let mut all = vec!["dashboard"];
        all.extend_from_slice(args);
        all.extend(["--listen", "127.0.0.1:0"]);
        let mut plugin = Plugin::spawn(kubeconfig, ns, &all, bound);
        plugin
            .until_stderr("the address it serves on", |l| {
                l.contains("dashboard at http://")
            })
            .await;
        let line = plugin
            .stderr
            .iter()
            .find(|l| l.contains("dashboard at http://"))
            .expect("the line");
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        Dashboard { plugin, addr }
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// `METHOD path` with `Host`, on a new connection (HTTP/1.0: the
    /// answer ends with the connection).
    pub async fn request(&self, method: &str, path: &str, host: &str) -> Answer {
        let raw = format!("{method} {path} HTTP/1.0\r\nHost: {host}\r\n\r\n");
        let answer = self.raw(raw.as_bytes()).await;
        parse(&answer)
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.request("GET", path, &self.addr.to_string()).await
    }

    async fn raw(&self, bytes: &[u8]) -> String {
        let asked = async {
            let mut stream = TcpStream::connect(self.addr).await.expect("connect");
            stream.write_all(bytes).await.expect("send the request");
            let mut answer = Vec::new();
            stream
                .read_to_end(&mut answer)
                .await
                .expect("read the answer");
            String::from_utf8(answer).expect("UTF-8")
        };
        tokio::time::timeout(REQUEST_BOUND, asked)
            .await
            .unwrap_or_else(|_| panic!("no answer within {REQUEST_BOUND:?}"))
    }

    /// The event stream, opened.
    pub async fn events(&self) -> Events {
        let mut stream = TcpStream::connect(self.addr).await.expect("connect");
        let request = format!("GET /events HTTP/1.0\r\nHost: {}\r\n\r\n", self.addr);
        stream
            .write_all(request.as_bytes())
            .await
            .expect("send the request");
        Events {
            stream,
            buffer: Vec::new(),
            head: None,
            bytes: 0,
            scanned: 0,
        }
    }
}

fn parse(answer: &str) -> Answer {
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
    let mut lines = head.lines();
    let code = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Answer {
        code,
        headers,
        body: body.to_string(),
    }
}

/// One server-sent event: its type, its data as JSON, and its size on the
/// wire.
#[derive(Debug, Clone)]
pub struct Event {
    pub kind: String,
    pub data: Value,
    pub raw: String,
}

pub struct Events {
    stream: TcpStream,
    buffer: Vec<u8>,
    pub head: Option<Answer>,
    /// Bytes of events read so far.
    pub bytes: usize,
    /// How much of the buffer has been looked through for an event's end.
    scanned: usize,
}

impl Events {
    /// The next event (comments and the `retry` line skipped), within
    /// `bound`.
    pub async fn next(&mut self, bound: Duration) -> Event {
        let deadline = Instant::now() + bound;
        loop {
            if self.head.is_none()
                && let Some(at) = find(&self.buffer, b"\r\n\r\n")
            {
                let head = String::from_utf8_lossy(&self.buffer[..at + 4]).into_owned();
                self.head = Some(parse(&head));
                self.buffer.drain(..at + 4);
            }
            let from = self.scanned.saturating_sub(1);
            if self.head.is_some()
                && let Some(at) = find(&self.buffer[from..], b"\n\n").map(|at| at + from)
            {
                self.scanned = 0;
                let block: Vec<u8> = self.buffer.drain(..at + 2).collect();
                self.bytes += block.len();
                let text = String::from_utf8(block).expect("UTF-8 events");
                let mut kind = None;
                let mut data = None;
                for line in text.lines() {
                    if let Some(k) = line.strip_prefix("event: ") {
                        kind = Some(k.to_string());
                    } else if let Some(d) = line.strip_prefix("data: ") {
                        data = Some(d.to_string());
                    }
                }
                if let (Some(kind), Some(data)) = (kind, data) {
                    let value = serde_json::from_str(&data)
                        .unwrap_or_else(|e| panic!("event data is JSON: {e}: {data}"));
                    return Event {
                        kind,
                        data: value,
                        raw: text,
                    };
                }
                continue;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no event within {bound:?}");
            if self.head.is_some() {
                self.scanned = self.buffer.len();
            }
            let mut chunk = vec![0u8; 1 << 20];
            let n = match tokio::time::timeout(left, self.stream.read(&mut chunk)).await {
                Ok(Ok(n)) => n,
                Ok(Err(e)) => panic!("read the stream: {e}"),
                Err(_) => panic!("no event within {bound:?}"),
            };
            assert!(n > 0, "the stream ended");
            self.buffer.extend_from_slice(&chunk[..n]);
        }
    }

    /// Reads events until `pred` holds of one; returns it.
    pub async fn until(
        &mut self,
        what: &str,
        bound: Duration,
        pred: impl Fn(&Event) -> bool,
    ) -> Event {
        let deadline = Instant::now() + bound;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no event with {what} within {bound:?}");
            let event = self.next(left).await;
            if pred(&event) {
                return event;
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The card's node `name` in a `cluster` event's data.
pub fn node<'a>(cluster_event: &'a Value, name: &str) -> Option<&'a Value> {
    cluster_event["card"]["shards"]
        .as_array()?
        .iter()
        .flat_map(|s| s["nodes"].as_array().into_iter().flatten())
        .find(|n| n["name"] == name)
}
