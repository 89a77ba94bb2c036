//! The exporter's HTTP server: hyper's HTTP/1 server on the tokio listener,
//! three read-only paths, nothing else. The dashboard serves its page
//! through the same connection handling ([`serve_with`]).
//!
//! - `GET /metrics`: the metrics, rendered from [`Shared`] at the scrape;
//! - `GET /healthz`: 200 while the process serves;
//! - `GET /readyz`: 200 when every context's view is whole and judged, else
//!   503; the body names each context and what it cannot see.
//!
//! `HEAD` is answered as `GET` without a body; other methods get 405, other
//! paths 404. A stuck or hostile client cannot hold the exporter (issue 30,
//! item 4):
//!
//! - each connection must send its request headers within
//!   [`HEADER_TIMEOUT`], may not leave an answer unread for longer than
//!   [`WRITE_TIMEOUT`] (a client that pipelines requests and never reads),
//!   and lives at most [`CONNECTION_LIFETIME`];
//! - at most [`MAX_CONNECTIONS`] are served at once, and a new connection
//!   is always accepted: when all are taken, the one that has gone longest
//!   without a request ends. A scraper's fresh connection sends its
//!   request at once and is answered; connections that trickle their
//!   headers, or stopped reading, are the ones that go. Waiting in the
//!   listen queue instead (as before) let ~70 slow connections starve
//!   every scrape and `/healthz`;
//! - a client that closes its sending half after its request (`shutdown`)
//!   still gets the answer.
//!
//! There is no bound per peer address: Prometheus, a proxy or a NAT may
//! bring many clients from one address, and the rule above already favours
//! whoever asks. An error of one connection ends that connection only; an
//! error accepting one is retried.

use super::Shared;
use crate::render::metrics::{Build, CONTENT_TYPE, metrics_text, readiness};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{ALLOW, CONTENT_TYPE as CONTENT_TYPE_HEADER, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use jiff::Timestamp;
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;

/// How long a connection may take to send a request's headers.
pub(crate) const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections served at once.
pub(crate) const MAX_CONNECTIONS: usize = 64;

/// How long an answer may wait to be written (the client reads nothing).
pub(crate) const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest one connection is kept (a client keeping it alive reconnects
/// after): an idle kept-alive connection cannot hold a slot for ever.
pub(crate) const CONNECTION_LIFETIME: Duration = Duration::from_secs(300);

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

/// Serves each request with `handler`, as above (the dashboard's server
/// too), until `stop` resolves.
pub(crate) async fn serve_with<H, F, B>(
    listener: TcpListener,
    handler: H,
    stop: impl Future<Output = ()>,
) where
    H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Response<B>> + Send + 'static,
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    tokio::pin!(stop);
    let served = Arc::new(Served::default());
    loop {
        let accepted = tokio::select! {
            () = &mut stop => return,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            // Out of file descriptors, say: wait a moment and go on.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        served.make_room();
        served.start(stream, handler.clone());
    }
}

/// The connections being served, each with when it last had a request.
#[derive(Default)]
struct Served {
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    next: u64,
    connections: HashMap<u64, Peer>,
}

/// A client connection being served (not the API server's: `source::watch::Connection`).
struct Peer {
    /// When the connection was accepted or last had a request.
    asked: Arc<Mutex<Instant>>,
    task: AbortHandle,
}

impl Served {
    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// With every slot taken, ends the connection that has gone longest
    /// without a request.
    fn make_room(&self) {
        let oldest = {
            let mut table = self.lock();
            if table.connections.len() < MAX_CONNECTIONS {
                return;
            }
            let id = table
                .connections
                .iter()
                .min_by_key(|(id, c)| (*lock_time(&c.asked), **id))
                .map(|(id, _)| *id);
            id.and_then(|id| table.connections.remove(&id))
        };
        if let Some(connection) = oldest {
            connection.task.abort();
        }
    }

    /// Serves `stream` on a task of its own, listed until it ends.
    fn start<H, F, B>(self: &Arc<Self>, stream: TcpStream, handler: H)
    where
        H: Fn(Request<Incoming>) -> F + Send + Sync + 'static,
        F: Future<Output = Response<B>> + Send + 'static,
        B: hyper::body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let asked = Arc::new(Mutex::new(Instant::now()));
        // Held while the task starts, so that the task (which takes itself
        // off the list when it ends) finds itself there.
        let mut table = self.lock();
        let id = table.next;
        table.next += 1;
        let listed = Listed {
            served: Arc::clone(self),
            id,
        };
        let on_request = Arc::clone(&asked);
        let task = tokio::spawn(async move {
            let _listed = listed;
            let service = service_fn(move |req: Request<Incoming>| {
                *lock_time(&on_request) = Instant::now();
                let answering = handler(req);
                async move { Ok::<_, Infallible>(answering.await) }
            });
            let connection = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .half_close(true)
                .serve_connection(TokioIo::new(WriteTimed::new(stream)), service);
            let _ = tokio::time::timeout(CONNECTION_LIFETIME, connection).await;
        });
        table.connections.insert(
            id,
            Peer {
                asked,
                task: task.abort_handle(),
            },
        );
    }
}

fn lock_time(t: &Mutex<Instant>) -> MutexGuard<'_, Instant> {
    t.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A connection's place in [`Served`], given up when its task ends (or is
/// ended).
struct Listed {
    served: Arc<Served>,
    id: u64,
}

impl Drop for Listed {
    fn drop(&mut self) {
        self.served.lock().connections.remove(&self.id);
    }
}

/// A stream whose writes fail once they have waited [`WRITE_TIMEOUT`]
/// without progress: a client that does not read its answers is let go.
struct WriteTimed {
    stream: TcpStream,
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl WriteTimed {
    fn new(stream: TcpStream) -> Self {
        WriteTimed {
            stream,
            stalled: None,
        }
    }

    /// `polled`, or an error once writing has been pending too long.
    fn timed<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if polled.is_ready() {
            self.stalled = None;
            return polled;
        }
        let stalled = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(WRITE_TIMEOUT)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client does not read its answer",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for WriteTimed {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for WriteTimed {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.timed(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.timed(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.stream).poll_flush(cx);
        self.timed(cx, polled)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.stream).poll_shutdown(cx);
        self.timed(cx, polled)
    }
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
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpSocket;

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
