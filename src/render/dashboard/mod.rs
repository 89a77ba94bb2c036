//! `dashboard`: the page and what its events carry, every word of it
//! rendered here.
//!
//! The page itself (one HTML file, one script, one style sheet) is
//! compiled in ([`INDEX_HTML`], [`SCRIPT`], [`STYLE`]); it only places the
//! strings it is sent, as text (`textContent`), and says nothing of its
//! own but its fixed labels. Each cluster is sent as a [`ClusterCard`]:
//! the cluster's entry of `status -o json` (docs/plugin.md's schema) as it
//! is, beside the headline's words and each node's cells as the status
//! table says them, and each node's `explain` text.
//!
//! Every string the page places is cleaned here as the terminal's output
//! is, by the same function ([`clean`], explain's text line by line): a
//! bidi override, an escape or a bell from a cluster's names or an API's
//! message is shown by its code. The page places nothing of the status
//! entry, which is the `-o json` document as it is.

use super::explain::explain_node;
use super::fit::Screen;
use super::json::to_json_line;
use super::style::{clean, clean_lines};
use super::table::{costs, summary, verdict_tone};
use crate::error::Result;
use crate::report::{ClusterReport, NodeReport, TimelineEntry, Tone, Verdict};
use crate::snapshot::ValkeyNode;
use crate::units::{human, human_or};
use jiff::Timestamp;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::net::SocketAddr;

/// The page.
pub(crate) const INDEX_HTML: &str = include_str!("index.html");
/// Its one script: builds the page from the events, as text only.
pub(crate) const SCRIPT: &str = include_str!("dashboard.js");
/// Its one style sheet.
pub(crate) const STYLE: &str = include_str!("dashboard.css");
/// Its icon (asked for by every browser; a 404 would be a console error).
pub(crate) const ICON: &str = include_str!("favicon.svg");

