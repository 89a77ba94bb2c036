//! The HTTP server of the exporter and the dashboard: hyper's HTTP/1
//! server on the tokio listener, each request answered by the command's
//! handler ([`serve_with`]). A stuck or hostile client cannot hold it
//! (issue 30, item 4):
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
//!   every scrape and `/healthz`. Only a connection whose task has run
//!   (and so read what its client sent) may go: in a burst of new
//!   connections, accepted before any of their tasks ran, the first would
//!   otherwise go before reading its request;
//! - a client that closes its sending half after its request (`shutdown`)
//!   still gets the answer.
//!
//! There is no bound per peer address: Prometheus, a proxy or a NAT may
//! bring many clients from one address, and the rule above already favours
//! whoever asks. An error of one connection ends that connection only; an
//! error accepting one is retried.

use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
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

/// Serves each request with `handler`, as above, until `stop` resolves.
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
        served.make_room().await;
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
    /// Whether its task has run, and so had its turn to read.
    started: Arc<AtomicBool>,
    task: AbortHandle,
}

impl Served {
    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// With every slot taken, ends the connection that has gone longest
    /// without a request, among those that have had their turn to read;
    /// while none has, waits for their tasks to run.
    async fn make_room(&self) {
        loop {
            let oldest = {
                let mut table = self.lock();
                if table.connections.len() < MAX_CONNECTIONS {
                    return;
                }
                let id = table
                    .connections
                    .iter()
                    .filter(|(_, c)| c.started.load(Ordering::Acquire))
                    .min_by_key(|(id, c)| (*lock_time(&c.asked), **id))
                    .map(|(id, _)| *id);
                id.and_then(|id| table.connections.remove(&id))
            };
            if let Some(connection) = oldest {
                connection.task.abort();
                return;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
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
        let started = Arc::new(AtomicBool::new(false));
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
        let running = Arc::clone(&started);
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
            // Marked before the first poll, which reads what the client has
            // sent (and answers a whole request) in this same turn: an end
            // for room takes effect only when the task next yields.
            running.store(true, Ordering::Release);
            let _ = tokio::time::timeout(CONNECTION_LIFETIME, connection).await;
        });
        table.connections.insert(
            id,
            Peer {
                asked,
                started,
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

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use http_body_util::Full;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A burst of new connections, all accepted before any of their tasks
    /// ran (one thread, the accept loop never yielding), once ended the
    /// first of them for room before it had read its request: a scrape
    /// that came just before a reconnect storm was reset (seen on CI, one
    /// scrape in thirty beside the slow clients). A connection is ended for
    /// room only once it has had its turn to read.
    #[tokio::test]
    async fn a_burst_of_connections_ends_none_that_has_not_had_its_turn() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        // The scrape first in the listen queue, its request sent; then
        // enough idle connections to take every slot, and the scrape's, and
        // one more.
        let mut scrape = TcpStream::connect(addr).await.expect("connect");
        scrape
            .write_all(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            .await
            .expect("request");
        let mut idle = Vec::new();
        for _ in 0..=MAX_CONNECTIONS {
            idle.push(TcpStream::connect(addr).await.expect("connect"));
        }
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let handler =
            |_req: Request<Incoming>| async { Response::new(Full::new(Bytes::from("ok"))) };
        let server = tokio::spawn(serve_with(listener, handler, async {
            let _ = stopped.await;
        }));
        let mut answer = Vec::new();
        let read =
            tokio::time::timeout(Duration::from_secs(5), scrape.read_to_end(&mut answer)).await;
        // And room is made all the same: an idle connection is ended.
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut ended = false;
        while !ended && Instant::now() < deadline {
            for s in &mut idle {
                let mut byte = [0u8; 1];
                if let Ok(Ok(0) | Err(_)) =
                    tokio::time::timeout(Duration::from_millis(1), s.read(&mut byte)).await
                {
                    ended = true;
                }
            }
        }
        let _ = stop.send(());
        let _ = server.await;
        let answer = String::from_utf8_lossy(&answer);
        assert!(
            matches!(read, Ok(Ok(_)))
                && answer.starts_with("HTTP/1.1 200 OK")
                && answer.ends_with("ok"),
            "the scrape: {read:?} {answer:?}"
        );
        assert!(ended, "no idle connection was ended for room");
    }
}
