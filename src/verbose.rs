//! kubectl's `-v`: from level 6 each API request (verb, URL, status, time
//! taken) is a line on stderr as it happens, from level 8 its response's
//! size too, cleaned like every other output. The events come from the
//! client's request layer ([`crate::source::requests`]) through `tracing`;
//! this is the one subscriber that writes them, and only them.

use crate::source::requests::TARGET;
use std::fmt::Write as _;
use std::io::Write as _;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// kubectl's level at which each request is logged.
pub(crate) const REQUESTS: u8 = 6;
/// kubectl's level at which response sizes are logged too.
pub(crate) const SIZES: u8 = 8;

/// Writes the request events to stderr from now on, when `level` asks for
/// them. Once per process; a second call changes nothing.
pub(crate) fn install(level: u8) {
    if level >= REQUESTS {
        let _ = tracing::subscriber::set_global_default(Stderr {
            sizes: level >= SIZES,
        });
    }
}

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
        let mut f = Fields::default();
        event.record(&mut f);
        let line = match (&f.status, &f.error, f.bytes) {
            (_, _, Some(bytes)) => crate::render::clock::response_size(&f.verb, &f.url, bytes),
            (Some(status), _, None) => {
                crate::render::clock::request(&f.verb, &f.url, status, f.millis)
            }
            (None, Some(error), None) => crate::render::clock::request(
                &f.verb,
                &f.url,
                &format!("failed: {error}"),
                f.millis,
            ),
            (None, None, None) => return,
        };
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{}", crate::render::style::clean(&line));
    }

    fn enter(&self, _span: &Id) {}

    fn exit(&self, _span: &Id) {}
}

/// The fields of one request event.
#[derive(Default)]
struct Fields {
    verb: String,
    url: String,
    status: Option<String>,
    error: Option<String>,
    millis: u64,
    bytes: Option<u64>,
}

impl Visit for Fields {
    fn record_u64(&mut self, field: &Field, value: u64) {
        match field.name() {
            "millis" => self.millis = value,
            "bytes" => self.bytes = Some(value),
            _ => {}
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let mut text = String::new();
        let _ = write!(text, "{value:?}");
        match field.name() {
            "verb" => self.verb = text,
            "url" => self.url = text,
            "status" => self.status = Some(text),
            "error" => self.error = Some(text),
            _ => {}
        }
    }
}