/// What every answer may load and run: its own assets only, no inline
/// script or style, no frame, no form, no plugin.
pub(crate) const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// One cluster as the page shows it, rendered once per judgement.
#[derive(Debug)]
pub(crate) struct ClusterCard {
    /// `context/namespace/name`, the context by its place in the list.
    pub key: String,
    pub verdict: Verdict,
    /// How many nodes it shows, and when it was judged.
    pub nodes: usize,
    pub judged_at: Timestamp,
    /// The card as one line of JSON, without the explanations.
    pub json: String,
    /// Each node's name and what `explain NODE` says of it, both
    /// cleaned, in the report's node order.
    pub explain: Vec<(String, String)>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CardJson<'a> {
    key: &'a str,
    /// The entry of `status -o json`, as it is.
    cluster: &'a ClusterReport,
    headline: Headline,
    shards: Vec<Shard>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Headline {
    /// `namespace/name`.
    location: String,
    /// The kubeconfig context it was read through, when several are.
    context: Option<String>,
    /// The verdict as the headline says it (`JAMMED`).
    verdict: String,
    /// Said beside the verdict when some of the cluster's servers were
    /// asked and not read (`servers: 1 of 4 not read`), as the headline
    /// says it; null otherwise.
    servers: Option<String>,
    /// The verdict's tone: no success colour while servers are not read.
    tone: &'static str,
    /// The headline's first line after the verdict.
    summary: String,
    /// Its second line, part by part (who waits, progress, ...).
    parts: Vec<String>,
    /// What is under way besides: a failover, shards at risk, a scale
    /// that waits (the headline's second line starts with them).
    asides: Vec<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Shard {
    label: String,
    nodes: Vec<NodeCells>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NodeCells {
    /// The node's name, under which its explain text is sent too.
    name: String,
    state: String,
    tone: &'static str,
    /// The judged role, `?` where the judgement is unsure.
    role: String,
    ready: &'static str,
    in_flight: &'static str,
    /// `held 14m` for a holder (`held ?` when unknown), `waiting 3m` for
    /// a node that waits, else empty.
    held: String,
    /// `front` for the walk's front, else empty.
    mark: &'static str,
}

/// A node's hold time or wait, said with which it is (the table's
/// HELD/WAITING column, which a node's box has no header for).
fn held_words(n: &NodeReport) -> String {
    if n.facts.holder || n.held_for_seconds.is_some() {
        format!("held {}", human_or(n.held_for_seconds, "?"))
    } else {
        n.waiting_for_seconds
            .map_or_else(String::new, |w| format!("waiting {}", human(w)))
    }
}

/// A tone as the style sheet's class names it.
pub(crate) fn tone_class(tone: Tone) -> &'static str {
    match tone {
        Tone::Bad => "bad",
        Tone::Warn => "warn",
        Tone::Busy => "busy",
        Tone::Queue => "queue",
        Tone::Good => "good",
        Tone::Quiet => "quiet",
    }
}

/// The card of `cluster` (judged at `now`), under `key`; `objects` are
/// the ValkeyNodes as read, by namespace and name (their conditions go
/// into explain's facts), `timelines` each node's events. Explain's last
/// words (the previous container's log) are not read: the page reads
/// nothing beyond the watch.
pub(crate) fn card(
    key: String,
    cluster: &ClusterReport,
    objects: &HashMap<(&str, &str), &ValkeyNode>,
    timelines: &HashMap<String, Vec<TimelineEntry>>,
    now: Timestamp,
) -> ClusterCard {
    let mut shards: Vec<Shard> = Vec::new();
    let mut order: Vec<&NodeReport> = cluster.nodes.iter().collect();
    order.sort_by_key(|n| (n.shard.is_none(), n.shard));
    for n in order {
        let label = match n.shard {
            Some(s) => format!("shard {s}"),
            None => "no shard".to_string(),
        };
        let cells = NodeCells {
            name: clean(&n.name),
            state: n.state.to_string(),
            tone: tone_class(n.state.tone()),
            role: crate::render::words::role_cell(n),
            ready: if n.ready { "ready" } else { "not ready" },
            in_flight: if n.facts.holder { "in flight" } else { "" },
            held: held_words(n),
            mark: if cluster.front.as_deref() == Some(n.name.as_str()) {
                "front"
            } else {
                ""
            },
        };
        match shards.last_mut() {
            Some(last) if last.label == label => last.nodes.push(cells),
            _ => shards.push(Shard {
                label,
                nodes: vec![cells],
            }),
        }
    }
    let asides: Vec<String> = crate::render::words::asides(cluster)
        .iter()
        .map(|a| clean(a))
        .collect();
    let json = to_json_line(&CardJson {
        key: &key,
        cluster,
        headline: Headline {
            location: location(cluster),
            context: cluster.context.as_deref().map(clean),
            verdict: cluster.verdict.to_string().to_uppercase(),
            servers: super::notice::servers_on_verdict(cluster),
            tone: tone_class(verdict_tone(cluster)),
            summary: summary(cluster),
            // The asides lead the headline's second line; the page lists
            // them on their own.
            parts: costs(cluster).split_off(asides.len()),
            asides,
        },
        shards,
    })
    // Plain data with string keys always serializes; were it not to, the
    // card says so.
    .unwrap_or_else(|e| unwritten(&key, cluster, &e));
    let screen = Screen {
        color: false,
        width: None,
        no_headers: false,
    };
    let explain = cluster
        .nodes
        .iter()
        .map(|n| {
            let object = objects
                .get(&(cluster.namespace.as_str(), n.name.as_str()))
                .copied();
            let timeline = timelines.get(&n.name).map_or(&[][..], Vec::as_slice);
            let text = explain_node(cluster, n, object, timeline, now, screen, None);
            (clean(&n.name), clean_lines(&text))
        })
        .collect();
    ClusterCard {
        key,
        verdict: cluster.verdict,
        nodes: cluster.nodes.len(),
        judged_at: now,
        json,
        explain,
    }
}

/// A card whose JSON could not be written: its headline says why.
fn unwritten(key: &str, cluster: &ClusterReport, error: &crate::error::Error) -> String {
    serde_json::json!({
        "key": key,
        "cluster": { "context": cluster.context },
        "headline": {
            "location": location(cluster),
            "context": cluster.context.as_deref().map(clean),
            "verdict": cluster.verdict.to_string().to_uppercase(),
            "servers": super::notice::servers_on_verdict(cluster),
            "tone": tone_class(verdict_tone(cluster)),
            "summary": clean(&format!("this cluster cannot be shown: {error}")),
            "parts": [],
            "asides": [],
        },
        "shards": [],
    })
    .to_string()
}

/// `namespace/name`, cleaned.
fn location(cluster: &ClusterReport) -> String {
    clean(&format!("{}/{}", cluster.namespace, cluster.name))
}

/// One context as the page shows it: its name, how its watch is, and
/// what to say when it shows no cluster.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContextLine {
    /// The context's name, or how the current one is called.
    pub name: String,
    /// `live`, `connection lost, retrying in 4s`, or why it cannot be read.
    pub connection: String,
    /// Whether the connection line is trouble.
    pub trouble: bool,
    /// Said where no cluster is shown: none found, or not read yet.
    pub empty: Option<String>,
    /// While the connection is lost: "as of 10:16:11 (12s ago)", the time
    /// of the reading its cards show (the page dims them, says this beside
    /// each verdict and shows no success colour).
    pub as_of: Option<String>,
    /// With `--servers`: the lines about servers not read, if any.
    pub servers: Option<String>,
    /// While the connection is lost: since when (the page's header says
    /// so, [`header`]). Not sent as such.
    #[serde(skip)]
    pub stale_since: Option<Timestamp>,
}

/// The page's header, said of every context together: `live` while each
/// is, else which are stale and since when (the earliest loss, local
/// time): `stale since 10:16:11` (its only context), `1 of 3 contexts
/// stale since 10:16:11`, `all 3 contexts stale since 10:16:11`. It never
/// says `live` beside a stale context: a person reads it as the cluster's
/// word, not the page's own stream (whose loss the page says itself,
/// `reconnecting…`).
pub(crate) fn header(lines: &[ContextLine]) -> String {
    let stale: Vec<Timestamp> = lines.iter().filter_map(|l| l.stale_since).collect();
    let Some(first) = stale.iter().min() else {
        return "live".to_string();
    };
    let since = first
        .to_zoned(jiff::tz::TimeZone::system())
        .strftime("%H:%M:%S")
        .to_string();
    match (stale.len(), lines.len()) {
        (1, 1) => format!("stale since {since}"),
        (k, n) if k == n => format!("all {n} contexts stale since {since}"),
        (k, n) => format!("{k} of {n} contexts stale since {since}"),
    }
}

/// The `contexts` event's data: the page's header ([`header`]), whether
/// it is trouble (a context stale), and every context's line.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ContextsEvent<'a> {
    header: String,
    stale: bool,
    contexts: &'a [ContextLine],
}

