//! The real controllers beside the test API server, for the test binaries
//! that need StatefulSets and pods to behave as they do in a cluster:
//!
//! - kube-controller-manager with only the StatefulSet, Deployment,
//!   ReplicaSet and garbage-collector controllers (the controllers whose
//!   writes the plugin reads: workload status, pod creation, deletion and
//!   replacement, ControllerRevisions, owner-reference cleanup);
//! - kube-scheduler, which binds every pod to the one node;
//! - kwok, standing in for the kubelet of that one fake Node
//!   (`kwok-node-0`, node IP 127.0.0.1, pod IPs from 127.0.1.0/24), with the
//!   stages in [`STAGES`]: a pod is Pending/ContainerCreating a second after
//!   it is bound, Running two seconds later, Ready two seconds after that
//!   (as in ../shared/recordings); a deleted pod goes two seconds after its
//!   deletion; a container whose image tag is `:broken` never becomes Ready
//!   but crash-loops (Running a second, then waiting CrashLoopBackOff with
//!   restartCount up by one and lastState terminated exit code 1 reason
//!   Error, for three seconds, and again).
//!
//! kwok is also the Node's kubelet endpoint (`status.daemonEndpoints`,
//! its `--node-port`): the API server proxies `pods/log` to it (on the
//! Node's InternalIP 127.0.0.1, see the API server's
//! `--kubelet-preferred-address-types`), and kwok answers every pod's
//! container log from [`ControlPlane::current_log_file`] and, with
//! `previous=true`, from [`ControlPlane::previous_log_file`] (its
//! ClusterLogs configuration in [`logs_config`]). Neither file exists until
//! a test writes it (kwok then answers 400); the files are shared by the
//! binary's tests, so at most one test per binary may write them.
//!
//! kwok also answers the API server's port-forward of a pod (`pods/portforward`)
//! where a kwok `PortForward` object named as the pod says (it runs with
//! `--enable-crds=PortForward`; the CRD, our own minimal one, is installed
//! before kwok starts): `harness::valkey::forward_pod` points one at the
//! pod's real valkey-server.
//!
//! A test file opts in with `harness::control_plane()` instead of
//! `harness::server()`; the other test binaries start none of this. The
//! ControlPlane derefs to the [`Server`], so everything of `server()` is
//! there (`fresh_namespace`, `client`, `kubectl`, ...).
//!
//! Loopback only: kube-controller-manager and kube-scheduler serve nothing
//! (`--secure-port=0`, which both allow); kwok serves its health endpoint on
//! 127.0.0.1 at a free port. The apiserver admits pods without a
//! ServiceAccount (its ServiceAccount admission plugin is off), so no
//! serviceaccount controller is needed. Each component has its own client
//! certificate (CN system:kube-controller-manager, system:kube-scheduler,
//! kwok) in `system:masters`: kube-controller-manager runs every controller
//! with its own credential (`--use-service-account-credentials=false`), and
//! the bootstrap roles of that identity do not cover the StatefulSet
//! controller's writes.
//!
//! The children are supervised like etcd and kube-apiserver (`procs.rs`):
//! spawned from the harness thread, pidfiles, PR_SET_PDEATHSIG, killed at
//! exit, reaped by testbin/reap.sh.
//!
//! `control_plane()` returns once a canary StatefulSet (namespace
//! `testbin-canary`) has a Ready pod with a pod IP in 127.0.1.0/24: every
//! part has done its share at least once. When a part fails, the panic says
//! which step did not happen and shows that part's log.

use std::fs;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{Namespace, Node, Pod};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use serde_json::json;

use super::procs::Proc;
use super::{Server, Supervisor, locate, pinned_version, server};

/// The fake Node kwok manages: every pod runs here.
pub const NODE: &str = "kwok-node-0";
/// The pod IP range (kwok's `--cidr` and the Node's `spec.podCIDR`).
pub const POD_CIDR: &str = "127.0.1.0/24";
/// The prefix every pod IP starts with.
pub const POD_IP_PREFIX: &str = "127.0.1.";
/// The node IP kwok reports (`status.hostIP` of every pod).
pub const NODE_IP: &str = "127.0.0.1";
/// An image whose tag is this crash-loops (see [`STAGES`]).
pub const BROKEN_TAG: &str = ":broken";

