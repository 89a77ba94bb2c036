//! The snapshot reader on arbitrary bytes: what `-f` reads (YAML, JSON, a
//! multi-document stream, a List), through the public function `-f` uses.
//! It may refuse the input (an error naming what is wrong); it must never
//! panic, and what it accepts must classify and render without panicking.
//! The same bytes read from a file (the streaming reader `-f FILE` uses)
//! must give the same snapshot, or the same error word for word.

#![no_main]

use kubectl_valkey_roll::classify::classify;
use kubectl_valkey_roll::render::json::to_json;
use kubectl_valkey_roll::render::table::{TableOptions, status_table};
use kubectl_valkey_roll::source::file::{parse_snapshot, read_snapshot};
use libfuzzer_sys::fuzz_target;
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    // One file per fuzzing process, written again for each input.
    let path = std::env::temp_dir().join(format!("valkey-roll-fuzz-{}", std::process::id()));
    std::fs::write(&path, data).expect("a temporary file");
    let name = path.display().to_string();
    let whole = parse_snapshot(data, &name);
    let streamed = read_snapshot(&path).map(|read| read.snapshot);
    match (&whole, &streamed) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "the streamed reading differs"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!("one reading failed: whole {whole:?}, streamed {streamed:?}"),
    }
    let Ok(snapshot) = whole else {
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
