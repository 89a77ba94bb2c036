//! The dashboard's paths, served through the exporter's connection
//! handling (`commands::http::serve_with`: hyper's HTTP/1 server, bounded
//! header time, write time, lifetime and connection count). Every path is
//! read-only; only `GET` and `HEAD` are answered.
//!
//! - `/`, `/dashboard.js`, `/dashboard.css`, `/favicon.svg`: the page,
//!   compiled in;
//! - `/events`: the live view as server-sent events: first the whole
//!   board (serialised once per state of the board, shared by the streams
//!   that start at it), then what changed on it (render::dashboard says
//!   each event);
//! - `/history/CONTEXT/NAMESPACE/NAME`: the roll's picture
//!   (`history -o svg`), from the context's last snapshot; each part
//!   percent-decoded on its own, as the page encodes it; one drawn at a
//!   time, a few waiting, the next 503.
//!
//! Every answer carries a strict Content-Security-Policy and `nosniff`.
//! A `Host` other than an address or `localhost` is refused while the
//! page is on loopback: a web page elsewhere cannot rebind its own name to
//! the loopback address and read the page through it.

use super::{Board, ContextBoard};
use crate::commands::http::serve_with;
use crate::render::dashboard::{
    CONTENT_SECURITY_POLICY, ClusterCard, ContextLine, HISTORY_BUSY, ICON, INDEX_HTML, KEEP_ALIVE,
    SCRIPT, STREAM_START, STYLE, cluster_event, contexts_event, gone_event,
};
use crate::report::Report;
use bytes::Bytes;
use futures::Stream;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use jiff::Timestamp;
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::sync::watch as channel;

type Body = BoxBody<Bytes, Infallible>;

/// How long an idle stream waits before a comment keeps it open.
const KEEP_ALIVE_EVERY: Duration = Duration::from_secs(15);

/// History pictures drawn at once: each classifies the whole view (a
/// second or more of a core, tens of MiB, at 3,000 nodes).
const HISTORY_DRAWN: usize = 1;

/// History requests that may wait for their turn besides; the next get
/// 503 at once.
const HISTORY_WAITING: usize = 8;

/// What the requests of every connection share.
pub(crate) struct Shared {
    /// The whole board as a stream's first event, for the last state a
    /// stream started at.
    first: tokio::sync::Mutex<Option<Arc<Whole>>>,
    /// A permit per picture being drawn.
    drawing: Arc<Semaphore>,
    /// A permit per history request being drawn or waiting.
    asking: Arc<Semaphore>,
}

impl Default for Shared {
    fn default() -> Self {
        Shared {
            first: tokio::sync::Mutex::new(None),
            drawing: Arc::new(Semaphore::new(HISTORY_DRAWN)),
            asking: Arc::new(Semaphore::new(HISTORY_DRAWN + HISTORY_WAITING)),
        }
    }
}

/// Serves the page until `stop` resolves.
pub(crate) async fn serve(
    listener: TcpListener,
    board: channel::Receiver<Board>,
    stop: impl Future<Output = ()>,
) {
    let loopback = listener
        .local_addr()
        .is_ok_and(|a: SocketAddr| a.ip().is_loopback());
    let shared = Arc::new(Shared::default());
    let handler = move |req: Request<Incoming>| {
        let board = board.clone();
        let shared = Arc::clone(&shared);
        async move { answer(&req, board, &shared, loopback).await }
    };
    serve_with(listener, handler, stop).await;
}

