//! The dashboard in a real browser: Debian's chromium, headless, driven
//! through chromedriver (started here on 127.0.0.1) with fantoccini, on a
//! jammed roll in the real API server. The page shows the verdict and the
//! node states and a failover under way, changes within 2 s when the
//! simulated operator moves the roll, shows explain's words for a node chosen by click or by keyboard,
//! shows hostile words as text; the browser logs no error and the page
//! asks nothing beyond loopback. Screenshots at 1280x800 and 390x844 go to
//! target/screenshots/ (test artifacts, for a person to look at).
//!
//! Without chromium and chromedriver (`bash testbin/build.sh chromium`
//! installs them) the binary says so and ends, as the other end-to-end
//! tests do without their servers; under CI it fails.

mod harness;
#[path = "dashboard/page.rs"]
mod page;
#[path = "dashboard/roll.rs"]
mod roll;

use fantoccini::key::Key;
use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder, Locator};
use page::Dashboard;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Generous bound for anything that should happen "soon".
const BOUND: Duration = Duration::from_secs(120);

/// How soon the page must show a change of the roll.
const LIVE: Duration = Duration::from_secs(2);

/// How soon after the API server goes away every card must say as of
/// when it is (docs/usage.md, "When the connection is lost": a view is
/// stale from the watch's first failed request; this allows for that
/// request, the second the page is judged at, and the event's way).
const STALE_WITHIN: Duration = Duration::from_secs(10);

/// One test at a time: one stops the API server of this binary.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// chromium and chromedriver: `CHROMIUM`/`CHROMEDRIVER`, else Debian's.
fn browser() -> Result<(PathBuf, PathBuf), String> {
    let find = |var: &str, default: &str| {
        let path = std::env::var_os(var).map_or_else(|| PathBuf::from(default), PathBuf::from);
        if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "{} not found (install it: bash testbin/build.sh chromium)",
                path.display()
            ))
        }
    };
    Ok((
        find("CHROMIUM", "/usr/bin/chromium")?,
        find("CHROMEDRIVER", "/usr/bin/chromedriver")?,
    ))
}

/// chromedriver on a free loopback port; killed when dropped.
struct Driver {
    child: Child,
    port: u16,
    _profile: tempfile::TempDir,
    log: PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    async fn start(chromedriver: &Path) -> Driver {
        let profile = tempfile::tempdir().expect("a profile directory");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let log = profile.path().join("chromedriver.log");
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .arg(format!("--log-path={}", log.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let driver = Driver {
            child,
            port,
            _profile: profile,
            log,
        };
        let deadline = Instant::now() + BOUND;
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(Instant::now() < deadline, "chromedriver did not listen");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        driver
    }

    /// A headless chromium session with a fresh profile, logging the
    /// console and the network.
    async fn session(&self, chromium: &Path) -> Client {
        let data = self._profile.path().join("chromium");
        let caps = json!({
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    format!("--user-data-dir={}", data.display()),
                    "--window-size=1280,800",
                ],
            },
            "goog:loggingPrefs": { "browser": "ALL", "performance": "ALL" },
        });
        let Value::Object(caps) = caps else {
            unreachable!("an object")
        };
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{}", self.port))
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "a chromium session: {e}\n{}",
                    std::fs::read_to_string(&self.log).unwrap_or_default()
                )
            })
    }
}

/// chromedriver's log of a kind (`browser`: the console; `performance`:
/// DevTools events, the network's among them), taken since the last ask.
#[derive(Debug)]
struct GetLog(&'static str);

impl WebDriverCompatibleCommand for GetLog {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/se/log",
            session_id.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({ "type": self.0 }).to_string()),
        )
    }
}

async fn log(client: &Client, kind: &'static str) -> Vec<Value> {
    match client.issue_cmd(GetLog(kind)).await {
        Ok(Value::Array(entries)) => entries,
        other => panic!("the {kind} log: {other:?}"),
    }
}

