//! kubectl's `-v`, for API requests: at level 6 each request's verb, URL,
//! status and time taken, at 8 its response's size too, written to
//! stderr as they happen (cleaned like every other output), so a person
//! can see which requests a command made and which one was slow.
//!
//! The client's requests pass through [`Logged`], a layer of kube's own
//! stack that says what it saw through `tracing` (the instrumentation kube
//! already uses); [`install`] sets the one subscriber that writes those
//! events, and only those, to stderr. Without `-v 6` nothing is installed
//! and the events go nowhere.

use bytes::Bytes;
use http::{Request, Response};
use http_body::{Body as HttpBody, Frame, SizeHint};
use kube::client::Body;
use std::fmt::Write as _;
use std::future::Future;
use std::io::Write as _;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// The target of the events [`Logged`] emits, and the only one written.
const TARGET: &str = "kubectl_valkey_roll::request";

/// kubectl's level at which each request is logged.
pub const REQUESTS: u8 = 6;
/// kubectl's level at which response sizes are logged too.
pub const SIZES: u8 = 8;

/// Writes the request events to stderr from now on, when `level` asks for
/// them (see [`REQUESTS`], [`SIZES`]). Once per process; a second call
/// changes nothing.
pub fn install(level: u8) {
    if level >= REQUESTS {
        let _ = tracing::subscriber::set_global_default(Stderr {
            sizes: level >= SIZES,
        });
    }
}

/// The subscriber: request events only, one line each.
struct Stderr {
    sizes: bool,
}

impl Subscriber for Stderr {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target() == TARGET
            && match *metadata.level() {
                Level::INFO => true,
                Level::DEBUG => self.sizes,
                _ => false,
            }
    }

    fn new_span(&self, _span: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _span: &Id, _values: &Record<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut line = Line(String::new());
        event.record(&mut line);
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{}", crate::render::style::clean(&line.0));
    }

    fn enter(&self, _span: &Id) {}

    fn exit(&self, _span: &Id) {}
}

/// An event's message.
struct Line(String);

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        }
    }
}

/// The layer every request of the client passes through.
#[derive(Clone, Copy, Debug, Default)]
pub struct Logged;

impl<S> tower_layer::Layer<S> for Logged {
    type Service = LoggedService<S>;

    fn layer(&self, inner: S) -> LoggedService<S> {
        LoggedService { inner }
    }
}

#[derive(Clone, Debug)]
pub struct LoggedService<S> {
    inner: S,
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
        let url = request.uri().to_string();
        let start = Instant::now();
        let response = self.inner.call(request);
        Box::pin(async move {
            let result = response.await;
            let millis = start.elapsed().as_millis();
            match &result {
                Ok(r) => tracing::info!(
                    target: TARGET,
                    "{}",
                    crate::render::clock::request(&verb, &url, &r.status().to_string(), millis)
                ),
                Err(e) => tracing::info!(
                    target: TARGET,
                    "{}",
                    crate::render::clock::request(&verb, &url, &format!("failed: {e}"), millis)
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
pub struct Counted<B> {
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
                "{}",
                crate::render::clock::response_size(&self.verb, &self.url, self.bytes)
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
