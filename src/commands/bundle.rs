//! `bundle [CLUSTER]`: the objects `status` reads, as one kubectl `v1`
//! List, for a hand-over or a support case.
//!
//! The same six LISTs as every read ([`crate::source::live::read_raw`]),
//! kept as the API server answered them (managedFields included, so every
//! grant-time source survives), so `status -f`, `explain -f` and `history
//! -f` on the bundle say what they said live at that moment. Items are
//! sorted (kind in the order `status` reads them, then namespace and name)
//! and every object's keys are sorted, so two bundles of the same objects
//! are byte for byte the same.

use crate::cli::{BundleArgs, BundleFormat, OutputFormat};
use crate::commands::Ctx;
use crate::commands::version::VersionInfo;
use crate::error::{Error, Outcome, Result};
use crate::render::json::{to_json, to_yaml};
use crate::render::style::clean;
use crate::snapshot::{
    NOT_READ_KIND, READING_API_VERSION, READING_KIND, ServerReading, ServersNotRead, Snapshot,
};
use crate::source::live::{self, RawRead};
use crate::source::select::Kind;
use crate::source::servers;
use jiff::Timestamp;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::path::Path;

/// The List's annotations (JSON has no comments, so the header's facts are
/// here too, in both formats).
pub(crate) const TAKEN_AT: &str = "valkey-roll.io/bundle-taken-at";
pub(crate) const CONTEXT: &str = "valkey-roll.io/bundle-context";
pub(crate) const SERVER: &str = "valkey-roll.io/bundle-server";
pub(crate) const NAMESPACE: &str = "valkey-roll.io/bundle-namespace";
pub(crate) const CLUSTER: &str = "valkey-roll.io/bundle-cluster";
pub(crate) const PLUGIN_VERSION: &str = "valkey-roll.io/bundle-plugin-version";

/// Where and when a bundle was taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Provenance {
    pub taken_at: Timestamp,
    pub context: Option<String>,
    pub server: String,
    /// `None`: every namespace.
    pub namespace: Option<String>,
    /// `None`: every cluster in view.
    pub cluster: Option<String>,
    /// `kubectl-valkey-roll <version> (<commit>)`.
    pub plugin: String,
}

impl Provenance {
    fn annotations(&self) -> Map<String, Value> {
        let mut map = Map::new();
        let mut put = |k: &str, v: &str| {
            map.insert(k.to_string(), Value::String(v.to_string()));
        };
        put(TAKEN_AT, &self.taken_at.to_string());
        put(CONTEXT, self.context.as_deref().unwrap_or(""));
        put(SERVER, &self.server);
        put(NAMESPACE, self.namespace.as_deref().unwrap_or("*"));
        put(CLUSTER, self.cluster.as_deref().unwrap_or("*"));
        put(PLUGIN_VERSION, &self.plugin);
        map
    }

    /// The YAML header: comments, each fact on one line.
    fn header(&self) -> String {
        let context = self
            .context
            .as_deref()
            .map_or_else(|| "(none: in-cluster)".to_string(), clean);
        format!(
            "# kubectl-valkey-roll bundle: the objects `status` reads, as the API server answered them.\n\
             # taken at:  {}\n\
             # context:   {} (server {})\n\
             # namespace: {}, cluster: {}\n\
             # plugin:    {}\n\
             # read it with: kubectl valkey-roll status -f FILE (or explain -f, history -f)\n",
            self.taken_at,
            context,
            clean(&self.server),
            clean(self.namespace.as_deref().unwrap_or("every namespace")),
            clean(self.cluster.as_deref().unwrap_or("every cluster in view")),
            clean(&self.plugin),
        )
    }
}

