//! kubectl's `-v`, for API requests, and the limits of every answer:
//! every request of the client passes through [`Logged`], a layer of
//! kube's own stack, which says what it saw through `tracing` (the
//! instrumentation kube already uses): the verb, URL, status and time
//! taken of each request, and its response's size once read whole. Events
//! only, no words: the one subscriber that writes them (`crate::verbose`)
//! words them, and is installed only for `-v 6` and above; otherwise they
//! go nowhere.
//!
//! The same layer bounds each answer, whatever the server sends:
//! `--request-timeout` is the time of the whole request, its body read to
//! the end included (as kubectl's is), not only the time between two
//! reads; a watch stream is exempt (it stays open for minutes by design).
//! An answer larger than [`MAX_ANSWER_BYTES`] (of a watch stream: one
//! event, one line, larger than that) is cut, and a redirect is an error
//! with its status: none is followed, as kubectl follows none for the
//! API. Each is a [`Cut`] in the client's error chain, which
//! `live::map_error` names.

use bytes::Bytes;
use http::{Request, Response};
use http_body::{Body as HttpBody, Frame, SizeHint};
use kube::client::Body;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// The target of the events [`Logged`] emits: a request's answer at INFO
/// (`verb`, `url`, `status`, `millis`), its response's size at DEBUG
/// (`verb`, `url`, `bytes`).
pub(crate) const TARGET: &str = "kubectl_valkey_roll::request";

/// The most bytes one answer may have (of a watch stream: one event):
/// 64 MiB. A LIST page of 500 pods as the operator builds them is a few
/// MiB, an object at most the 1.5 MiB etcd stores (some 3 MiB as JSON);
/// an answer that goes on past this is a server or proxy that never ends
/// it, and reading on would only fill memory.
pub(crate) const MAX_ANSWER_BYTES: u64 = 64 * 1024 * 1024;

/// Why an answer was cut short, or not taken: in the client's error chain
/// (as the cause of kube's error), named by `live::map_error`.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Cut {
    /// The request, its body included, took longer than the limit.
    #[error("the answer did not end within {}s", .0.as_secs_f64())]
    TimedOut(Duration),
    /// The answer (a watch's event) was larger than [`MAX_ANSWER_BYTES`].
    #[error("the answer is larger than {} MiB", MAX_ANSWER_BYTES / (1024 * 1024))]
    TooLarge,
    /// The server answered a redirect (3xx), which is not followed.
    #[error("the server answered {status}, a redirect{}", .location.as_ref().map(|l| format!(" to {l}")).unwrap_or_default())]
    Redirect {
        status: u16,
        location: Option<String>,
    },
}