/// The name a context goes by on the page.
pub(crate) fn context_name(given: Option<&str>) -> String {
    given.map_or_else(|| "current context".to_string(), str::to_string)
}

/// Said while a context's first reading is under way.
pub(crate) fn reading() -> String {
    "reading the cluster…".to_string()
}

/// A context that could not be read, and when it is tried again.
pub(crate) fn unreadable(error: &str, retry_secs: u64) -> String {
    format!("cannot read: {error} (retrying in {retry_secs}s)")
}

/// The `contexts` event: the page's header and every context's line,
/// each string cleaned (a context's name is the kubeconfig's, its
/// connection line may quote an API's message).
pub(crate) fn contexts_event(lines: &[ContextLine]) -> Result<String> {
    let cleaned: Vec<ContextLine> = lines
        .iter()
        .map(|l| ContextLine {
            name: clean(&l.name),
            connection: clean(&l.connection),
            trouble: l.trouble,
            empty: l.empty.as_deref().map(clean),
            as_of: l.as_of.as_deref().map(clean),
            servers: l.servers.as_deref().map(clean_lines),
            stale_since: l.stale_since,
        })
        .collect();
    let event = ContextsEvent {
        header: header(lines),
        stale: lines.iter().any(|l| l.stale_since.is_some()),
        contexts: &cleaned,
    };
    Ok(sse("contexts", &to_json_line(&event)?))
}

