//! The exporter's HTTP answers, three read-only paths, nothing else,
//! served by the commands' one HTTP server ([`crate::commands::http`],
//! where the bounds on slow and hostile clients are):
//!
//! - `GET /metrics`: the metrics, rendered from [`Shared`] at the scrape;
//! - `GET /healthz`: 200 while the process serves;
//! - `GET /readyz`: 200 when every context's view is whole and judged, else
//!   503; the body names each context and what it cannot see.
//!
//! `HEAD` is answered as `GET` without a body; other methods get 405, other
//! paths 404.

use super::Shared;
use crate::commands::http::serve_with;
use crate::render::metrics::{Build, CONTENT_TYPE, metrics_text, readiness};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{ALLOW, CONTENT_TYPE as CONTENT_TYPE_HEADER, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use jiff::Timestamp;
use std::future::Future;
use std::sync::Arc;
use tokio::net::TcpListener;

const TEXT: &str = "text/plain; charset=utf-8";

/// Serves until `stop` resolves.
pub(crate) async fn serve(
    listener: TcpListener,
    shared: Arc<Shared>,
    stop: impl Future<Output = ()>,
) {
    let handler = move |req: Request<Incoming>| {
        let shared = Arc::clone(&shared);
        async move { answer(req.method(), req.uri().path(), &shared) }
    };
    serve_with(listener, handler, stop).await;
}

/// The answer to one request.
pub(crate) fn answer(method: &Method, path: &str, shared: &Shared) -> Response<Full<Bytes>> {
    let known = matches!(path, "/" | "/metrics" | "/healthz" | "/readyz");
    if !known {
        return text(
            StatusCode::NOT_FOUND,
            TEXT,
            "not found: try /metrics\n".into(),
        );
    }
    if method != Method::GET && method != Method::HEAD {
        let mut response = text(
            StatusCode::METHOD_NOT_ALLOWED,
            TEXT,
            "method not allowed\n".into(),
        );
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    match path {
        "/metrics" => {
            let build = Build {
                version: env!("CARGO_PKG_VERSION"),
                commit: env!("KUBECTL_VALKEY_ROLL_GIT_COMMIT"),
            };
            let body = metrics_text(&shared.views(), build, Timestamp::now());
            text(StatusCode::OK, CONTENT_TYPE, body)
        }
        "/healthz" => text(StatusCode::OK, TEXT, "ok\n".into()),
        "/readyz" => {
            let (ready, body) = readiness(&shared.views());
            let status = if ready {
                StatusCode::OK
            } else {
                StatusCode::SERVICE_UNAVAILABLE
            };
            text(status, TEXT, body)
        }
        _ => text(
            StatusCode::OK,
            TEXT,
            "kubectl-valkey-roll exporter: /metrics, /healthz, /readyz\n".into(),
        ),
    }
}

fn text(status: StatusCode, content_type: &'static str, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE_HEADER, HeaderValue::from_static(content_type));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpSocket, TcpStream};

    /// `GET path` on a new connection: how long the answer took, and its
    /// status line; `None` past `bound`.
    async fn get(addr: std::net::SocketAddr, path: &str, bound: Duration) -> Option<Duration> {
        let started = Instant::now();
        let asked = async {
            let mut s = TcpStream::connect(addr).await.ok()?;
            let request = format!("GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
            s.write_all(request.as_bytes()).await.ok()?;
            let mut answer = Vec::new();
            s.read_to_end(&mut answer).await.ok()?;
            answer.starts_with(b"HTTP/1.1 200 OK").then_some(())
        };
        tokio::time::timeout(bound, asked).await.ok().flatten()?;
        Some(started.elapsed())
    }

    /// Issue 30, item 4: ~70 connections trickling their headers (a byte a
    /// second, reopened when closed) and 70 that pipeline requests and never
    /// read took every one of the 64 slots, and scrapes waited in the
    /// listen queue until they gave up. Beside the same load (12 s, on
    /// loopback) every scrape and health check is answered within 4 s (a
    /// third of the load: a server the load blocked would answer none; 2 s
    /// failed once on a machine busy compiling), and
    /// a client that closes its sending half after its request still gets
    /// the answer.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn scrapes_are_answered_beside_slow_and_unread_clients() {
        const LOAD: Duration = Duration::from_secs(12);
        const BOUND: Duration = Duration::from_secs(4);
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(serve(listener, Arc::new(Shared::default()), async {
            let _ = stopped.await;
        }));
        let until = tokio::time::Instant::now() + LOAD;
        let mut load = Vec::new();
        for _ in 0..70 {
            load.push(tokio::spawn(async move {
                while tokio::time::Instant::now() < until {
                    let Ok(mut s) = TcpStream::connect(addr).await else {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    };
                    for b in b"GET /metrics HTTP/1.1\r\nHost: slow\r\nX: " {
                        if s.write_all(&[*b]).await.is_err() || tokio::time::Instant::now() > until
                        {
                            break;
                        }
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                }
            }));
        }
        for _ in 0..70 {
            load.push(tokio::spawn(async move {
                let Ok(socket) = TcpSocket::new_v4() else {
                    return;
                };
                let _ = socket.set_recv_buffer_size(4096);
                let Ok(mut s) = socket.connect(addr).await else {
                    return;
                };
                let requests = "GET /metrics HTTP/1.1\r\nHost: unread\r\n\r\n".repeat(4000);
                let _ = tokio::time::timeout_at(until, s.write_all(requests.as_bytes())).await;
                // Never read; held until the load ends.
                tokio::time::sleep_until(until).await;
                drop(s);
            }));
        }
        // The slots fill; then a scrape and a health check every 200 ms.
        tokio::time::sleep(Duration::from_secs(1)).await;
        let mut took = Vec::new();
        let mut failed = Vec::new();
        let mut n = 0;
        while tokio::time::Instant::now() + BOUND < until {
            let path = if n % 2 == 0 { "/metrics" } else { "/healthz" };
            n += 1;
            match get(addr, path, BOUND).await {
                Some(t) => took.push(t),
                None => failed.push(path),
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        // Half-closed after the request: answered all the same.
        let half_closed = async {
            let mut s = TcpStream::connect(addr).await.ok()?;
            s.write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
                .await
                .ok()?;
            s.shutdown().await.ok()?;
            let mut answer = Vec::new();
            s.read_to_end(&mut answer).await.ok()?;
            Some(String::from_utf8_lossy(&answer).into_owned())
        };
        let half_closed = tokio::time::timeout(BOUND, half_closed)
            .await
            .ok()
            .flatten()
            .unwrap_or_default();
        for task in load {
            task.abort();
        }
        let _ = stop.send(());
        let _ = server.await;
        took.sort();
        eprintln!(
            "{} of {n} answered, median {:?}, slowest {:?}",
            took.len(),
            took.get(took.len() / 2),
            took.last()
        );
        assert!(
            failed.is_empty(),
            "{} of {n} unanswered within {BOUND:?}: {failed:?}",
            failed.len()
        );
        assert!(
            half_closed.starts_with("HTTP/1.1 200 OK") && half_closed.ends_with("ok\n"),
            "half-closed: {half_closed:?}"
        );
    }
}