/// The answer to one request.
pub(crate) async fn answer<T>(
    req: &Request<T>,
    board: channel::Receiver<Board>,
    shared: &Arc<Shared>,
    loopback: bool,
) -> Response<Body> {
    if loopback && !host_is_local(req) {
        return text(StatusCode::MISDIRECTED_REQUEST, "not a local name\n");
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut r = text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    let head = req.method() == Method::HEAD;
    let path = req.uri().path();
    let found = match path {
        "/" => asset("text/html; charset=utf-8", INDEX_HTML),
        "/dashboard.js" => asset("text/javascript; charset=utf-8", SCRIPT),
        "/dashboard.css" => asset("text/css; charset=utf-8", STYLE),
        "/favicon.svg" => asset("image/svg+xml", ICON),
        "/events" if head => asset("text/event-stream", ""),
        "/events" => with_headers(
            Response::new(StreamBody::new(events(board, Arc::clone(shared))).boxed()),
            "text/event-stream",
        ),
        _ => match path.strip_prefix("/history/") {
            Some(rest) => history(rest, &board, shared).await,
            None => text(StatusCode::NOT_FOUND, "not found\n"),
        },
    };
    if head {
        let (parts, _) = found.into_parts();
        return Response::from_parts(parts, empty());
    }
    found
}

/// Whether the request names this host by an address or `localhost`.
fn host_is_local<T>(req: &Request<T>) -> bool {
    let Some(host) = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
    else {
        return false;
    };
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    let name = name.trim_start_matches('[').trim_end_matches(']');
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok()
}

fn empty() -> Body {
    Full::new(Bytes::new()).boxed()
}

fn asset(content_type: &'static str, body: &'static str) -> Response<Body> {
    with_headers(
        Response::new(Full::new(Bytes::from_static(body.as_bytes())).boxed()),
        content_type,
    )
}

/// 503: too many history pictures asked for at once; try again in a
/// second.
fn busy() -> Response<Body> {
    let mut r = text(StatusCode::SERVICE_UNAVAILABLE, HISTORY_BUSY);
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

fn text(status: StatusCode, body: &'static str) -> Response<Body> {
    let mut r = asset("text/plain; charset=utf-8", body);
    *r.status_mut() = status;
    r
}

/// The headers of every answer.
fn with_headers(mut r: Response<Body>, content_type: &'static str) -> Response<Body> {
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// Set when dropped: the request it belongs to is gone.
struct GoneOnDrop(Arc<AtomicBool>);

impl Drop for GoneOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// `history -o svg` of one cluster, from its view as last judged: one
/// drawn at a time ([`HISTORY_DRAWN`]), a few waiting their turn, the
/// next told to come back. A request whose connection ends (the client
/// went away, or its connection gave way to another) drops its place in
/// the queue, and its picture if it is not drawn yet.
async fn history(rest: &str, board: &channel::Receiver<Board>, shared: &Shared) -> Response<Body> {
    let not_found = || text(StatusCode::NOT_FOUND, "no such cluster in view\n");
    let mut parts = rest.splitn(3, '/').map(percent_decoded);
    let (Some(Some(at)), Some(Some(namespace)), Some(Some(name))) =
        (parts.next(), parts.next(), parts.next())
    else {
        return not_found();
    };
    let Ok(at) = at.parse::<usize>() else {
        return not_found();
    };
    let (namespace, name) = (namespace.as_str(), name.as_str());
    let found = {
        let b = board.borrow();
        b.contexts.get(at).and_then(|c: &ContextBoard| {
            let view = c.views.get(&(namespace.to_string(), name.to_string()))?;
            Some((Arc::clone(view), c.threshold))
        })
    };
    let Some((snapshot, threshold)) = found else {
        return not_found();
    };
    let Ok(_asking) = Arc::clone(&shared.asking).try_acquire_owned() else {
        return busy();
    };
    let Ok(drawing) = Arc::clone(&shared.drawing).acquire_owned().await else {
        return busy();
    };
    let gone = Arc::new(AtomicBool::new(false));
    let _gone_on_drop = GoneOnDrop(Arc::clone(&gone));
    let (namespace, name) = (namespace.to_string(), name.to_string());
    let drawn = tokio::task::spawn_blocking(move || {
        // Held until the picture is drawn, even if its request is gone.
        let _drawing = drawing;
        if gone.load(Ordering::Relaxed) {
            return None;
        }
        let now = Timestamp::now();
        let mut report = crate::classify::classify_with_history(&snapshot, now, threshold);
        if gone.load(Ordering::Relaxed) {
            return None;
        }
        report
            .clusters
            .retain(|c| c.namespace == namespace && c.name == name);
        if report.clusters.is_empty() {
            return None;
        }
        let marks = crate::commands::history::failover_marks(&snapshot, &namespace, &name);
        let one = Report {
            clusters: report.clusters,
        };
        Some(crate::render::svg::history(&one, now, &[marks]))
    })
    .await;
    match drawn {
        Ok(Some(svg)) => with_headers(
            Response::new(Full::new(Bytes::from(svg)).boxed()),
            "image/svg+xml",
        ),
        _ => not_found(),
    }
}

/// One part of a path as the page encoded it (`encodeURIComponent`):
/// each `%XX` the byte it stands for, the bytes UTF-8; `None` for a `%`
/// not followed by two hex digits, or bytes that are not UTF-8.
fn percent_decoded(part: &str) -> Option<String> {
    if !part.contains('%') {
        return Some(part.to_string());
    }
    let hex = |b: u8| {
        char::from(b)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    };
    let bytes = part.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let high = hex(*bytes.get(i + 1)?)?;
            let low = hex(*bytes.get(i + 2)?)?;
            out.push(high << 4 | low);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// What one page was last sent.
struct Sent {
    board: channel::Receiver<Board>,
    lines: Option<Vec<ContextLine>>,
    cards: HashMap<String, Arc<ClusterCard>>,
}

/// What a page is shown: the board's state, each context's line and its
/// cards.
struct Shown {
    generation: u64,
    lines: Vec<ContextLine>,
    cards: Vec<Arc<ClusterCard>>,
}

impl Shown {
    /// The board as it is now, marked seen by `board`.
    fn now(board: &mut channel::Receiver<Board>) -> Shown {
        let b = board.borrow_and_update();
        Shown {
            generation: b.generation,
            lines: b.contexts.iter().map(|c| c.line.clone()).collect(),
            cards: b
                .contexts
                .iter()
                .flat_map(|c| c.cards.values().cloned())
                .collect(),
        }
    }
}

/// A stream's first event, the whole board: serialised once for a state
/// of the board and shared, with what it holds, by every stream that
/// starts at that state (at 3,000 nodes it is some 7.5 MB).
struct Whole {
    generation: u64,
    bytes: Bytes,
    lines: Vec<ContextLine>,
    cards: Vec<Arc<ClusterCard>>,
}

impl Shared {
    /// The first event of a stream that starts now: the last one
    /// serialised when the board has not changed since, else the board
    /// serialised afresh (and kept for the next stream).
    async fn whole(&self, board: &mut channel::Receiver<Board>) -> Arc<Whole> {
        let mut last = self.first.lock().await;
        let shown = Shown::now(board);
        if let Some(whole) = last.as_ref().filter(|w| w.generation == shown.generation) {
            return Arc::clone(whole);
        }
        let mut sent = Sent {
            board: board.clone(),
            lines: None,
            cards: HashMap::new(),
        };
        let text = format!(
            "{STREAM_START}{}",
            sent.catch_up_to(shown.lines.clone(), shown.cards.clone())
        );
        let whole = Arc::new(Whole {
            generation: shown.generation,
            bytes: Bytes::from(text),
            lines: shown.lines,
            cards: shown.cards,
        });
        *last = Some(Arc::clone(&whole));
        whole
    }
}

impl Sent {
    /// A page sent `whole`.
    fn after(board: channel::Receiver<Board>, whole: &Whole) -> Sent {
        Sent {
            board,
            lines: Some(whole.lines.clone()),
            cards: whole
                .cards
                .iter()
                .map(|c| (c.key.clone(), Arc::clone(c)))
                .collect(),
        }
    }

    /// The events that bring the page from what it was sent to the board
    /// as it is now (empty when nothing changed).
    fn catch_up(&mut self) -> String {
        let shown = Shown::now(&mut self.board);
        self.catch_up_to(shown.lines, shown.cards)
    }

    /// The events that bring the page from what it was sent to `lines`
    /// and `cards`.
    fn catch_up_to(&mut self, lines: Vec<ContextLine>, cards: Vec<Arc<ClusterCard>>) -> String {
        let mut out = String::new();
        if self.lines.as_ref() != Some(&lines) {
            out.push_str(&contexts_event(&lines).unwrap_or_default());
            self.lines = Some(lines);
        }
        let mut now: HashMap<String, Arc<ClusterCard>> = HashMap::with_capacity(cards.len());
        for card in cards {
            let old = self.cards.remove(&card.key);
            if old.as_ref().is_some_and(|o| Arc::ptr_eq(o, &card)) {
                now.insert(card.key.clone(), card);
                continue;
            }
            let before: HashMap<&str, &str> = old
                .as_ref()
                .map(|o| {
                    o.explain
                        .iter()
                        .map(|(n, t)| (n.as_str(), t.as_str()))
                        .collect()
                })
                .unwrap_or_default();
            let changed: Vec<(&str, &str)> = card
                .explain
                .iter()
                .map(|(n, t)| (n.as_str(), t.as_str()))
                .filter(|(n, t)| before.get(n) != Some(t))
                .collect();
            out.push_str(&cluster_event(&card, &changed).unwrap_or_default());
            now.insert(card.key.clone(), card);
        }
        for key in self.cards.keys() {
            out.push_str(&gone_event(key).unwrap_or_default());
        }
        self.cards = now;
        out
    }
}

/// Where a stream is.
enum Stage {
    /// Its first event is still to be sent.
    Starting(channel::Receiver<Board>, Arc<Shared>),
    Going(Sent),
}

/// The stream of one page: the whole board (shared with the other
/// streams that start at the same state), then each change.
fn events(
    board: channel::Receiver<Board>,
    shared: Arc<Shared>,
) -> impl Stream<Item = Result<Frame<Bytes>, Infallible>> + Send + 'static {
    futures::stream::unfold(Stage::Starting(board, shared), |stage| async move {
        let mut sent = match stage {
            Stage::Going(sent) => sent,
            Stage::Starting(mut board, shared) => {
                let whole = shared.whole(&mut board).await;
                let sent = Sent::after(board, &whole);
                return Some((Ok(Frame::data(whole.bytes.clone())), Stage::Going(sent)));
            }
        };
        loop {
            match tokio::time::timeout(KEEP_ALIVE_EVERY, sent.board.changed()).await {
                Err(_) => {
                    let alive = Bytes::from_static(KEEP_ALIVE.as_bytes());
                    return Some((Ok(Frame::data(alive)), Stage::Going(sent)));
                }
                // The board is gone: the dashboard stops.
                Ok(Err(_)) => return None,
                Ok(Ok(())) => {
                    let news = sent.catch_up();
                    if !news.is_empty() {
                        return Some((Ok(Frame::data(Bytes::from(news))), Stage::Going(sent)));
                    }
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::dashboard::ContextBoard;
    use crate::fixture::{cluster, node};
    use crate::render::dashboard::ContextLine;
    use std::collections::BTreeMap;

    /// A board of one context whose view holds the cluster `namespace/name`.
    fn board_with(namespace: &str, name: &str) -> channel::Receiver<Board> {
        let mut c = cluster(namespace, name).ready_for_generation();
        for i in 0..3 {
            let n = node(&format!("cache-0-{i}"))
                .shard(0, i)
                .ready()
                .pod_ready()
                .sts_rolled_out();
            c = c.node(if i == 0 { n.primary() } else { n.replica() });
        }
        let view = Arc::new(c.snapshot());
        let board = Board {
            contexts: vec![ContextBoard {
                line: ContextLine {
                    name: "current context".into(),
                    connection: "live".into(),
                    trouble: false,
                    empty: None,
                    as_of: None,
                    servers: None,
                    stale_since: None,
                },
                cards: BTreeMap::new(),
                views: BTreeMap::from([((namespace.to_string(), name.to_string()), view)]),
                threshold: Duration::from_secs(600),
            }],
            ..Board::default()
        };
        let (tx, rx) = channel::channel(board);
        std::mem::forget(tx);
        rx
    }

    async fn status(board: &channel::Receiver<Board>, path: &str) -> StatusCode {
        let req = Request::builder()
            .uri(path)
            .header(header::HOST, "127.0.0.1:9809")
            .body(())
            .expect("request");
        answer(&req, board.clone(), &Arc::new(Shared::default()), true)
            .await
            .status()
    }

    /// The first frame of a stream.
    async fn first_frame(board: &channel::Receiver<Board>, shared: &Arc<Shared>) -> Bytes {
        use futures::StreamExt;
        let stream = events(board.clone(), Arc::clone(shared));
        let mut stream = std::pin::pin!(stream);
        let frame = stream.next().await.expect("a frame").expect("data");
        frame.into_data().unwrap_or_default()
    }

    /// Issue 42 item 5: each stream serialised the whole board for its
    /// first event (7.5 MB at 3,000 nodes: 64 streams that never read took
    /// the process from 410 to 905 MiB). Streams that start at the same
    /// state of the board now share one copy; a change makes the next.
    #[tokio::test]
    async fn streams_that_start_together_share_their_first_event() {
        let (tx, rx) = channel::channel(Board::default());
        let shared = Arc::new(Shared::default());
        let one = first_frame(&rx, &shared).await;
        let two = first_frame(&rx, &shared).await;
        assert!(one.starts_with(STREAM_START.as_bytes()), "{one:?}");
        assert_eq!(one.as_ptr(), two.as_ptr(), "one copy");
        super::super::change(&tx, |b| {
            b.contexts.push(ContextBoard {
                line: ContextLine {
                    name: "current context".into(),
                    connection: "live".into(),
                    trouble: false,
                    empty: None,
                    as_of: None,
                    servers: None,
                    stale_since: None,
                },
                cards: BTreeMap::new(),
                views: BTreeMap::new(),
                threshold: Duration::from_secs(600),
            });
            true
        });
        let three = first_frame(&rx, &shared).await;
        assert_ne!(one.as_ptr(), three.as_ptr());
        assert!(
            String::from_utf8_lossy(&three).contains("current context"),
            "{three:?}"
        );
    }

    /// Issue 42 item 5: every history request drew its picture, at once,
    /// to the end, its client gone or not (100 clients that never read
    /// took 1,032 MiB and starved the page). One is drawn at a time, a
    /// few wait, the next get 503; a request dropped while it waits gives
    /// its place back.
    #[tokio::test]
    async fn history_pictures_are_drawn_one_at_a_time() {
        let board = board_with("prod", "cache");
        let shared = Arc::new(Shared::default());
        let req = Request::builder()
            .uri("/history/000/prod/cache")
            .header(header::HOST, "127.0.0.1:9809")
            .body(())
            .expect("request");
        // Someone else is drawing: the requests wait their turn.
        let drawing = Arc::clone(&shared.drawing)
            .acquire_owned()
            .await
            .expect("the permit");
        let mut waiting = Vec::new();
        for _ in 0..HISTORY_DRAWN + HISTORY_WAITING {
            let (req, board, shared) = (req.clone(), board.clone(), Arc::clone(&shared));
            waiting.push(tokio::spawn(async move {
                answer(&req, board, &shared, true).await.status()
            }));
        }
        while shared.asking.available_permits() > 0 {
            tokio::task::yield_now().await;
        }
        let refused = answer(&req, board.clone(), &shared, true).await;
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            refused.headers().get(header::RETRY_AFTER),
            Some(&HeaderValue::from_static("1"))
        );
        // Their clients go away: their places are given back.
        for w in &waiting {
            w.abort();
        }
        for w in waiting {
            let _ = w.await;
        }
        assert_eq!(
            shared.asking.available_permits(),
            HISTORY_DRAWN + HISTORY_WAITING
        );
        drop(drawing);
        assert_eq!(
            status(&board, "/history/000/prod/cache").await,
            StatusCode::OK
        );
    }

    /// Issue 42 item 5: the page asks for `/history/` with each part
    /// percent-encoded (`encodeURIComponent`), and the server compared the
    /// parts undecoded: a name that needs encoding got 404. Each part is
    /// decoded on its own (an encoded `/` stays inside its part).
    #[tokio::test]
    async fn history_paths_are_percent_decoded() {
        // (case, cluster's name, path, status)
        let cases: &[(&str, &str, &str, u16)] = &[
            ("plain", "cache", "/history/000/prod/cache", 200),
            ("a space", "ca che", "/history/000/prod/ca%20che", 200),
            ("UTF-8", "caché", "/history/000/prod/cach%C3%A9", 200),
            (
                "lower-case hex",
                "caché",
                "/history/000/prod/cach%c3%a9",
                200,
            ),
            ("a percent sign", "a%b", "/history/000/prod/a%25b", 200),
            ("an encoded slash", "a/b", "/history/000/prod/a%2Fb", 200),
            (
                "undecoded is another name",
                "a%b",
                "/history/000/prod/a%b",
                404,
            ),
            (
                "a truncated escape",
                "cache",
                "/history/000/prod/cache%2",
                404,
            ),
            ("not hex", "cache", "/history/000/prod/cache%zz", 404),
            ("not UTF-8", "cache", "/history/000/prod/cache%ff", 404),
            ("another cluster", "cache", "/history/000/prod/other", 404),
            ("no such context", "cache", "/history/001/prod/cache", 404),
        ];
        for (case, name, path, want) in cases {
            let board = board_with("prod", name);
            assert_eq!(status(&board, path).await.as_u16(), *want, "{case}: {path}");
        }
    }
}