/// How long the control plane may take to run its canary pod.
const BOOT_TIMEOUT: Duration = Duration::from_secs(120);
/// kwok's log files, in the workdir (see [`ControlPlane::previous_log_file`]).
const PREVIOUS_LOG: &str = "kwok-previous.log";
const CURRENT_LOG: &str = "kwok-current.log";
/// The annotation kwok selects its nodes by (`--manage-nodes-with-annotation-selector`).
const KWOK_NODE_ANNOTATION: &str = "kwok.x-k8s.io/node";
const CANARY_NS: &str = "testbin-canary";

/// Paths of the control plane's binaries.
#[derive(Clone, Debug)]
pub struct ControlPlaneBins {
    pub kube_controller_manager: PathBuf,
    pub kube_scheduler: PathBuf,
    pub kwok: PathBuf,
}

/// The binaries from the environment (`KUBE_CONTROLLER_MANAGER`,
/// `KUBE_SCHEDULER`, `KWOK`) or build.sh's cache.
pub fn locate_control_plane_bins() -> Result<ControlPlaneBins, String> {
    let kube = pinned_version("kube", "k8s.io/kubernetes")?;
    let kwok = pinned_version("kwok", "sigs.k8s.io/kwok")?;
    Ok(ControlPlaneBins {
        kube_controller_manager: locate(
            "KUBE_CONTROLLER_MANAGER",
            "kube-controller-manager",
            &kube,
        )?,
        kube_scheduler: locate("KUBE_SCHEDULER", "kube-scheduler", &kube)?,
        kwok: locate("KWOK", "kwok", &kwok)?,
    })
}

/// The test API server with the controllers running. Derefs to [`Server`].
pub struct ControlPlane {
    server: &'static Server,
    bins: ControlPlaneBins,
    kwok_addr: SocketAddr,
}

impl Deref for ControlPlane {
    type Target = Server;
    fn deref(&self) -> &Server {
        self.server
    }
}