/// The [`Cut`] in an error's chain, if any: kube keeps a body's error as
/// the payload of an `io::Error`, which `source()` passes over, so each
/// `io::Error` is looked into too.
pub(crate) fn cut_in<'e>(err: &'e (dyn std::error::Error + 'static)) -> Option<&'e Cut> {
    let mut next = Some(err);
    while let Some(e) = next {
        if let Some(cut) = e.downcast_ref::<Cut>() {
            return Some(cut);
        }
        if let Some(inner) = e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .and_then(|inner| inner.downcast_ref::<Cut>())
        {
            return Some(inner);
        }
        next = e.source();
    }
    None
}

/// The layer every request of the client passes through. `server`: the
/// API server's URL, which requests are relative to at this layer (kube
/// adds it further in), so that a logged URL is whole, as kubectl's.
/// `timeout`: the time each request may take whole, but a watch's
/// (`None`: no limit).
/// `bearer`: the `Authorization` header of a credential plugin's token
/// (`live`'s, renewed there), set on each request.
/// `slim_lists`: each LIST answer of pods, workloads or events is
/// slimmed as it arrives ([`super::slim::slim_list`]; the watch's client).
#[derive(Clone, Debug, Default)]
pub(crate) struct Logged {
    pub server: String,
    pub timeout: Option<Duration>,
    pub bearer: Option<Bearer>,
    pub slim_lists: bool,
}

/// A credential plugin's current `Authorization` header.
pub(crate) type Bearer = std::sync::Arc<std::sync::Mutex<http::HeaderValue>>;

impl<S> tower_layer::Layer<S> for Logged {
    type Service = LoggedService<S>;

    fn layer(&self, inner: S) -> LoggedService<S> {
        LoggedService {
            inner,
            server: self.server.trim_end_matches('/').to_string(),
            timeout: self.timeout,
            bearer: self.bearer.clone(),
            slim_lists: self.slim_lists,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct LoggedService<S> {
    inner: S,
    server: String,
    timeout: Option<Duration>,
    bearer: Option<Bearer>,
    slim_lists: bool,
}

/// The kind a LIST's path names, of those [`super::slim::slim_list`] slims:
/// its last segment (`/api/v1/namespaces/ns/pods`).
fn slimmed_kind(path: &str) -> Option<&'static str> {
    match path.rsplit('/').next()? {
        "pods" => Some("Pod"),
        "statefulsets" => Some("StatefulSet"),
        "deployments" => Some("Deployment"),
        "events" => Some("Event"),
        "valkeynodes" => Some("ValkeyNode"),
        _ => None,
    }
}

/// A watch request (`watch=true` or `watch=1` in its query): its answer is
/// a stream of events, each on a line, open for minutes.
fn is_watch(uri: &http::Uri) -> bool {
    uri.query().is_some_and(|q| {
        q.split('&')
            .any(|pair| matches!(pair, "watch=true" | "watch=1"))
    })
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B> tower_service::Service<Request<Body>> for LoggedService<S>
where
    S: tower_service::Service<Request<Body>, Response = Response<B>>,
    S::Future: Send + 'static,
    S::Error: std::fmt::Display + From<Cut> + Send + 'static,
    B: HttpBody<Data = Bytes> + Send + Unpin + 'static,
    B::Error: From<Cut> + Send + 'static,
{
    type Response = Response<Answer<B>>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Response<Answer<B>>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<Body>) -> Self::Future {
        if let Some(bearer) = &self.bearer {
            let value = bearer.lock().unwrap_or_else(|p| p.into_inner()).clone();
            request
                .headers_mut()
                .insert(http::header::AUTHORIZATION, value);
        }
        let verb = request.method().to_string();
        let uri = request.uri();
        let url = match uri.scheme() {
            Some(_) => uri.to_string(),
            None => format!("{}{uri}", self.server),
        };
        let watch = is_watch(uri);
        let slimmed = (self.slim_lists && !watch && request.method() == http::Method::GET)
            .then(|| slimmed_kind(uri.path()))
            .flatten();
        let start = Instant::now();
        let limit = self.timeout.filter(|_| !watch);
        let deadline = limit.map(|limit| tokio::time::Instant::now() + limit);
        let response = self.inner.call(request);
        Box::pin(async move {
            let result = match deadline {
                Some(deadline) => tokio::time::timeout_at(deadline, response)
                    .await
                    .unwrap_or_else(|_| Err(Cut::TimedOut(limit.unwrap_or_default()).into())),
                None => response.await,
            };
            // No redirect is followed (kubectl follows none for the API):
            // its status is the error, so the caller never reads a page
            // it did not ask for as the answer.
            let result = result.and_then(|r| {
                if r.status().is_redirection() {
                    Err(Cut::Redirect {
                        status: r.status().as_u16(),
                        location: r
                            .headers()
                            .get(http::header::LOCATION)
                            .and_then(|l| l.to_str().ok())
                            .map(str::to_string),
                    }
                    .into())
                } else {
                    Ok(r)
                }
            });
            let millis = start.elapsed().as_millis();
            match &result {
                Ok(r) => tracing::info!(
                    target: TARGET,
                    verb = %verb,
                    url = %url,
                    status = %r.status(),
                    millis = millis as u64,
                ),
                Err(e) => tracing::info!(
                    target: TARGET,
                    verb = %verb,
                    url = %url,
                    error = %e,
                    millis = millis as u64,
                ),
            }
            result.map(|r| {
                let ok = r.status().is_success();
                r.map(|body| {
                    let counted = Counted {
                        body,
                        bytes: 0,
                        verb,
                        url,
                        said: false,
                        watch,
                        since_line: 0,
                        deadline: deadline.map(|d| Box::pin(tokio::time::sleep_until(d))),
                        limit: limit.unwrap_or_default(),
                    };
                    match slimmed.filter(|_| ok) {
                        Some(kind) => Answer::Slimmed(slim(counted, kind)),
                        None => Answer::Plain(counted),
                    }
                })
            })
        })
    }
}

/// A response body that counts its bytes and says how many at its end;
/// cut at the request's deadline and at [`MAX_ANSWER_BYTES`].
pub(crate) struct Counted<B> {
    body: B,
    bytes: u64,
    verb: String,
    url: String,
    said: bool,
    /// A watch stream: the cap is of each line (event), not of the whole.
    watch: bool,
    /// Bytes since the last line break (a watch's).
    since_line: u64,
    /// When the whole request must have ended (not for a watch).
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
    /// The time limit the deadline comes from, to name it.
    limit: Duration,
}

impl<B> Counted<B> {
    fn say(&mut self) {
        if !self.said {
            self.said = true;
            tracing::debug!(
                target: TARGET,
                verb = %self.verb,
                url = %self.url,
                bytes = self.bytes,
            );
        }
    }
}

impl<B> HttpBody for Counted<B>
where
    B: HttpBody<Data = Bytes> + Unpin,
    B::Error: From<Cut>,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = &mut *self;
        if let Some(deadline) = &mut this.deadline
            && deadline.as_mut().poll(cx).is_ready()
        {
            this.deadline = None;
            return Poll::Ready(Some(Err(Cut::TimedOut(this.limit).into())));
        }
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.bytes += data.len() as u64;
                    let over = if this.watch {
                        this.since_line = match data.iter().rposition(|&b| b == b'\n') {
                            Some(at) => (data.len() - at - 1) as u64,
                            None => this.since_line + data.len() as u64,
                        };
                        this.since_line > MAX_ANSWER_BYTES
                    } else {
                        this.bytes > MAX_ANSWER_BYTES
                    };
                    if over {
                        return Poll::Ready(Some(Err(Cut::TooLarge.into())));
                    }
                }
            }
            Poll::Ready(None) => this.say(),
            _ => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A response body: as it came, or a LIST slimmed as it arrives.
pub(crate) enum Answer<B: HttpBody> {
    Plain(Counted<B>),
    Slimmed(tokio::sync::mpsc::Receiver<Result<Bytes, B::Error>>),
}

impl<B> HttpBody for Answer<B>
where
    B: HttpBody<Data = Bytes> + Unpin,
    B::Error: From<Cut>,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        match self.get_mut() {
            Answer::Plain(body) => Pin::new(body).poll_frame(cx),
            Answer::Slimmed(rx) => rx
                .poll_recv(cx)
                .map(|piece| piece.map(|p| p.map(Frame::data))),
        }
    }
}