/// The sort key of an item inside its kind.
fn namespaced_name(v: &Value) -> (String, String) {
    let s = |ptr: &str| {
        v.pointer(ptr)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    (s("/metadata/namespace"), s("/metadata/name"))
}

/// The List: items of each kind in [`Kind::ALL`]'s order, then by
/// namespace and name; then the servers' readings (docs/servers.md), by
/// namespace and pod. Pure.
pub(crate) fn document(
    objects: &[(Kind, Vec<Value>)],
    readings: &[ServerReading],
    not_read: &[ServersNotRead],
    provenance: &Provenance,
) -> Result<Value> {
    let mut items = Vec::new();
    for kind in Kind::ALL {
        let mut of_kind: Vec<&Value> = objects
            .iter()
            .filter(|(k, _)| *k == kind)
            .flat_map(|(_, vs)| vs.iter())
            .collect();
        of_kind.sort_by_key(|v| namespaced_name(v));
        items.extend(of_kind.into_iter().cloned());
    }
    let mut kept: Vec<&ServerReading> = readings.iter().collect();
    kept.sort_by(|a, b| {
        (a.namespace(), a.pod(), a.observed_at.0).cmp(&(b.namespace(), b.pod(), b.observed_at.0))
    });
    for r in kept {
        items.push(own_item(r, READING_KIND)?);
    }
    // The clusters none of whose servers could be read: no reading says
    // so, these do.
    for n in not_read {
        items.push(own_item(&n.item(), NOT_READ_KIND)?);
    }
    Ok(json!({
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {
            "resourceVersion": "",
            "annotations": Value::Object(provenance.annotations()),
        },
        "items": items,
    }))
}

/// `item` as a List item of the plugin's own `kind`, as `-f` reads it. A
/// reading holds answers only (no password: [`ServerReading`] has no field
/// for one), a [`ServersNotRead`] the cluster and why.
fn own_item(item: &impl serde::Serialize, kind: &str) -> Result<Value> {
    let mut v = serde_json::to_value(item).map_err(|e| Error::Encode {
        format: "JSON",
        problem: e.to_string(),
    })?;
    if let Value::Object(map) = &mut v {
        map.insert("apiVersion".into(), READING_API_VERSION.into());
        map.insert("kind".into(), kind.into());
    }
    Ok(v)
}

/// The bundle's text in `format`: YAML with the header, or JSON.
pub(crate) fn render(doc: &Value, provenance: &Provenance, format: BundleFormat) -> Result<String> {
    match format {
        BundleFormat::Json => to_json(doc),
        BundleFormat::Yaml => Ok(format!("{}{}", provenance.header(), to_yaml(doc)?)),
    }
}

/// `--format`, else `-o json|yaml`, else YAML.
fn format_of(args: &BundleArgs, output: OutputFormat) -> BundleFormat {
    match (args.format, output) {
        (Some(format), _) => format,
        (None, OutputFormat::Json) => BundleFormat::Json,
        _ => BundleFormat::Yaml,
    }
}

pub(crate) async fn run(ctx: &Ctx, args: &BundleArgs) -> Result<Outcome> {
    let live = live::connect(&ctx.access()).await?;
    let namespace = crate::source::live_namespace(
        ctx.global.namespace.as_deref(),
        ctx.global.all_namespaces,
        &live.default_namespace,
    );
    let cluster = args.cluster.as_deref();
    let RawRead {
        mut snapshot,
        mut objects,
        ..
    } = live::read_raw(&live, namespace.as_deref(), cluster).await?;
    if let Some(name) = cluster
        && objects
            .iter()
            .all(|(k, vs)| *k != Kind::ValkeyClusters || vs.is_empty())
    {
        return Err(Error::NotFound {
            kind: "ValkeyCluster",
            namespace: namespace.clone(),
            name: name.to_string(),
            nearest: Vec::new(),
        });
    }
    // The pods' own events, which `explain` reads live: one more LIST.
    let pods = pods_of(&snapshot, None);
    let (_, pod_events) = live::events_of_pods(&live, namespace.as_deref(), &pods).await?;
    objects.push((Kind::Events, pod_events));
    // What the servers say, kept for the hand-over (by default, as
    // `explain` reads them): the readings join the snapshot's.
    let servers = match super::shared::reach(args.servers, &args.servers_ca) {
        None => String::new(),
        Some(reach) => {
            let accounts =
                servers::read_into(&live, &mut snapshot, None, &reach, servers::BOUNDS).await;
            crate::render::notice::servers_unread(&accounts)
        }
    };
    let info = VersionInfo::current();
    let provenance = Provenance {
        taken_at: ctx.now(),
        context: live.context.clone(),
        server: live.server.clone(),
        namespace,
        cluster: args.cluster.clone(),
        plugin: format!("kubectl-valkey-roll {} ({})", info.version, info.commit),
    };
    let doc = document(
        &objects,
        &snapshot.readings,
        &snapshot.servers_not_read,
        &provenance,
    )?;
    let text = render(&doc, &provenance, format_of(args, ctx.global.output))?;
    match &args.output_file {
        None => Ok(Outcome {
            stderr: servers,
            ..Outcome::ok(text)
        }),
        Some(path) => {
            write_file(path, &text)?;
            let count = doc["items"].as_array().map_or(0, Vec::len);
            Ok(Outcome {
                stdout: String::new(),
                stderr: format!("{servers}wrote {count} objects to {}\n", path.display()),
                exit: crate::error::Exit::Done,
            })
        }
    }
}

/// The pods whose events belong in a bundle (or a cluster's timeline):
/// every pod read, and every pod a node names (a pod being replaced may be
/// gone, its events not). `cluster` (namespace, name): only its own.
pub(crate) fn pods_of(
    snapshot: &Snapshot,
    cluster: Option<(&str, &str)>,
) -> BTreeSet<(String, String)> {
    let of_cluster = |ns: Option<&str>, label: Option<&str>| match cluster {
        None => true,
        Some((cns, cname)) => ns == Some(cns) && label == Some(cname),
    };
    let mut pods: BTreeSet<(String, String)> = snapshot
        .pods
        .iter()
        .filter(|p| {
            of_cluster(
                p.metadata.namespace.as_deref(),
                p.metadata.labels.get(crate::snapshot::keys::LABEL_CLUSTER),
            )
        })
        .filter_map(|p| Some((p.metadata.namespace.clone()?, p.metadata.name.clone()?)))
        .collect();
    for node in snapshot
        .nodes
        .iter()
        .filter(|n| of_cluster(n.metadata.namespace.as_deref(), n.cluster_name()))
    {
        if let (Some(ns), Some(pod)) = (
            node.metadata.namespace.clone(),
            node.status.as_ref().and_then(|s| s.pod_name.clone()),
        ) {
            pods.insert((ns, pod));
        }
    }
    pods
}

/// Writes the bundle to `path` whole or not at all: into a new file beside
/// it, then renamed onto it, so a full disk (or any failed write) leaves
/// no partial bundle, and an older file of that name as it was. A path
/// that is there and is not a regular file (`/dev/stdout`, a FIFO) is
/// written as it is: it cannot be replaced. A symbolic link is followed,
/// as a plain write would: the file it leads to is replaced.
fn write_file(path: &Path, text: &str) -> Result<()> {
    write_whole(path, |file| {
        std::io::Write::write_all(file, text.as_bytes())
    })
}

/// [`write_file`]'s steps, with what is written given by `write`.
fn write_whole(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<()> {
    let failed = |source| Error::Write {
        path: path.display().to_string(),
        source,
    };
    let target = match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(path)
                .map_err(failed)?;
            return write(&mut file).map_err(failed);
        }
        // The file a link leads to is the one replaced (not the link).
        Ok(_) => std::fs::canonicalize(path).map_err(failed)?,
        Err(_) => path.to_path_buf(),
    };
    let (temporary, mut file) = new_beside(&target).map_err(failed)?;
    let done = write(&mut file)
        .and_then(|()| file.sync_all())
        .and_then(|()| {
            // An older file keeps its permissions.
            match std::fs::metadata(&target) {
                Ok(old) => file.set_permissions(old.permissions()),
                Err(_) => Ok(()),
            }
        })
        .and_then(|()| {
            drop(file);
            std::fs::rename(&temporary, &target)
        });
    if let Err(source) = done {
        let _ = std::fs::remove_file(&temporary);
        return Err(failed(source));
    }
    Ok(())
}