/// The text of the first element `css` finds, if any.
async fn text(client: &Client, css: &str) -> Option<String> {
    let found = client.find(Locator::Css(css)).await.ok()?;
    found.text().await.ok()
}

/// Waits (at most `bound`) until the element `css` finds has text that
/// `pred` likes; returns it.
async fn until_text(
    client: &Client,
    css: &str,
    bound: Duration,
    pred: impl Fn(&str) -> bool,
) -> String {
    let deadline = Instant::now() + bound;
    loop {
        if let Some(t) = text(client, css).await
            && pred(&t)
        {
            return t;
        }
        assert!(
            Instant::now() < deadline,
            "{css}: not as wanted within {bound:?} (now {:?})",
            text(client, css).await
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn node_state(node: &str) -> String {
    format!("button.node[data-node=\"{node}\"] .state")
}

/// Where screenshots go: target/screenshots/ of the checkout.
fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).expect("target/screenshots");
    dir
}

async fn screenshot(client: &Client, name: &str) -> PathBuf {
    let png = client.screenshot().await.expect("a screenshot");
    let path = screenshots().join(name);
    std::fs::write(&path, png).expect("write the screenshot");
    eprintln!("screenshot: {}", path.display());
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jammed_roll_in_a_real_browser() {
    harness::skip_without(browser());
    let _one = ONE_AT_A_TIME.lock().await;
    let (chromium, chromedriver) = browser().expect("chromium and chromedriver");
    let s = harness::server();
    let (sim, h) = roll::jammed("dash-browser").await;
    let ns = sim.ns.clone();
    let dash = Dashboard::start(&s.kubeconfig_in(&ns), &ns, &[], BOUND).await;
    let driver = Driver::start(&chromedriver).await;
    let client = driver.session(&chromium).await;
    client.set_window_size(1280, 800).await.expect("1280x800");
    client.goto(&dash.url()).await.expect("open the page");

    // The verdict and each node's state, as the headline and table say them.
    until_text(&client, "section.cluster .verdict", BOUND, |t| {
        t == "JAMMED"
    })
    .await;
    until_text(&client, &node_state("cache-0-1"), BOUND, |t| t == "Stuck").await;
    until_text(&client, &node_state("cache-0-0"), BOUND, |t| t == "Waiting").await;
    let summary = text(&client, "section.cluster .summary")
        .await
        .unwrap_or_default();
    assert!(summary.contains("cache-0-1 holds the permit"), "{summary}");
    // A shard at risk, said on its own (the page fills its parts as the
    // events arrive: wait for it, as for the states above).
    let asides = until_text(&client, "section.cluster .asides", BOUND, |t| {
        t.contains("has no Ready replica")
    })
    .await;
    assert!(asides.contains("has no Ready replica"), "{asides}");
    let link = until_text(&client, "#link", BOUND, |t| t == "live").await;
    assert_eq!(link, "live");

    // A failover under way is said on its own, as soon as it starts.
    roll::failover(&sim).await;
    let asides = until_text(&client, "section.cluster .asides", BOUND, |t| {
        t.contains("failing over shard 0")
    })
    .await;
    assert!(asides.contains("has no Ready replica"), "{asides}");

    // Hostile words are text: no element came of them, and no script ran.
    let dom = client
        .execute(
            "return [document.scripts.length, document.images.length, \
             document.querySelector('section.cluster .parts').textContent];",
            vec![],
        )
        .await
        .expect("read the page");
    assert_eq!(dom[0], 1, "one script, the page's own: {dom}");
    assert_eq!(dom[1], 0, "no image: {dom}");
    let parts = dom[2].as_str().unwrap_or_default();
    assert!(parts.contains("<script>alert(1)</script>"), "{parts}");
    assert!(parts.contains("<img src=x onerror=alert(2)>"), "{parts}");

    screenshot(&client, "dashboard-1280x800.png").await;
    // The roll's picture, opened from the keyboard.
    client
        .execute(
            "document.querySelector('section.cluster details.history summary').focus();",
            vec![],
        )
        .await
        .expect("focus history");
    client
        .active_element()
        .await
        .expect("focus")
        .send_keys(&Key::Enter.to_string())
        .await
        .expect("Enter");
    let drawn = client
        .wait()
        .at_most(BOUND)
        .for_element(Locator::Css("section.cluster details.history img"))
        .await
        .expect("the history picture");
    let deadline = Instant::now() + BOUND;
    loop {
        let loaded = client
            .execute(
                "return arguments[0].complete && arguments[0].naturalWidth > 0;",
                vec![serde_json::to_value(&drawn).expect("element")],
            )
            .await
            .expect("read");
        if loaded == true {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the history picture did not load"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    screenshot(&client, "dashboard-1280x800-history.png").await;

    // A click on a node shows what explain says of it.
    client
        .find(Locator::Css("button.node[data-node=\"cache-0-0\"]"))
        .await
        .expect("cache-0-0")
        .click()
        .await
        .expect("click cache-0-0");
    let words = until_text(&client, "#explain-text", BOUND, |t| !t.is_empty()).await;
    assert!(
        words.starts_with(&format!("ValkeyNode {ns}/cache-0-0  WAITING")),
        "{words}"
    );
    assert!(words.contains("queue 1, behind cache-0-1"), "{words}");

    // The keyboard: Escape closes it; Enter on a focused node opens it.
    client
        .active_element()
        .await
        .expect("focus")
        .send_keys(&Key::Escape.to_string())
        .await
        .expect("Escape");
    let hidden = client
        .execute("return document.getElementById('explain').hidden;", vec![])
        .await
        .expect("read");
    assert_eq!(hidden, true, "Escape closes the explanation");
    let focused = client
        .execute("return document.activeElement.dataset.node;", vec![])
        .await
        .expect("read");
    assert_eq!(focused, "cache-0-0", "focus goes back to the node");
    client
        .execute(
            "document.querySelector('button.node[data-node=\"cache-0-1\"]').focus();",
            vec![],
        )
        .await
        .expect("focus cache-0-1");
    client
        .active_element()
        .await
        .expect("focus")
        .send_keys(&Key::Enter.to_string())
        .await
        .expect("Enter");
    let words = until_text(&client, "#explain-text", BOUND, |t| t.contains("cache-0-1")).await;
    assert!(
        words.starts_with(&format!("ValkeyNode {ns}/cache-0-1  STUCK")),
        "{words}"
    );
    assert!(words.contains("What you could do next"), "{words}");
    screenshot(&client, "dashboard-1280x800-explain.png").await;

    // The phone: nothing wider than the screen.
    client.set_window_size(390, 844).await.expect("390x844");
    let wide = client
        .execute(
            "return [document.documentElement.scrollWidth, window.innerWidth];",
            vec![],
        )
        .await
        .expect("read");
    assert!(
        wide[0].as_u64() <= wide[1].as_u64(),
        "wider than the window: {wide}"
    );
    screenshot(&client, "dashboard-390x844-explain.png").await;
    client
        .find(Locator::Css("#explain-close"))
        .await
        .expect("close")
        .click()
        .await
        .expect("close the explanation");
    screenshot(&client, "dashboard-390x844.png").await;

    // The simulated operator moves the roll: the page follows within 2 s.
    roll::recover(&sim, &h).await;
    let moved = Instant::now();
    until_text(&client, &node_state("cache-0-1"), BOUND, |t| t != "Stuck").await;
    let took = moved.elapsed();
    eprintln!("the page changed {took:?} after the write");
    assert!(took < LIVE, "the page changed {took:?} after the write");

    // The console: no error. The network: loopback only.
    let console = log(&client, "browser").await;
    let errors: Vec<&Value> = console.iter().filter(|e| e["level"] == "SEVERE").collect();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    let network = log(&client, "performance").await;
    // (document, url) of every request the browser sent.
    let mut asked: Vec<(String, String)> = Vec::new();
    for entry in &network {
        let Some(message) = entry["message"].as_str() else {
            continue;
        };
        let Ok(event) = serde_json::from_str::<Value>(message) else {
            continue;
        };
        if event["message"]["method"] == "Network.requestWillBeSent" {
            let params = &event["message"]["params"];
            let field = |v: &Value| v.as_str().unwrap_or_default().to_string();
            asked.push((
                field(&params["documentURL"]),
                field(&params["request"]["url"]),
            ));
        }
    }
    let home = dash.url();
    assert!(
        asked.iter().any(|(_, u)| u == &format!("{home}events")),
        "{asked:#?}"
    );
    for (document, url) in &asked {
        // Whatever the document: nothing on the network but the page.
        let network = ["http:", "https:", "ws:", "wss:", "ftp:"]
            .iter()
            .any(|s| url.starts_with(s));
        assert!(
            !network || url.starts_with(&home),
            "a request beyond the page: {url} (from {document})"
        );
        // The page itself asks only for its own.
        if document.starts_with(&home) {
            assert!(url.starts_with(&home), "the page asked for {url}");
        }
    }

    client.close().await.expect("close the session");
    drop(driver);
    let mut dash = dash;
    dash.plugin.interrupt();
    let status = dash.plugin.exit(BOUND).await;
    assert_eq!(status.code(), Some(0), "{}", dash.plugin.transcript());
}

/// The verdict's colour, its section's classes and its as-of words, and
/// the page's header, as the browser has them.
async fn verdict_look(client: &Client) -> Value {
    client
        .execute(
            "const s = document.querySelector('section.cluster'); \
             if (!s) return null; \
             const v = s.querySelector('h2 .verdict'); \
             const a = s.querySelector('h2 .as-of'); \
             return { classes: s.className, verdict: v.textContent, \
                      color: getComputedStyle(v).color, \
                      border: getComputedStyle(s).borderLeftColor, \
                      asOf: a ? a.textContent : null, \
                      header: document.querySelector('#link').textContent, \
                      headerClass: document.querySelector('#link').className, \
                      line: document.querySelector('#contexts li').textContent };",
            vec![],
        )
        .await
        .expect("read the page")
}

/// Waits (at most `bound`) until the page's look pleases `pred`.
async fn until_look(client: &Client, bound: Duration, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + bound;
    loop {
        let look = verdict_look(client).await;
        if pred(&look) {
            return look;
        }
        assert!(
            Instant::now() < deadline,
            "not as wanted within {bound:?}: {look:#}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The success colour of the style sheet (`--good`, #5fd38d).
const GOOD: &str = "rgb(95, 211, 141)";

/// Issue 43 item 3: with the API server gone the context's line said
/// "connection lost, retrying in 41s" while the card below still said
/// CONVERGED in green, with no time of the reading. Now, within
/// [`STALE_WITHIN`] of the loss, the card is dimmed, its verdict is kept
/// only "as of HH:MM:SS (Ns ago)", in no success colour; when the server
/// is back the same page (the same dashboard process) is live again and
/// shows a roll begun after the restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_connection_dims_every_card_and_says_as_of_when() {
    harness::skip_without(browser());
    let (chromium, chromedriver) = browser().expect("chromium and chromedriver");
    let _one = ONE_AT_A_TIME.lock().await;
    let s = harness::server();
    let sim = harness::sim::Sim::fresh("dash-stale", &harness::sim::Layout::default()).await;
    let ns = sim.ns.clone();
    let dash = Dashboard::start(&s.kubeconfig_in(&ns), &ns, &[], BOUND).await;
    let driver = Driver::start(&chromedriver).await;
    let client = driver.session(&chromium).await;
    client.set_window_size(1280, 800).await.expect("1280x800");
    client.goto(&dash.url()).await.expect("open the page");

    let live = until_look(&client, BOUND, |l| {
        l["verdict"] == "CONVERGED" && l["color"] == GOOD
    })
    .await;
    assert_eq!(live["asOf"], Value::Null, "{live:#}");
    assert!(
        !live["classes"]
            .as_str()
            .unwrap_or_default()
            .contains("stale")
    );
    assert_eq!(live["header"], "live", "{live:#}");
    screenshot(&client, "dashboard-live-1280x800.png").await;
    client.set_window_size(390, 844).await.expect("390x844");
    screenshot(&client, "dashboard-live-390x844.png").await;
    client.set_window_size(1280, 800).await.expect("1280x800");

    s.stop();
    let lost = Instant::now();
    let stale = until_look(&client, STALE_WITHIN, |l| {
        l["asOf"].as_str().is_some_and(|a| a.starts_with("as of "))
    })
    .await;
    let took = lost.elapsed();
    eprintln!("the page said as of {took:?} after the API server stopped: {stale:#}");
    assert!(
        stale["classes"]
            .as_str()
            .unwrap_or_default()
            .contains("stale"),
        "{stale:#}"
    );
    assert_eq!(stale["verdict"], "CONVERGED", "the last verdict is kept");
    assert_ne!(stale["color"], GOOD, "no success colour: {stale:#}");
    assert_ne!(stale["border"], GOOD, "no success colour: {stale:#}");
    let line = stale["line"].as_str().unwrap_or_default();
    assert!(line.contains("connection lost"), "{line}");
    // The header said "live" while the cards were stale: it says which
    // context is stale and since when (the same event as the cards' as-of).
    let header = stale["header"].as_str().unwrap_or_default();
    assert!(header.starts_with("stale since "), "{stale:#}");
    assert_eq!(stale["headerClass"], "link stale", "{stale:#}");
    // Its age goes on: HH:MM:SS (Ns ago), said again as it grows.
    let first = stale["asOf"].as_str().unwrap_or_default().to_string();
    let older = until_look(&client, STALE_WITHIN, |l| {
        l["asOf"]
            .as_str()
            .is_some_and(|a| a != first && a.starts_with("as of "))
    })
    .await;
    assert!(
        older["asOf"]
            .as_str()
            .unwrap_or_default()
            .ends_with(" ago)"),
        "{older:#}"
    );
    screenshot(&client, "dashboard-stale-1280x800.png").await;
    client.set_window_size(390, 844).await.expect("390x844");
    let wide = client
        .execute(
            "return [document.documentElement.scrollWidth, window.innerWidth];",
            vec![],
        )
        .await
        .expect("read");
    assert!(
        wide[0].as_u64() <= wide[1].as_u64(),
        "wider than the window: {wide}"
    );
    screenshot(&client, "dashboard-stale-390x844.png").await;

    // Back: the same page is live again, in colour, and follows a roll
    // begun after the restart.
    s.start();
    let back = until_look(&client, BOUND, |l| {
        l["asOf"].is_null() && l["color"] == GOOD
    })
    .await;
    assert_eq!(back["header"], "live", "{back:#}");
    assert_eq!(back["headerClass"], "link", "{back:#}");
    assert!(
        !back["classes"]
            .as_str()
            .unwrap_or_default()
            .contains("stale"),
        "{back:#}"
    );
    let h = harness::sim::hash("dash-stale");
    sim.ask(&["cache-0-1", "cache-0-0"], &h).await;
    until_look(&client, BOUND, |l| {
        l["verdict"] != "CONVERGED" && l["asOf"].is_null()
    })
    .await;
    client.set_window_size(1280, 800).await.expect("1280x800");
    screenshot(&client, "dashboard-back-1280x800.png").await;

    client.close().await.expect("close the session");
    drop(driver);
    let mut dash = dash;
    dash.plugin.interrupt();
    let status = dash.plugin.exit(BOUND).await;
    assert_eq!(status.code(), Some(0), "{}", dash.plugin.transcript());
}