impl ControlPlane {
    pub fn server(&self) -> &'static Server {
        self.server
    }

    pub fn control_plane_bins(&self) -> &ControlPlaneBins {
        &self.bins
    }

    /// kwok's server (health endpoints, the kubelet's container logs), on
    /// loopback.
    pub fn kwok_addr(&self) -> SocketAddr {
        self.kwok_addr
    }

    /// The file kwok serves every pod's previous container log from
    /// (`pods/log?previous=true`), in the CRI log format (see
    /// [`ControlPlane::write_previous_log`]).
    pub fn previous_log_file(&self) -> PathBuf {
        self.workdir().join(PREVIOUS_LOG)
    }

    /// The file kwok serves every pod's current container log from.
    pub fn current_log_file(&self) -> PathBuf {
        self.workdir().join(CURRENT_LOG)
    }

    /// Writes `lines` as the previous container's log of every pod, each
    /// a CRI log line on stderr (`<time> stderr F <line>`), as the kubelet
    /// keeps them.
    pub fn write_previous_log(&self, lines: &[&str]) {
        let text: String = lines
            .iter()
            .map(|l| format!("2026-12-01T00:00:00.000000000Z stderr F {l}\n"))
            .collect();
        let path = self.previous_log_file();
        fs::write(&path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }

    /// The log of a control-plane child (`kwok`, `kube-scheduler`,
    /// `kube-controller-manager`), for failure messages.
    pub fn log_of(&self, name: &str) -> PathBuf {
        self.workdir().join(format!("{name}.log"))
    }

    /// The last `n` lines of every control-plane child's log.
    pub fn log_tails(&self, n: usize) -> String {
        ["kube-controller-manager", "kube-scheduler", "kwok"]
            .iter()
            .map(|name| {
                format!(
                    "--- {name} log ends:\n{}",
                    super::procs::log_tail(&self.log_of(name), n)
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

static CONTROL_PLANE: OnceLock<Result<ControlPlane, String>> = OnceLock::new();

/// The test API server with kube-controller-manager, kube-scheduler and
/// kwok running beside it, started on first use. Panics (in every test that
/// asks) when it cannot be started, with the reason.
pub fn control_plane() -> &'static ControlPlane {
    match CONTROL_PLANE.get_or_init(start) {
        Ok(cp) => cp,
        Err(e) => panic!("test control plane unavailable: {e}"),
    }
}

fn start() -> Result<ControlPlane, String> {
    let bins = locate_control_plane_bins()?;
    let server = server();
    let dir = server.workdir().to_path_buf();
    let kubeconfig_of = |cn: &str, name: &str| -> Result<PathBuf, String> {
        let minted = server.mint_user(cn, &["system:masters"]);
        let path = dir.join(format!("{name}.kubeconfig"));
        fs::rename(&minted, &path).map_err(|e| format!("move {}: {e}", minted.display()))?;
        Ok(path)
    };
    let kubeconfigs = Kubeconfigs {
        kcm: kubeconfig_of("system:kube-controller-manager", "kube-controller-manager")?,
        scheduler: kubeconfig_of("system:kube-scheduler", "kube-scheduler")?,
        kwok: kubeconfig_of("kwok", "kwok")?,
    };
    let stages = dir.join("kwok-stages.yaml");
    let config = format!("{STAGES}---\n{}", logs_config(&dir));
    fs::write(&stages, config).map_err(|e| format!("write {}: {e}", stages.display()))?;
    let job_bins = bins.clone();
    let kwok_addr = server.on_harness(move |sup| boot(sup, &job_bins, &kubeconfigs, &stages))?;
    Ok(ControlPlane {
        server,
        bins,
        kwok_addr,
    })
}

struct Kubeconfigs {
    kcm: PathBuf,
    scheduler: PathBuf,
    kwok: PathBuf,
}

/// On the harness thread: the Node, kwok, kube-scheduler,
/// kube-controller-manager, then the canary. Returns kwok's address.
fn boot(
    sup: &mut Supervisor,
    bins: &ControlPlaneBins,
    kc: &Kubeconfigs,
    stages: &Path,
) -> Result<SocketAddr, String> {
    let deadline = Instant::now() + BOOT_TIMEOUT;
    create_node(sup)?;
    install_port_forward_crd(sup)?;
    let kwok_addr = start_kwok(sup, bins, kc, stages, deadline)?;
    let dir = sup.workdir.clone();
    let f = |p: &Path| p.display().to_string();
    let scheduler_args = vec![
        format!("--kubeconfig={}", f(&kc.scheduler)),
        "--leader-elect=false".into(),
        "--secure-port=0".into(),
        "--bind-address=127.0.0.1".into(),
        "-v=1".into(),
    ];
    spawn(
        sup,
        "kube-scheduler",
        &bins.kube_scheduler,
        &scheduler_args,
        &dir,
    )?;
    let kcm_args = vec![
        format!("--kubeconfig={}", f(&kc.kcm)),
        "--controllers=statefulset,deployment,replicaset,garbagecollector".into(),
        "--use-service-account-credentials=false".into(),
        "--leader-elect=false".into(),
        "--secure-port=0".into(),
        "--bind-address=127.0.0.1".into(),
        "-v=1".into(),
    ];
    spawn(
        sup,
        "kube-controller-manager",
        &bins.kube_controller_manager,
        &kcm_args,
        &dir,
    )?;
    run_canary(sup, deadline)?;
    log_ready_line(sup, kwok_addr);
    Ok(kwok_addr)
}

/// `control plane ready at URL (...)` in `<target>/testbin-servers.log`,
/// beside the API server's own line (CI prints that file).
fn log_ready_line(sup: &Supervisor, kwok_addr: SocketAddr) {
    super::procs::append_line(
        &super::procs::target_dir().join("testbin-servers.log"),
        &format!(
            "control plane ready at {} (kube-controller-manager, kube-scheduler, kwok at {kwok_addr}, node {NODE})",
            sup.url
        ),
    );
}

/// Spawns a control-plane child, its output in `<workdir>/<name>.log`.
fn spawn(
    sup: &mut Supervisor,
    name: &'static str,
    bin: &Path,
    args: &[String],
    dir: &Path,
) -> Result<(), String> {
    let log = dir.join(format!("{name}.log"));
    let proc = Proc::spawn(name, bin, args, dir, &log)
        .map_err(|e| format!("spawn {}: {e}", bin.display()))?;
    sup.controllers.push(proc);
    Ok(())
}

/// The first child that has exited, with its log.
fn exited_child(sup: &mut Supervisor) -> Option<String> {
    sup.controllers.iter_mut().find_map(|p| {
        p.exited().map(|status| {
            format!(
                "{} exited ({status}); its log ends:\n{}",
                p.name,
                p.log_tail(40)
            )
        })
    })
}

/// Every child's log tail, for a timeout message.
fn all_tails(sup: &Supervisor) -> String {
    sup.controllers
        .iter()
        .map(|p| format!("--- {} log ends:\n{}", p.name, p.log_tail(25)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Polls `check` (every 200 ms) until it gives `Some`, a child exits, or
/// the deadline passes.
fn until<T>(
    sup: &mut Supervisor,
    what: &str,
    deadline: Instant,
    mut check: impl FnMut(&Supervisor) -> Result<Option<T>, String>,
) -> Result<T, String> {
    let mut last = String::from("not yet");
    loop {
        if let Some(e) = exited_child(sup) {
            return Err(format!("{what}: {e}"));
        }
        match check(sup) {
            Ok(Some(v)) => return Ok(v),
            Ok(None) => {}
            Err(e) => last = e,
        }
        if Instant::now() > deadline {
            return Err(format!(
                "{what}: not within {}s (last: {last})\n{}",
                BOOT_TIMEOUT.as_secs(),
                all_tails(sup)
            ));
        }
        thread::sleep(Duration::from_millis(200));
    }
}

/// The fake Node, annotated for kwok, with the pod CIDR. kwok writes its
/// status (node-initialize stage). The API server's TaintNodesByCondition
/// admission gives every new Node the `node.kubernetes.io/not-ready`
/// NoSchedule taint, which the node-lifecycle controller (not run here)
/// removes once the Node is Ready; the harness removes it itself, right
/// after the create (the admission acts on create only).
fn create_node(sup: &Supervisor) -> Result<(), String> {
    let node: Node = serde_json::from_value(json!({
        "metadata": {
            "name": NODE,
            "annotations": {KWOK_NODE_ANNOTATION: "fake", "node.alpha.kubernetes.io/ttl": "0"},
            "labels": {
                "kubernetes.io/hostname": NODE,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "type": "kwok",
            },
        },
        "spec": {"podCIDR": POD_CIDR, "podCIDRs": [POD_CIDR]},
    }))
    .expect("a Node");
    let nodes = Api::<Node>::all(sup.admin.clone());
    sup.rt
        .block_on(nodes.create(&PostParams::default(), &node))
        .map_err(|e| format!("create Node {NODE}: {e}"))?;
    sup.rt
        .block_on(nodes.patch(
            NODE,
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"taints": null}})),
        ))
        .map(|_| ())
        .map_err(|e| format!("remove the not-ready taint of Node {NODE}: {e}"))
}

/// kwok's PortForward kind (`kwok.x-k8s.io/v1alpha1`), which kwok watches
/// with `--enable-crds=PortForward`: a PortForward named and namespaced as
/// a pod sends the API server's port-forward of that pod to its
/// `spec.forwards[].target` (address, port). Our own minimal definition
/// (the fields kwok reads are kept as they come), not kwok's generated one.
const PORT_FORWARD_CRD: &str = r#"{
  "apiVersion": "apiextensions.k8s.io/v1",
  "kind": "CustomResourceDefinition",
  "metadata": {"name": "portforwards.kwok.x-k8s.io"},
  "spec": {
    "group": "kwok.x-k8s.io",
    "scope": "Namespaced",
    "names": {"kind": "PortForward", "listKind": "PortForwardList", "plural": "portforwards", "singular": "portforward"},
    "versions": [{
      "name": "v1alpha1", "served": true, "storage": true,
      "subresources": {"status": {}},
      "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
    }]
  }
}"#;

fn install_port_forward_crd(sup: &mut Supervisor) -> Result<(), String> {
    let path = sup.workdir.join("kwok-portforward-crd.json");
    fs::write(&path, PORT_FORWARD_CRD).map_err(|e| format!("write {}: {e}", path.display()))?;
    let path = path.display().to_string();
    sup.kubectl(&["apply", "--server-side", "-f", &path])?;
    sup.kubectl(&[
        "wait",
        "--for=condition=Established",
        "--timeout=60s",
        "crd/portforwards.kwok.x-k8s.io",
    ])?;
    Ok(())
}

/// Starts kwok on a free loopback port (retried on a port taken in
/// between) and waits until it listens and has made the Node Ready.
fn start_kwok(
    sup: &mut Supervisor,
    bins: &ControlPlaneBins,
    kc: &Kubeconfigs,
    stages: &Path,
    deadline: Instant,
) -> Result<SocketAddr, String> {
    let dir = sup.workdir.clone();
    let mut last_err = String::new();
    for attempt in 1..=3 {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("pick a loopback port: {e}"))?
            .port();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let args = vec![
            format!("--kubeconfig={}", kc.kwok.display()),
            format!("--config={}", stages.display()),
            "--manage-all-nodes=false".into(),
            format!("--manage-nodes-with-annotation-selector={KWOK_NODE_ANNOTATION}=fake"),
            format!("--node-ip={NODE_IP}"),
            format!("--cidr={POD_CIDR}"),
            format!("--server-address={addr}"),
            // The Node's kubelet endpoint port (the node-initialize stage
            // writes it to status.daemonEndpoints).
            format!("--node-port={port}"),
            "--node-lease-duration-seconds=0".into(),
            // A pod's port-forward goes where its PortForward object says
            // ([`PORT_FORWARD_CRD`], [`ControlPlane::forward_pod`]).
            "--enable-crds=PortForward".into(),
        ];
        spawn(sup, "kwok", &bins.kwok, &args, &dir)?;
        let listening = until(sup, "kwok listening", deadline, |_| {
            Ok(
                TcpStream::connect_timeout(&addr, Duration::from_millis(200))
                    .ok()
                    .map(|_| ()),
            )
        });
        match listening {
            Ok(()) => {
                until(sup, "kwok making the Node Ready", deadline, |sup| {
                    let node = sup
                        .rt
                        .block_on(Api::<Node>::all(sup.admin.clone()).get(NODE))
                        .map_err(|e| e.to_string())?;
                    let ready = node
                        .status
                        .and_then(|s| s.conditions)
                        .unwrap_or_default()
                        .iter()
                        .any(|c| c.type_ == "Ready" && c.status == "True");
                    Ok(ready.then_some(()))
                })?;
                return Ok(addr);
            }
            Err(e) if e.contains("address already in use") => {
                last_err = format!("attempt {attempt}: {e}");
                if let Some(p) = sup.controllers.pop() {
                    p.stop(Duration::from_secs(5));
                }
            }
            Err(e) => return Err(e),
        }
    }
    Err(last_err)
}

/// A one-replica StatefulSet whose pod must become Ready with a pod IP in
/// [`POD_CIDR`]: proof that the StatefulSet controller, the scheduler and
/// kwok each did their part.
fn run_canary(sup: &mut Supervisor, deadline: Instant) -> Result<(), String> {
    let labels = json!({"app": "canary"});
    let ns: Namespace =
        serde_json::from_value(json!({"metadata": {"name": CANARY_NS}})).expect("a Namespace");
    let sts: StatefulSet = serde_json::from_value(json!({
        "metadata": {"name": "canary"},
        "spec": {
            "replicas": 1,
            "serviceName": "canary",
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "canary", "image": "registry.k8s.io/pause:3.10"}]},
            },
        },
    }))
    .expect("a StatefulSet");
    let admin = sup.admin.clone();
    sup.rt
        .block_on(async {
            Api::<Namespace>::all(admin.clone())
                .create(&PostParams::default(), &ns)
                .await?;
            Api::<StatefulSet>::namespaced(admin.clone(), CANARY_NS)
                .create(&PostParams::default(), &sts)
                .await
        })
        .map_err(|e| format!("create the canary StatefulSet: {e}"))?;
    let pods = Api::<Pod>::namespaced(admin, CANARY_NS);
    let pod = |sup: &Supervisor| -> Result<Option<Pod>, String> {
        let list = sup
            .rt
            .block_on(pods.list(&ListParams::default()))
            .map_err(|e| e.to_string())?;
        Ok(list.items.into_iter().next())
    };
    until(
        sup,
        "kube-controller-manager creating the canary pod",
        deadline,
        |sup| pod(sup),
    )?;
    until(
        sup,
        "kube-scheduler binding the canary pod",
        deadline,
        |sup| {
            Ok(pod(sup)?
                .filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(NODE)))
        },
    )?;
    until(
        sup,
        "kwok running the canary pod (Ready, IP in 127.0.1.0/24)",
        deadline,
        |sup| {
            Ok(pod(sup)?.filter(|p| {
                let st = p.status.clone().unwrap_or_default();
                let ready = st
                    .conditions
                    .unwrap_or_default()
                    .iter()
                    .any(|c| c.type_ == "Ready" && c.status == "True");
                let ip = st.pod_ip.unwrap_or_default();
                ready && ip.starts_with(POD_IP_PREFIX)
            }))
        },
    )?;
    Ok(())
}