/// `body`, a LIST of `kind`, slimmed as it arrives
/// ([`super::slim::slim_list`], on a blocking thread fed chunk by chunk):
/// what comes out is a few pieces of the slimmed text at a time, then the
/// body's error if it failed (the answer too large, too slow).
fn slim<B>(
    mut body: Counted<B>,
    kind: &'static str,
) -> tokio::sync::mpsc::Receiver<Result<Bytes, B::Error>>
where
    B: HttpBody<Data = Bytes> + Send + Unpin + 'static,
    B::Error: From<Cut> + Send + 'static,
{
    let (out, slimmed) = tokio::sync::mpsc::channel(4);
    let (chunks, rx) = tokio::sync::mpsc::channel::<Vec<u8>>(4);
    let writer = out.clone();
    let reader = tokio::task::spawn_blocking(move || {
        let chunks = super::slim::Chunks::new(rx);
        super::slim::slim_list(
            kind,
            std::io::BufReader::with_capacity(64 * 1024, chunks),
            |piece| writer.blocking_send(Ok(Bytes::from(piece))).is_ok(),
        );
    });
    tokio::spawn(async move {
        loop {
            let frame = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await;
            match frame {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data()
                        && chunks.send(data.to_vec()).await.is_err()
                    {
                        break;
                    }
                }
                Some(Err(e)) => {
                    // The reader's pieces first, then the error.
                    drop(chunks);
                    let _ = reader.await;
                    let _ = out.send(Err(e)).await;
                    return;
                }
                None => break,
            }
        }
        drop(chunks);
        let _ = reader.await;
    });
    slimmed
}
