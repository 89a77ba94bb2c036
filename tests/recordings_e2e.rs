//! A sample of the real operator's recorded moments (../shared/recordings)
//! written into the real API server (tests/harness) object by object,
//! status through the status subresource, and read back live: the live
//! `status -o json` equals the offline one on a `kubectl get -o yaml
//! --show-managed-fields` dump of the same objects, and its holders are the
//! nodes truly in flight (expected.json), with no false Conflict.
//!
//! The server sets what a client cannot (uid, creationTimestamp,
//! managedFields times, generation), so the document is compared with the
//! dump, not with the recording file; generations are brought to the
//! recorded ones by as many spec edits. `tests/recordings.rs` checks every
//! moment offline.

mod harness;
mod recorded;

use harness::plugin::run as plugin;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use std::path::Path;

/// The sample: creation with StatefulSets just created (the false
/// Conflict of old), the first node of a Spec-driven roll with the others
/// behind, between two nodes of it, and a builder-only roll's holder with
/// nodes asking behind it.
const SAMPLE: [(&str, &str); 4] = [
    ("a-bootstrap", "writes/w-00034.json.gz"),
    ("b-spec", "writes/w-00002.json.gz"),
    ("b-spec", "writes/w-00050.json.gz"),
    ("c-builder", "writes/w-00043.json.gz"),
];

fn read_list(path: &Path) -> Value {
    serde_json::from_slice(&recorded::gunzip(path)).expect("a recorded List is JSON")
}

/// The object as a client may create it in `ns`: server-set metadata
/// dropped, namespaces (its own and its references') rewritten, no status.
fn creatable(item: &Value, ns: &str) -> Value {
    let mut o = item.clone();
    let meta = o["metadata"].as_object_mut().expect("metadata");
    for key in [
        "resourceVersion",
        "uid",
        "creationTimestamp",
        "managedFields",
        "generation",
    ] {
        meta.remove(key);
    }
    meta.insert("namespace".into(), json!(ns));
    if let Some(map) = o.as_object_mut() {
        map.remove("status");
    }
    for reference in ["involvedObject", "regarding", "related"] {
        if o[reference].is_object() {
            o[reference]["namespace"] = json!(ns);
            if let Some(r) = o[reference].as_object_mut() {
                r.remove("resourceVersion");
            }
        }
    }
    // Admission computes a pod's priority from its class; a pod may not
    // bring its own.
    if o["kind"] == "Pod"
        && let Some(spec) = o["spec"].as_object_mut()
    {
        spec.remove("priority");
    }
    o
}

/// The spec change of step `step` toward the recorded generation: a field
/// the plugin never reads, a different value at each step (so that every
/// edit changes the spec and moves the generation by one), the recorded
/// spec again at the last step (None).
fn spec_edit(kind: &str, item: &Value, step: Option<i64>) -> Value {
    match kind {
        "StatefulSet" | "Deployment" => {
            let recorded = item["spec"]["replicas"].as_i64().unwrap_or(1);
            json!({"spec": {"replicas": step.map_or(recorded, |k| recorded + 1 + k)}})
        }
        _ => json!({"spec": {"recordingGenerationSeed": step.map(|k| format!("seed-{k}"))}}),
    }
}

/// Writes one recorded List into `ns` as the controllers wrote it: each
/// object created, its generation brought to the recorded one, then its
/// status.
async fn write_moment(client: &kube::Client, list: &Value, ns: &str) {
    let pp = PatchParams::default();
    for item in list["items"].as_array().expect("items") {
        let kind = item["kind"].as_str().expect("kind");
        let ar = harness::sim::api_resource(item["apiVersion"].as_str().expect("apiVersion"), kind);
        let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), ns, &ar);
        let name = item["metadata"]["name"].as_str().expect("name").to_string();
        let generation = item["metadata"]["generation"].as_i64().unwrap_or(1);
        let mut create = creatable(item, ns);
        if generation > 1 {
            // Created with the step-0 change, so that each later edit moves
            // the generation.
            let seed = spec_edit(kind, item, Some(0));
            if let (Some(spec), Some(seed)) =
                (create["spec"].as_object_mut(), seed["spec"].as_object())
            {
                spec.extend(seed.clone());
            }
        }
        let obj: DynamicObject = serde_json::from_value(create).expect("a creatable object");
        api.create(&PostParams::default(), &obj)
            .await
            .unwrap_or_else(|e| panic!("create {kind} {ns}/{name}: {e}"));
        for step in 1..generation {
            let value = (step + 1 < generation).then_some(step);
            api.patch(&name, &pp, &Patch::Merge(spec_edit(kind, item, value)))
                .await
                .unwrap_or_else(|e| {
                    panic!("edit {kind} {ns}/{name} toward generation {generation}: {e}")
                });
        }
        if item["status"].is_object() && kind != "Event" {
            api.patch_status(&name, &pp, &Patch::Merge(json!({"status": item["status"]})))
                .await
                .unwrap_or_else(|e| panic!("status of {kind} {ns}/{name}: {e}"));
        }
    }
}

#[tokio::test]
async fn recorded_moments_read_the_same_live_and_offline() {
    let root = recorded::root();
    let s = harness::server();
    let client = s.client().await;
    let kubeconfig = s.kubeconfig().display().to_string();
    for (scenario, file) in SAMPLE {
        let expected: Value = serde_json::from_slice(
            &std::fs::read(root.join(scenario).join("expected.json")).expect("expected.json"),
        )
        .expect("expected.json is JSON");
        let truth = &expected[file];
        let now = truth["now"].as_str().expect("now");
        let ns = s.fresh_namespace(scenario);
        write_moment(&client, &read_list(&root.join(scenario).join(file)), &ns).await;

        let args = ["status", "-o", "json", "--now", now];
        let mut live_args = vec!["--kubeconfig", kubeconfig.as_str(), "-n", ns.as_str()];
        live_args.extend(args);
        let live = plugin(&live_args).ok_json();

        let dump = s.kubectl_ok(&[
            "get",
            "valkeyclusters,valkeynodes,statefulsets,deployments,pods,events",
            "-n",
            &ns,
            "-o",
            "yaml",
            "--show-managed-fields",
        ]);
        let path = s.workdir().join(format!("{ns}-dump.yaml"));
        std::fs::write(&path, dump).expect("write the dump");
        let p = path.display().to_string();
        let mut offline_args = vec!["-f", p.as_str(), "-n", ns.as_str()];
        offline_args.extend(args);
        let offline = plugin(&offline_args).ok_json();
        assert_eq!(live, offline, "{scenario}/{file}: live and offline differ");

        let c = &live["clusters"][0];
        assert_eq!(
            recorded::names(&c["holders"]),
            recorded::names(&truth["holders"]),
            "{scenario}/{file}: holders ({})",
            c["reason"]
        );
        assert_ne!(
            c["verdict"], "Conflict",
            "{scenario}/{file}: {}",
            c["reason"]
        );
        for n in recorded::names(&truth["stillToAdvance"]) {
            let state = c["nodes"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|x| x["name"] == n.as_str())
                .map(|x| x["state"].clone());
            if scenario == "b-spec" {
                assert_eq!(
                    state,
                    Some(json!("Waiting")),
                    "{scenario}/{file}: {n} is still to advance"
                );
            }
        }
    }
}
