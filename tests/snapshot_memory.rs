//! A JSON snapshot is read as it streams: memory holds the objects kept
//! and the reader's buffers, not the text, whatever the values the plugin
//! does not keep hold (issue 22, item 1). This binary's allocator counts
//! the bytes live at once, in every thread; its tests take turns
//! ([`ONE_AT_A_TIME`]) so that one's peak is not another's.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, handed on as it is.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: `p` came from `alloc` above with this layout.
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MIB: usize = 1024 * 1024;

static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn ignored_json_values_are_never_in_memory() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("padded.json");
    // A List with one ValkeyCluster and 64 MiB of a key no kind has,
    // written in pieces (never whole in memory).
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
        write!(
            f,
            r#"{{"apiVersion":"v1","kind":"List","items":[{{"apiVersion":"valkey.io/v1alpha1","kind":"ValkeyCluster","metadata":{{"name":"cache","namespace":"prod"}},"spec":{{"shards":1}}}}],"x":""#
        )
        .expect("write");
        let piece = "v".repeat(MIB);
        for _ in 0..64 {
            f.write_all(piece.as_bytes()).expect("write");
        }
        writeln!(f, r#""}}"#).expect("write");
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let read = kubectl_valkey_roll::source::file::read_snapshot(&path).expect("the snapshot reads");
    let peak = PEAK.load(Ordering::Relaxed) - before;
    assert_eq!(read.snapshot.clusters.len(), 1);
    // The whole-text reader held the 64 MiB text at once.
    assert!(
        peak < 16 * MIB,
        "{} MiB live at once while reading 64 MiB of ignored JSON",
        peak / MIB
    );
}

/// The bytes allocated at the peak of `f`, above what was live before it.
fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed).saturating_sub(before))
}

/// A cluster judged among many from its own view takes what it takes
/// among few, not what the fleet would (issue 33): its view (its objects,
/// copied out of the snapshot) and its judgement, measured alike in a
/// snapshot of it alone and in one of sixty such clusters.
#[test]
fn one_cluster_among_many_is_judged_in_its_own_size() {
    use kubectl_valkey_roll::classify::classify;
    use std::time::Duration;
    let threshold = Duration::from_secs(600);
    let now = kubectl_valkey_roll::fixture::t(0);
    let key = ("prod".to_string(), "cache0".to_string());
    let wanted = std::collections::BTreeSet::from([key.clone()]);
    let judge_one = |s: &kubectl_valkey_roll::snapshot::Snapshot| {
        let mut views = s.cluster_views(&wanted);
        let view = views.remove(&key).expect("the cluster's view");
        classify(&view, now, threshold)
    };
    let alone = kubectl_valkey_roll::fixture::fleet_of("prod", 1, 30);
    let many = kubectl_valkey_roll::fixture::fleet_of("prod", 60, 30);
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (judged_alone, peak_alone) = peak_of(|| judge_one(&alone));
    let (judged_among, peak_among) = peak_of(|| judge_one(&many));
    assert_eq!(judged_among, judged_alone, "the same judgement");
    let (_, peak_whole) = peak_of(|| classify(&many, now, threshold));
    assert!(
        peak_among * 10 <= peak_alone * 13,
        "among sixty: {peak_among} bytes at the peak, alone {peak_alone}"
    );
    assert!(
        peak_among * 5 < peak_whole,
        "among sixty: {peak_among} bytes at the peak, the whole fleet judged {peak_whole}"
    );
}