/// The `cluster` event: the card, with the explanations of the nodes
/// named in `explain` (those new or changed since the page last had them).
pub(crate) fn cluster_event(card: &ClusterCard, explain: &[(&str, &str)]) -> Result<String> {
    let words: serde_json::Map<String, serde_json::Value> = explain
        .iter()
        .map(|(n, t)| {
            (
                (*n).to_string(),
                serde_json::Value::String((*t).to_string()),
            )
        })
        .collect();
    let data = format!(
        "{{\"card\":{},\"explain\":{}}}",
        card.json,
        to_json_line(&words)?
    );
    Ok(sse("cluster", &data))
}

/// The `gone` event: the cluster under `key` is no longer in view.
pub(crate) fn gone_event(key: &str) -> Result<String> {
    Ok(sse("gone", &to_json_line(&key)?))
}

/// An event of the stream: its type and one line of data (JSON has no raw
/// line break). `<`, `>` and `&`, which JSON has only inside strings, are
/// sent as `\u` escapes: the same string to the page, and no markup
/// anywhere in the stream should something ever read it as HTML.
fn sse(event: &str, data: &str) -> String {
    let mut out = String::with_capacity(data.len() + 32);
    let _ = write!(out, "event: {event}\ndata: ");
    for c in data.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            c => out.push(c),
        }
    }
    out.push_str("\n\n");
    out
}

/// The first lines of the stream: how long the page waits before it
/// connects again, and that the whole view follows.
pub(crate) const STREAM_START: &str = "retry: 1000\n\nevent: reset\ndata: null\n\n";

/// The answer to a history picture asked for while others are drawn and
/// more wait (503, with `Retry-After: 1`).
pub(crate) const HISTORY_BUSY: &str =
    "busy drawing other history pictures: try again in a second\n";

/// A comment line that keeps an idle stream open.
pub(crate) const KEEP_ALIVE: &str = ": live\n\n";

