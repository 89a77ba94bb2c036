//! The exporter's HTTP server: hyper's HTTP/1 server on the tokio listener,
//! three read-only paths, nothing else.
//!
//! - `GET /metrics`: the metrics, rendered from [`Shared`] at the scrape;
//! - `GET /healthz`: 200 while the process serves;
//! - `GET /readyz`: 200 when every context's view is whole and judged, else
//!   503; the body names each context and what it cannot see.
//!
//! `HEAD` is answered as `GET` without a body; other methods get 405, other
//! paths 404. Each connection must send its request headers within
//! [`HEADER_TIMEOUT`], lives at most [`CONNECTION_LIFETIME`], and at most
//! [`MAX_CONNECTIONS`] are served at once (more wait to be accepted): a stuck or hostile client cannot hold the
//! exporter. An error of one connection ends that connection only; an
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
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// How long a connection may take to send a request's headers.
pub(crate) const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections served at once.
pub(crate) const MAX_CONNECTIONS: usize = 64;

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
    tokio::pin!(stop);
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
            return;
        };
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
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let service = service_fn(move |req: Request<Incoming>| {
                let shared = Arc::clone(&shared);
                async move { Ok::<_, Infallible>(answer(req.method(), req.uri().path(), &shared)) }
            });
            let connection = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service);
            let _ = tokio::time::timeout(CONNECTION_LIFETIME, connection).await;
            drop(slot);
        });
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
