//! The snapshot reader on arbitrary bytes: what `-f` reads (YAML, JSON, a
//! multi-document stream, a List), through the public function `-f` uses.
//! It may refuse the input (an error naming what is wrong); it must never
//! panic, and what it accepts must classify and render without panicking.

#![no_main]

use kubectl_valkey_roll::classify::classify;
use kubectl_valkey_roll::render::json::to_json;
use kubectl_valkey_roll::render::table::{TableOptions, status_table};
use kubectl_valkey_roll::source::file::parse_snapshot;
use libfuzzer_sys::fuzz_target;
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    let Ok(snapshot) = parse_snapshot(data, "fuzz") else {
        return;
    };
    let now: jiff::Timestamp = "2026-11-29T10:16:11Z".parse().expect("a time");
    let report = classify(&snapshot, now, Duration::from_secs(600));
    let _ = to_json(&report);
    let _ = status_table(
        &report,
        TableOptions {
            wide: true,
            color: false,
        },
    );
});