/// Said on stderr once the page is served.
pub(crate) fn serving(address: SocketAddr) -> String {
    let mut out = format!("dashboard at http://{address}/ (Ctrl-C to stop)\n");
    if !address.ip().is_loopback() {
        let _ = writeln!(
            out,
            "warning: the page has no login: anyone who can reach {address} sees every roll \
             in view (read-only; nothing can be steered from it)"
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;

    fn jammed_card() -> ClusterCard {
        let report = sample::jammed();
        card(
            "000/prod/cache".into(),
            &report.clusters[0],
            &HashMap::new(),
            &HashMap::new(),
            crate::fixture::t(0),
        )
    }

    #[test]
    fn a_card_carries_the_status_entry_the_headline_and_explain() {
        let card = jammed_card();
        let doc: serde_json::Value = serde_json::from_str(&card.json).expect("json");
        let want = serde_json::to_value(&sample::jammed().clusters[0]).expect("entry");
        assert_eq!(doc["cluster"], want);
        assert_eq!(doc["headline"]["verdict"], "JAMMED");
        assert_eq!(doc["headline"]["tone"], "bad");
        let summary = doc["headline"]["summary"].as_str().unwrap_or_default();
        assert!(summary.contains("cache-1-1 holds the permit"), "{summary}");
        let holder = &card
            .explain
            .iter()
            .find(|(n, _)| n == "cache-1-1")
            .expect("holder")
            .1;
        assert!(
            holder.starts_with("ValkeyNode prod/cache-1-1  STUCK"),
            "{holder}"
        );
        let shards: Vec<&str> = doc["shards"]
            .as_array()
            .expect("shards")
            .iter()
            .filter_map(|s| s["label"].as_str())
            .collect();
        assert_eq!(shards, ["shard 0", "shard 1", "shard 2"]);
    }

    /// Issue 43 item 3: a card whose cluster's servers were not all read
    /// says so beside its verdict, in the headline's words, and shows no
    /// success colour; all read, it says nothing new.
    #[test]
    fn a_card_says_servers_not_read_on_its_verdict() {
        // (servers read and not, the words beside the verdict, the tone)
        type Case = (Option<(usize, usize)>, Option<&'static str>, &'static str);
        let cases: &[Case] = &[
            (None, None, "good"),
            (Some((2, 0)), None, "good"),
            (Some((1, 1)), Some("servers: 1 of 2 not read"), "quiet"),
            (Some((0, 2)), Some("servers: none of 2 read"), "quiet"),
        ];
        for (servers, words, tone) in cases {
            let mut report = sample::converged();
            report.clusters[0].servers = servers.map(|(read, unread)| crate::report::ServersRead {
                read,
                unread,
                observed_at: None,
            });
            let card = card(
                "000/prod/sessions".into(),
                &report.clusters[0],
                &HashMap::new(),
                &HashMap::new(),
                crate::fixture::t(0),
            );
            let doc: serde_json::Value = serde_json::from_str(&card.json).expect("json");
            assert_eq!(doc["headline"]["verdict"], "CONVERGED", "{servers:?}");
            assert_eq!(doc["headline"]["servers"].as_str(), *words, "{servers:?}");
            assert_eq!(doc["headline"]["tone"], *tone, "{servers:?}");
        }
    }

    #[test]
    fn asides_are_listed_once_and_times_say_what_they_are() {
        let mut report = sample::jammed();
        report.clusters[0].risks = vec![crate::report::Risk {
            kind: crate::report::RiskKind::NoReadyReplica,
            shard: 1,
            primary: Some("cache-1-0".into()),
            since: None,
            for_seconds: Some(60),
            replicas: None,
        }];
        let card = card(
            "000/prod/cache".into(),
            &report.clusters[0],
            &HashMap::new(),
            &HashMap::new(),
            crate::fixture::t(0),
        );
        let doc: serde_json::Value = serde_json::from_str(&card.json).expect("json");
        let parts: Vec<&str> = doc["headline"]["parts"]
            .as_array()
            .expect("parts")
            .iter()
            .filter_map(|p| p.as_str())
            .collect();
        let asides: Vec<&str> = doc["headline"]["asides"]
            .as_array()
            .expect("asides")
            .iter()
            .filter_map(|p| p.as_str())
            .collect();
        assert_eq!(asides.len(), 1, "{doc}");
        assert!(
            asides[0].starts_with("shard 1 has no Ready replica"),
            "{asides:?}"
        );
        assert!(
            parts.iter().all(|p| !asides.contains(p)),
            "{parts:?} {asides:?}"
        );
        assert!(parts.contains(&"4 nodes wait behind it"), "{parts:?}");
        let held: Vec<&str> = doc["shards"]
            .as_array()
            .expect("shards")
            .iter()
            .flat_map(|s| s["nodes"].as_array().into_iter().flatten())
            .filter_map(|n| n["held"].as_str())
            .collect();
        assert!(held.contains(&"held 14m"), "{held:?}");
        assert!(held.iter().any(|h| h.starts_with("waiting ")), "{held:?}");
    }

    /// Every string of `value` (keys too), with where it is.
    fn strings(value: &serde_json::Value, at: &str, out: &mut Vec<(String, String)>) {
        match value {
            serde_json::Value::String(s) => out.push((at.to_string(), s.clone())),
            serde_json::Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    strings(v, &format!("{at}[{i}]"), out);
                }
            }
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    out.push((format!("{at} key"), k.clone()));
                    strings(v, &format!("{at}.{k}"), out);
                }
            }
            _ => {}
        }
    }

    /// Issue 42 item 5: names and messages from a hostile API (a bidi
    /// override, ESC, BEL) reached the page as they were in the card's
    /// location, its node names and context, and in a context's line,
    /// where every terminal output shows them by their code. Every string
    /// the page places is now cleaned as the terminal cleans it
    /// (`style::clean`; explain's text line by line); the status entry
    /// (`cluster`) is the `-o json` document as it is, which the page does
    /// not place.
    /// A bidi override, ESC and BEL after `s`.
    fn hostile(s: &str) -> String {
        format!("{s}\u{202e}\u{1b}[31m\u{7}")
    }

    /// The strings of `value` that are not as `clean` leaves them.
    fn unclean(value: &serde_json::Value, at: &str) -> Vec<(String, String)> {
        let mut all = Vec::new();
        strings(value, at, &mut all);
        all.retain(|(_, s)| s.chars().any(crate::render::style::needs_cleaning));
        all
    }

    /// Issue 42 item 5: names and messages from a hostile API (a bidi
    /// override, ESC, BEL) reached the page as they were, in a card's
    /// location, node names and context and in a context's line, where
    /// every terminal output shows them by their code. Every string the
    /// page places is now `style::clean`ed (explain's text line by line);
    /// the status entry (`cluster`) is the `-o json` document as it is, and
    /// the page places none of it.
    #[test]
    fn every_string_the_page_places_is_cleaned() {
        let mut report = sample::jammed();
        let c = &mut report.clusters[0];
        c.namespace = hostile("prod");
        c.name = hostile("cache");
        c.context = Some(hostile("ctx"));
        for n in &mut c.nodes {
            n.name = hostile(&n.name);
        }
        c.holders = c.holders.iter().map(|h| hostile(h)).collect();
        c.front = c.front.as_deref().map(hostile);
        let card = card(
            "000/prod/cache".into(),
            c,
            &HashMap::new(),
            &HashMap::new(),
            crate::fixture::t(0),
        );
        let doc: serde_json::Value = serde_json::from_str(&card.json).expect("json");
        let mut bad = unclean(&doc["headline"], "headline");
        bad.extend(unclean(&doc["shards"], "shards"));
        for (node, text) in &card.explain {
            if node
                .chars()
                .chain(text.chars())
                .any(|ch| crate::render::style::needs_cleaning(ch) && ch != '\n')
            {
                bad.push((format!("explain of {node:?}"), text.clone()));
            }
        }
        assert!(bad.is_empty(), "{bad:#?}");
        assert_eq!(
            doc["headline"]["location"],
            "prod\\u{202e}\\u{1b}[31m\\u{7}/cache\\u{202e}\\u{1b}[31m\\u{7}"
        );
        assert_eq!(doc["headline"]["context"], "ctx\\u{202e}\\u{1b}[31m\\u{7}");
        // A node's explain is found under the name its box shows.
        let shown: Vec<&str> = doc["shards"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|s| s["nodes"].as_array().into_iter().flatten())
            .filter_map(|n| n["name"].as_str())
            .collect();
        for name in &shown {
            assert!(
                card.explain.iter().any(|(n, _)| n == name),
                "no explain under {name:?}"
            );
        }
        assert_eq!(shown.len(), card.explain.len());

        let lines = [ContextLine {
            name: context_name(Some(&hostile("ctx"))),
            connection: unreadable(&hostile("forbidden: User \"x\""), 4),
            trouble: true,
            empty: Some(hostile("no ValkeyCluster in")),
            as_of: Some(hostile("as of")),
            servers: Some(hostile("warning: the servers of cluster")),
            stale_since: None,
        }];
        let event = contexts_event(&lines).expect("event");
        let data = event
            .strip_prefix("event: contexts\ndata: ")
            .and_then(|d| d.strip_suffix("\n\n"))
            .expect("one data line");
        let doc: serde_json::Value = serde_json::from_str(data).expect("JSON");
        let bad = unclean(&doc, "contexts");
        assert!(bad.is_empty(), "{bad:#?}");
        assert_eq!(
            doc["contexts"][0]["connection"],
            "cannot read: forbidden: User \"x\"\\u{202e}\\u{1b}[31m\\u{7} (retrying in 4s)"
        );
    }

    /// Issue 43 item 3: the header said "live" while a context's cards
    /// were stale. It says which contexts are stale and since when (the
    /// earliest), and no "live" beside them; all live again, "live".
    #[test]
    fn the_header_says_which_contexts_are_stale() {
        let t = |s: i64| Timestamp::from_second(s).expect("a time");
        let line = |stale: Option<i64>| ContextLine {
            name: "ctx".into(),
            connection: "live".into(),
            trouble: stale.is_some(),
            empty: None,
            as_of: None,
            servers: None,
            stale_since: stale.map(t),
        };
        let hms = |s: i64| {
            t(s).to_zoned(jiff::tz::TimeZone::system())
                .strftime("%H:%M:%S")
                .to_string()
        };
        // (each context stale since, the header)
        let cases: Vec<(Vec<Option<i64>>, String)> = vec![
            (vec![], "live".into()),
            (vec![None], "live".into()),
            (vec![None, None], "live".into()),
            (vec![Some(1_000)], format!("stale since {}", hms(1_000))),
            (
                vec![None, Some(1_000)],
                format!("1 of 2 contexts stale since {}", hms(1_000)),
            ),
            (
                vec![None, Some(2_000), Some(1_500)],
                format!("2 of 3 contexts stale since {}", hms(1_500)),
            ),
            (
                vec![Some(2_000), Some(1_500)],
                format!("all 2 contexts stale since {}", hms(1_500)),
            ),
        ];
        for (stale, want) in cases {
            let lines: Vec<ContextLine> = stale.iter().map(|s| line(*s)).collect();
            assert_eq!(header(&lines), want, "{stale:?}");
            let event = contexts_event(&lines).expect("event");
            let data = event
                .strip_prefix("event: contexts\ndata: ")
                .and_then(|d| d.strip_suffix("\n\n"))
                .expect("one data line");
            let doc: serde_json::Value = serde_json::from_str(data).expect("JSON");
            assert_eq!(doc["header"], want.as_str(), "{stale:?}");
            assert_eq!(doc["stale"], stale.iter().any(Option::is_some), "{stale:?}");
            assert_eq!(doc["contexts"].as_array().map(Vec::len), Some(lines.len()));
        }
    }

    #[test]
    fn events_are_one_data_line_each() {
        let card = jammed_card();
        let hostile = "x\ny\u{202e}<script>\"'&";
        let event = cluster_event(&card, &[("a\nb", hostile)]).expect("event");
        assert!(event.starts_with("event: cluster\ndata: {"), "{event}");
        assert_eq!(event.matches('\n').count(), 3, "{event}");
        assert!(event.contains("\\u202e"), "{event}");
        assert!(!event.contains(['<', '>', '&']), "{event}");
        let data = event
            .strip_prefix("event: cluster\ndata: ")
            .and_then(|d| d.strip_suffix("\n\n"))
            .expect("one data line");
        let doc: serde_json::Value = serde_json::from_str(data).expect("JSON");
        assert_eq!(doc["explain"]["a\nb"], hostile);
    }

    #[test]
    fn only_loopback_goes_without_a_warning() {
        let local = serving("127.0.0.1:9809".parse().expect("addr"));
        assert!(!local.contains("no login"), "{local}");
        let open = serving("0.0.0.0:9809".parse().expect("addr"));
        assert!(open.contains("the page has no login"), "{open}");
    }
}
