//! Pause points, so that an end-to-end test can make a conflicting write in
//! the window between two of the executor's steps deterministically.
//!
//! Only a build with the `test-hooks` cargo feature has them; in any other
//! build [`pause`] is an empty function. With the feature, the environment
//! turns one on:
//!
//! - `VALKEY_ROLL_TEST_PAUSE=after-plan|between-patches|after-patch`: which
//!   point;
//! - `VALKEY_ROLL_TEST_PAUSE_FILE=PATH`: on reaching the point the program
//!   creates `PATH.reached`, then waits (at most 60 s) until `PATH` exists.

/// The points the executor passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Point {
    /// Under the Lease, after the re-read and re-plan, before the first patch.
    AfterPlan,
    /// After the first patch of several (a takeover), before the next.
    BetweenPatches,
    /// After the patches, before the check for another holder.
    AfterPatch,
}

// The names the environment spells, read only by the hooks' build.
#[cfg(feature = "test-hooks")]
impl Point {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Point::AfterPlan => "after-plan",
            Point::BetweenPatches => "between-patches",
            Point::AfterPatch => "after-patch",
        }
    }
}

/// Waits at `point` when a test asked for it; returns at once otherwise.
#[cfg(feature = "test-hooks")]
pub(crate) async fn pause(point: Point) {
    use std::path::PathBuf;
    use std::time::{Duration, Instant};

    if std::env::var("VALKEY_ROLL_TEST_PAUSE").ok().as_deref() != Some(point.as_str()) {
        return;
    }
    let Some(file) = std::env::var_os("VALKEY_ROLL_TEST_PAUSE_FILE").map(PathBuf::from) else {
        return;
    };
    let mut reached = file.clone().into_os_string();
    reached.push(".reached");
    // A test that cannot see the marker times out on its own; nothing to
    // report from here.
    let _ = std::fs::write(&reached, point.as_str());
    let deadline = Instant::now() + Duration::from_secs(60);
    while !file.exists() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits at `point` when a test asked for it; returns at once otherwise.
#[cfg(not(feature = "test-hooks"))]
pub(crate) async fn pause(_point: Point) {}