/// kwok's ClusterLogs configuration (loaded with the stages, no CRD): every
/// pod's every container logs to [`CURRENT_LOG`], and its previous
/// container to [`PREVIOUS_LOG`], in `dir`.
fn logs_config(dir: &Path) -> String {
    format!(
        r#"apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: every-pod
spec:
  logs:
  - logsFile: {current:?}
    previousLogsFile: {previous:?}
"#,
        current = dir.join(CURRENT_LOG).display().to_string(),
        previous = dir.join(PREVIOUS_LOG).display().to_string(),
    )
}

/// kwok's stages (its Stage API, loaded from a file: no CRD). Selectors are
/// jq expressions over the object; templates are Go templates with sprig.
/// Each pod goes: bound -> (1 s) Pending, containers waiting
/// ContainerCreating, pod IP assigned -> (2 s) Running, containers started,
/// not ready -> (2 s) Ready. A pod with a container whose image ends in
/// `:broken` instead goes Running -> (1 s) that container waiting
/// CrashLoopBackOff, restartCount + 1, lastState terminated (exit code 1,
/// reason Error) -> (3 s) running again, not ready -> (1 s) crash again ...
/// A pod being deleted (and holding no finalizer) is removed 2 s after its
/// deletion, as the kubelet does once the containers have stopped.
pub const STAGES: &str = r#"apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-initialize
spec:
  resourceRef:
    apiGroup: v1
    kind: Node
  selector:
    matchExpressions:
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: 'NotIn'
      values: ['True']
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      {{ range NodeConditions }}
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $now | Quote }}
        message: {{ .message | Quote }}
        reason: {{ .reason | Quote }}
        status: {{ .status | Quote }}
        type: {{ .type | Quote }}
      {{ end }}
      addresses:
      - address: {{ NodeIP | Quote }}
        type: InternalIP
      - address: {{ NodeName | Quote }}
        type: Hostname
      {{ with NodePort }}
      daemonEndpoints:
        kubeletEndpoint:
          Port: {{ . }}
      {{ end }}
      allocatable:
        cpu: 1k
        memory: 1Ti
        pods: 1M
      capacity:
        cpu: 1k
        memory: 1Ti
        pods: 1M
      nodeInfo:
        architecture: amd64
        operatingSystem: linux
        kubeletVersion: {{ printf "kwok-%s" Version | Quote }}
        kubeProxyVersion: {{ printf "kwok-%s" Version | Quote }}
        containerRuntimeVersion: {{ printf "kwok-%s" Version | Quote }}
        kernelVersion: {{ printf "kwok-%s" Version | Quote }}
      phase: Running
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-create
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.podIP'
      operator: 'DoesNotExist'
  delay:
    durationMilliseconds: 1000
  next:
    event:
      type: Normal
      reason: Created
      message: Created container
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - lastProbeTime: null
        lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Initialized
      - lastProbeTime: null
        lastTransitionTime: {{ $now | Quote }}
        message: 'containers with unready status: [{{ range .spec.containers }} {{ .name }} {{ end }}]'
        reason: ContainersNotReady
        status: "False"
        type: Ready
      - lastProbeTime: null
        lastTransitionTime: {{ $now | Quote }}
        message: 'containers with unready status: [{{ range .spec.containers }} {{ .name }} {{ end }}]'
        reason: ContainersNotReady
        status: "False"
        type: ContainersReady
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        restartCount: 0
        started: false
        state:
          waiting:
            reason: ContainerCreating
      {{ end }}
      hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
      podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
      phase: Pending
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-start
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values: ['Pending']
    - key: '.status.podIP'
      operator: 'Exists'
  delay:
    durationMilliseconds: 2000
  next:
    event:
      type: Normal
      reason: Started
      message: Started container
    statusTemplate: |
      {{ $now := Now }}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        restartCount: 0
        started: true
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}
      phase: Running
      startTime: {{ $now | Quote }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values: ['Running']
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: 'In'
      values: ['False']
    - key: '.spec.containers.[] | .image | endswith(":broken")'
      operator: 'NotIn'
      values: ['true']
  delay:
    durationMilliseconds: 2000
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $root := . }}
      conditions:
      - lastProbeTime: null
        lastTransitionTime: {{ $now | Quote }}
        message: ''
        reason: ''
        status: "True"
        type: Ready
      - lastProbeTime: null
        lastTransitionTime: {{ $now | Quote }}
        message: ''
        reason: ''
        status: "True"
        type: ContainersReady
      containerStatuses:
      {{ range $index, $item := .spec.containers }}
      {{ $origin := index $root.status.containerStatuses $index }}
      - image: {{ $item.image | Quote }}
        name: {{ $item.name | Quote }}
        ready: true
        restartCount: 0
        started: true
        state:
          running:
            startedAt: {{ dig "state" "running" "startedAt" $now $origin | Quote }}
      {{ end }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-crash
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values: ['Running']
    - key: '.status.containerStatuses.[] | select( .image | endswith(":broken") ) | .state.running.startedAt'
      operator: 'Exists'
  delay:
    durationMilliseconds: 1000
  next:
    event:
      type: Warning
      reason: BackOff
      message: Back-off restarting failed container
    statusTemplate: |
      {{ $now := Now }}
      {{ $root := . }}
      conditions:
      - lastProbeTime: null
        lastTransitionTime: {{ $now | Quote }}
        message: 'containers with unready status: [{{ range .spec.containers }} {{ .name }} {{ end }}]'
        reason: ContainersNotReady
        status: "False"
        type: Ready
      - lastProbeTime: null
        lastTransitionTime: {{ $now | Quote }}
        message: 'containers with unready status: [{{ range .spec.containers }} {{ .name }} {{ end }}]'
        reason: ContainersNotReady
        status: "False"
        type: ContainersReady
      containerStatuses:
      {{ range $index, $item := .spec.containers }}
      {{ $origin := index $root.status.containerStatuses $index }}
      {{ if hasSuffix ":broken" $item.image }}
      - image: {{ $item.image | Quote }}
        name: {{ $item.name | Quote }}
        ready: false
        started: false
        restartCount: {{ add1 (dig "restartCount" 0 $origin) }}
        lastState:
          terminated:
            exitCode: 1
            reason: Error
            startedAt: {{ dig "state" "running" "startedAt" $now $origin | Quote }}
            finishedAt: {{ $now | Quote }}
        state:
          waiting:
            reason: CrashLoopBackOff
            message: {{ printf "back-off 10s restarting failed container=%s pod=%s_%s(%s)" $item.name $root.metadata.name $root.metadata.namespace $root.metadata.uid | Quote }}
      {{ else }}
      - {{ toJson $origin }}
      {{ end }}
      {{ end }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-crash-restart
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.containerStatuses.[] | select( .image | endswith(":broken") ) | .state.waiting.reason'
      operator: 'In'
      values: ['CrashLoopBackOff']
  delay:
    durationMilliseconds: 3000
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $root := . }}
      containerStatuses:
      {{ range $index, $item := .spec.containers }}
      {{ $origin := index $root.status.containerStatuses $index }}
      {{ if hasSuffix ":broken" $item.image }}
      - image: {{ $item.image | Quote }}
        name: {{ $item.name | Quote }}
        ready: false
        started: true
        restartCount: {{ dig "restartCount" 0 $origin }}
        lastState: {{ toJson (dig "lastState" dict $origin) }}
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ else }}
      - {{ toJson $origin }}
      {{ end }}
      {{ end }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'Exists'
    - key: '.metadata.finalizers'
      operator: 'DoesNotExist'
  delay:
    durationMilliseconds: 2000
  next:
    delete: true
"#;

/// Polls `probe` (every 250 ms) until it gives `Ok`, and returns that;
/// panics after `bound` with `what` and the last `Err` the probe gave (what
/// it saw instead). The one bounded wait of the control-plane tests.
pub async fn eventually<T, F, Fut>(what: &str, bound: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, String>>,
{
    let deadline = Instant::now() + bound;
    loop {
        match probe().await {
            Ok(v) => return v,
            Err(seen) => assert!(
                Instant::now() < deadline,
                "{what}: not within {}s; last seen: {seen}\n{}",
                bound.as_secs(),
                control_plane().log_tails(15)
            ),
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}
