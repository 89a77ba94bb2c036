//! kubectl's `-v`, for API requests: every request of the client passes
//! through [`Logged`], a layer of kube's own stack, which says what it
//! saw through `tracing` (the instrumentation kube already uses): the
//! verb, URL, status and time taken of each request, and its response's
//! size once read whole. Events only, no words: the one subscriber that
//! writes them (`crate::verbose`) words them, and is installed only for
//! `-v 6` and above; otherwise they go nowhere.

use bytes::Bytes;
use http::{Request, Response};
use http_body::{Body as HttpBody, Frame, SizeHint};
use kube::client::Body;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

/// The target of the events [`Logged`] emits: a request's answer at INFO
/// (`verb`, `url`, `status`, `millis`), its response's size at DEBUG
/// (`verb`, `url`, `bytes`).
pub(crate) const TARGET: &str = "kubectl_valkey_roll::request";

/// The layer every request of the client passes through. `server`: the
/// API server's URL, which requests are relative to at this layer (kube
/// adds it further in), so that a logged URL is whole, as kubectl's.
#[derive(Clone, Debug, Default)]
pub(crate) struct Logged {
    pub server: String,
}

impl<S> tower_layer::Layer<S> for Logged {
    type Service = LoggedService<S>;

    fn layer(&self, inner: S) -> LoggedService<S> {
        LoggedService {
            inner,
            server: self.server.trim_end_matches('/').to_string(),
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct LoggedService<S> {
    inner: S,
    server: String,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B> tower_service::Service<Request<Body>> for LoggedService<S>
where
    S: tower_service::Service<Request<Body>, Response = Response<B>>,
    S::Future: Send + 'static,
    S::Error: std::fmt::Display + 'static,
    B: HttpBody<Data = Bytes> + Send + Unpin + 'static,
{
    type Response = Response<Counted<B>>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Response<Counted<B>>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let verb = request.method().to_string();
        let uri = request.uri();
        let url = match uri.scheme() {
            Some(_) => uri.to_string(),
            None => format!("{}{uri}", self.server),
        };
        let start = Instant::now();
        let response = self.inner.call(request);
        Box::pin(async move {
            let result = response.await;
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
                r.map(|body| Counted {
                    body,
                    bytes: 0,
                    verb,
                    url,
                    said: false,
                })
            })
        })
    }
}

/// A response body that counts its bytes and says how many at its end.
pub(crate) struct Counted<B> {
    body: B,
    bytes: u64,
    verb: String,
    url: String,
    said: bool,
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
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.bytes += data.len() as u64;
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