/// A new, empty file in `target`'s folder, named after it
/// (`.NAME.PID-N.partial`), that no other file had.
fn new_beside(target: &Path) -> std::io::Result<(std::path::PathBuf, std::fs::File)> {
    let folder = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .map_or_else(|| "bundle".into(), |n| n.to_string_lossy());
    let mut last = None;
    for n in 0..16 {
        let temporary = folder.join(format!(".{name}.{}-{n}.partial", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)
        {
            Ok(file) => return Ok((temporary, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::file::parse_snapshot;

    fn provenance() -> Provenance {
        Provenance {
            taken_at: "2026-11-29T10:16:00Z".parse().expect("time"),
            context: Some("prod\u{1b}[31m".into()),
            server: "https://10.0.0.1:6443".into(),
            namespace: Some("prod".into()),
            cluster: Some("cache".into()),
            plugin: "kubectl-valkey-roll 0.1.0 (abc)".into(),
        }
    }

    /// A failed write keeps the I/O error itself (its kind, for whoever
    /// handles it), and says it as before.
    #[test]
    fn a_failed_write_carries_the_io_error() {
        let path = Path::new("/no-such-folder-of-this-test/bundle.yaml");
        let err = write_file(path, "x").expect_err("no such folder");
        let io = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<std::io::Error>());
        assert_eq!(
            io.map(std::io::Error::kind),
            Some(std::io::ErrorKind::NotFound),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .starts_with("cannot write /no-such-folder-of-this-test/bundle.yaml: No such file"),
            "{err}"
        );
    }

    /// A write that fails halfway (a full disk) leaves no partial bundle
    /// and no temporary file, and an older bundle of that name as it was.
    #[test]
    fn a_write_that_fails_halfway_leaves_no_partial_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let full = || std::io::Error::from_raw_os_error(libc::ENOSPC);
        let halfway = |file: &mut std::fs::File| {
            std::io::Write::write_all(file, b"apiVersion: v1\nkind: Li")?;
            Err(full())
        };
        let path = dir.path().join("new.yaml");
        let err = write_whole(&path, halfway).expect_err("the disk is full");
        assert!(err.to_string().contains("No space left on device"), "{err}");
        let old = dir.path().join("old.yaml");
        std::fs::write(&old, "the older bundle").expect("write");
        write_whole(&old, halfway).expect_err("the disk is full");
        assert_eq!(
            std::fs::read_to_string(&old).expect("read"),
            "the older bundle"
        );
        let left: Vec<String> = std::fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, ["old.yaml"], "nothing else is left");
        // A write that succeeds replaces the older file whole.
        write_file(&old, "the new one").expect("write");
        assert_eq!(std::fs::read_to_string(&old).expect("read"), "the new one");
    }

    /// The example's items as the live reader hands them over: by kind.
    /// (The examples repeat some event names, which a cluster never does,
    /// so their order is kept.)
    fn objects_of(example: &str) -> Vec<(Kind, Vec<Value>)> {
        let text =
            std::fs::read_to_string(format!("{}/examples/{example}", env!("CARGO_MANIFEST_DIR")))
                .expect("example");
        let list: Value = serde_saphyr::from_str(&text).expect("example parses");
        let kind_of = |v: &Value| match v["kind"].as_str() {
            Some("ValkeyCluster") => Some(Kind::ValkeyClusters),
            Some("ValkeyNode") => Some(Kind::ValkeyNodes),
            Some("StatefulSet") => Some(Kind::StatefulSets),
            Some("Deployment") => Some(Kind::Deployments),
            Some("Pod") => Some(Kind::Pods),
            Some("Event") => Some(Kind::Events),
            _ => None,
        };
        let items: Vec<Value> = list["items"].as_array().cloned().unwrap_or_default();
        Kind::ALL
            .into_iter()
            .map(|k| {
                (
                    k,
                    items
                        .iter()
                        .filter(|v| kind_of(v) == Some(k))
                        .cloned()
                        .collect(),
                )
            })
            .collect()
    }

    #[test]
    fn a_bundle_reads_back_as_the_same_snapshot_in_both_formats() {
        for example in [
            "converged.yaml",
            "jammed.yaml",
            "jammed-p1.yaml",
            "rolling.yaml",
        ] {
            let objects = objects_of(example);
            let path = format!("{}/examples/{example}", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read(&path).expect("example");
            let expected = parse_snapshot(&text, example).expect("example parses");
            let p = provenance();
            let doc = document(&objects, &[], &[], &p).expect("document");
            for format in [BundleFormat::Yaml, BundleFormat::Json] {
                let text = render(&doc, &p, format).expect("render");
                let back = parse_snapshot(text.as_bytes(), "bundle").expect("bundle parses");
                assert_eq!(back, expected, "{example} {format:?}");
            }
        }
    }

    /// The servers' readings are items of the plugin's own kind, after the
    /// API's objects, and read back as the readings they were.
    #[test]
    fn readings_read_back_as_they_were() {
        let reading = |pod: &str, at: &str, role: &str| -> ServerReading {
            serde_json::from_value(json!({
                "metadata": {"namespace": "prod", "name": pod},
                "node": "cache-0-1", "observedAt": at, "address": "10.0.0.4:6379",
                "nodeId": "abc", "role": role, "primaryAddress": "10.0.0.3:6379",
                "link": "down", "syncing": false, "flags": ["myself", "slave"],
                "clusterState": "ok", "error": null,
            }))
            .expect("reading")
        };
        let readings = vec![
            reading("valkey-cache-0-1-0", "2026-11-29T10:16:01Z", "replica"),
            reading("valkey-cache-0-0-0", "2026-11-29T10:16:00Z", "primary"),
        ];
        let objects = objects_of("rolling.yaml");
        let p = provenance();
        let doc = document(&objects, &readings, &[], &p).expect("document");
        let items = doc["items"].as_array().expect("items");
        let last: Vec<&str> = items[items.len() - 2..]
            .iter()
            .map(|i| i["metadata"]["name"].as_str().unwrap_or_default())
            .collect();
        assert_eq!(last, ["valkey-cache-0-0-0", "valkey-cache-0-1-0"]);
        for format in [BundleFormat::Yaml, BundleFormat::Json] {
            let text = render(&doc, &p, format).expect("render");
            let back = parse_snapshot(text.as_bytes(), "bundle").expect("bundle parses");
            let mut want = readings.clone();
            want.reverse();
            assert_eq!(back.readings, want, "{format:?}");
        }
        // A cluster none of whose servers could be read is an item too,
        // read back as it was (its verdict says so offline as live).
        let not_read = [crate::snapshot::ServersNotRead {
            namespace: "prod".into(),
            cluster: "cache".into(),
            why: crate::snapshot::Failure::Tls,
        }];
        let doc = document(&objects, &[], &not_read, &p).expect("document");
        for format in [BundleFormat::Yaml, BundleFormat::Json] {
            let text = render(&doc, &p, format).expect("render");
            let back = parse_snapshot(text.as_bytes(), "bundle").expect("bundle parses");
            assert_eq!(back.servers_not_read, not_read, "{format:?}");
        }
    }

    #[test]
    fn items_are_sorted_by_kind_then_namespace_and_name() {
        let item = |kind: &str, ns: &str, name: &str| json!({"apiVersion": "v1", "kind": kind, "metadata": {"namespace": ns, "name": name}});
        let objects = vec![
            (
                Kind::Events,
                vec![item("Event", "b", "e1"), item("Event", "a", "e2")],
            ),
            (
                Kind::Pods,
                vec![item("Pod", "a", "p2"), item("Pod", "a", "p1")],
            ),
            (Kind::ValkeyClusters, vec![item("ValkeyCluster", "a", "c")]),
        ];
        let doc = document(&objects, &[], &[], &provenance()).expect("document");
        let order: Vec<(String, String)> = doc["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|v| {
                (
                    v["kind"].as_str().unwrap_or_default().to_string(),
                    namespaced_name(v).1,
                )
            })
            .collect();
        let want = [
            ("ValkeyCluster", "c"),
            ("Pod", "p1"),
            ("Pod", "p2"),
            ("Event", "e2"),
            ("Event", "e1"),
        ];
        assert_eq!(
            order,
            want.map(|(k, n)| (k.to_string(), n.to_string())).to_vec()
        );
        // Stable: the same objects in another order give the same text.
        let mut shuffled = objects.clone();
        shuffled.reverse();
        for (_, vs) in &mut shuffled {
            vs.reverse();
        }
        let p = provenance();
        assert_eq!(
            render(
                &document(&shuffled, &[], &[], &p).expect("document"),
                &p,
                BundleFormat::Yaml
            )
            .expect("yaml"),
            render(&doc, &p, BundleFormat::Yaml).expect("yaml")
        );
    }

    #[test]
    fn the_header_and_annotations_say_when_where_and_which_plugin() {
        let p = provenance();
        let doc = document(&[], &[], &[], &p).expect("document");
        let yaml = render(&doc, &p, BundleFormat::Yaml).expect("yaml");
        let header: Vec<&str> = yaml.lines().take_while(|l| l.starts_with('#')).collect();
        assert_eq!(header.len(), 6, "{yaml}");
        let header = header.join("\n");
        for fact in [
            "2026-11-29T10:16:00Z",
            "https://10.0.0.1:6443",
            "prod",
            "cache",
            "kubectl-valkey-roll 0.1.0 (abc)",
        ] {
            assert!(header.contains(fact), "{fact} in {header}");
        }
        assert!(!header.contains('\u{1b}'), "cleaned: {header}");
        let json: Value =
            serde_json::from_str(&render(&doc, &p, BundleFormat::Json).expect("json"))
                .expect("json parses");
        let a = &json["metadata"]["annotations"];
        assert_eq!(a[TAKEN_AT], "2026-11-29T10:16:00Z");
        assert_eq!(a[SERVER], "https://10.0.0.1:6443");
        assert_eq!(a[NAMESPACE], "prod");
        assert_eq!(a[CLUSTER], "cache");
        assert_eq!(a[PLUGIN_VERSION], "kubectl-valkey-roll 0.1.0 (abc)");
        assert_eq!(json["kind"], "List");
        assert_eq!(json["apiVersion"], "v1");
    }
}
