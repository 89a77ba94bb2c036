//! Reading a snapshot from a cluster: one LIST per kind, concurrently.
//!
//! The responses are converted by the same code as a snapshot file
//! ([`super::file`]), so a live read and `kubectl get ... -o yaml` of the
//! same objects give the same [`Snapshot`], and an object that breaks the
//! schema is reported with its kind, name and field either way.

use super::file;
use crate::cli::GlobalArgs;
use crate::error::{Error, Result};
use crate::snapshot::{Snapshot, VALKEY_API_VERSION, ValkeyCluster, ValkeyNode, keys};
use k8s_openapi::api::apps::v1::{Deployment, StatefulSet};
use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use k8s_openapi::api::core::v1::{Event, Pod};
use kube::Resource;
use kube::api::{Api, ListParams, PostParams};
use kube::config::{Config, KubeConfigOptions, Kubeconfig};
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// A connection to one API server, as the kubeconfig and flags chose it.
#[derive(Clone)]
pub struct Live {
    /// For every request but watches: connect, read and write each time out
    /// after `--request-timeout`.
    pub client: kube::Client,
    /// The kubeconfig context's namespace, else `default` (in a pod: its own).
    pub default_namespace: String,
    /// The user as the kubeconfig names it (`--as` when impersonating); the
    /// fallback of [`who_am_i`].
    pub kube_user: Option<String>,
    /// The API server's URL, for error messages.
    pub server: String,
    /// For watch streams only: the same connection settings without a read
    /// timeout. A watch with no change sends nothing for minutes, and a
    /// read timeout would cut it; kube's watcher has its own idle timeout
    /// (the server-side watch timeout plus a margin) and reconnects.
    pub watch_client: kube::Client,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live")
            .field("server", &self.server)
            .field("default_namespace", &self.default_namespace)
            .field("kube_user", &self.kube_user)
            .finish_non_exhaustive()
    }
}

impl Live {
    /// [`api_error`], naming this connection's server when it is unreachable.
    pub fn error(
        &self,
        err: kube::Error,
        verb: &str,
        resource: &str,
        namespace: Option<&str>,
    ) -> Error {
        map_error(err, verb, resource, namespace, &self.server)
    }
}

/// Where the client configuration comes from, in kubectl's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ConfigSource {
    /// `--kubeconfig`: must exist.
    Flag(PathBuf),
    /// `KUBECONFIG`: several paths, merged (the first to set a value wins);
    /// paths that do not exist are skipped, as kubectl does.
    Env(Vec<PathBuf>),
    /// `~/.kube/config`.
    Home(PathBuf),
    /// No kubeconfig: the pod's service account.
    InCluster,
}

/// Picks the configuration source. `home_config` is `~/.kube/config` when
/// that file exists.
pub(crate) fn config_source(
    flag: Option<&Path>,
    env: Option<&OsStr>,
    home_config: Option<PathBuf>,
) -> ConfigSource {
    if let Some(path) = flag {
        return ConfigSource::Flag(path.to_path_buf());
    }
    if let Some(env) = env {
        let paths: Vec<PathBuf> = std::env::split_paths(env)
            .filter(|p| !p.as_os_str().is_empty())
            .collect();
        if !paths.is_empty() {
            return ConfigSource::Env(paths);
        }
    }
    match home_config {
        Some(path) => ConfigSource::Home(path),
        None => ConfigSource::InCluster,
    }
}

fn kubeconfig_error(problem: impl std::fmt::Display) -> Error {
    Error::Kubeconfig {
        problem: problem.to_string(),
    }
}

/// Reads the kubeconfig a source names (`None` for in-cluster).
pub(crate) fn read_kubeconfig(source: &ConfigSource) -> Result<Option<Kubeconfig>> {
    let read = |path: &Path| {
        Kubeconfig::read_from(path)
            .map_err(|e| kubeconfig_error(format!("{}: {}", path.display(), error_chain(&e))))
    };
    match source {
        ConfigSource::Flag(path) | ConfigSource::Home(path) => read(path).map(Some),
        ConfigSource::Env(paths) => {
            let mut merged: Option<Kubeconfig> = None;
            for path in paths.iter().filter(|p| p.exists()) {
                let next = read(path)?;
                merged = Some(match merged {
                    None => next,
                    Some(m) => m.merge(next).map_err(kubeconfig_error)?,
                });
            }
            merged.map(Some).ok_or_else(|| {
                kubeconfig_error(format!(
                    "none of the files KUBECONFIG names exists: {}",
                    paths
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
        }
        ConfigSource::InCluster => Ok(None),
    }
}

fn kube_options(global: &GlobalArgs) -> KubeConfigOptions {
    KubeConfigOptions {
        context: global.context.clone(),
        cluster: global.kube_cluster.clone(),
        user: global.user.clone(),
    }
}

/// The kubeconfig's user name for the chosen context (or `--user`).
pub(crate) fn kubeconfig_user(
    kubeconfig: &Kubeconfig,
    options: &KubeConfigOptions,
) -> Option<String> {
    if let Some(user) = &options.user {
        return Some(user.clone());
    }
    let context = options
        .context
        .as_ref()
        .or(kubeconfig.current_context.as_ref())?;
    kubeconfig
        .contexts
        .iter()
        .find(|c| &c.name == context)?
        .context
        .as_ref()?
        .user
        .clone()
        .filter(|u| !u.is_empty())
}

/// Builds the client configuration: kubeconfig (or in-cluster), then the
/// flags that override it. Makes no request.
pub(crate) async fn client_config(
    global: &GlobalArgs,
    source: &ConfigSource,
) -> Result<(Config, Option<String>)> {
    let options = kube_options(global);
    let (mut config, mut kube_user) = match read_kubeconfig(source)? {
        Some(kubeconfig) => {
            let user = kubeconfig_user(&kubeconfig, &options);
            let config = Config::from_custom_kubeconfig(kubeconfig, &options)
                .await
                .map_err(|e| kubeconfig_error(error_chain(&e)))?;
            (config, user)
        }
        None => {
            let config = Config::incluster().map_err(|e| {
                kubeconfig_error(format!(
                    "no kubeconfig (--kubeconfig, KUBECONFIG or ~/.kube/config) and not running in a pod: {}",
                    error_chain(&e)
                ))
            })?;
            (config, None)
        }
    };
    if let Some(user) = &global.impersonate {
        config.auth_info.impersonate = Some(user.clone());
        kube_user = Some(user.clone());
    }
    if !global.impersonate_groups.is_empty() {
        config.auth_info.impersonate_groups = Some(global.impersonate_groups.clone());
    }
    // kubectl's --request-timeout=0 means no limit.
    let timeout = Some(global.request_timeout).filter(|t| !t.is_zero());
    config.connect_timeout = timeout;
    config.write_timeout = timeout;
    config.read_timeout = timeout;
    // Count the read timeout from when the request is sent, not from when a
    // pooled connection went idle.
    config.reset_reader_on_write = true;
    Ok((config, kube_user))
}

/// Connects as kubectl would: `--kubeconfig`, else `KUBECONFIG` (several
/// paths, merged), else `~/.kube/config`, else in-cluster; `--context`,
/// `--cluster`, `--user`, `--as`, `--as-group` and `--request-timeout`
/// applied. Makes no request.
pub async fn connect(global: &GlobalArgs) -> Result<Live> {
    let home_config = std::env::home_dir()
        .map(|home| home.join(".kube").join("config"))
        .filter(|p| p.exists());
    let env = std::env::var_os("KUBECONFIG");
    let source = config_source(global.kubeconfig.as_deref(), env.as_deref(), home_config);
    connect_with(global, &source).await
}

pub(crate) async fn connect_with(global: &GlobalArgs, source: &ConfigSource) -> Result<Live> {
    let (config, kube_user) = client_config(global, source).await?;
    let server = config.cluster_url.to_string();
    let default_namespace = config.default_namespace.clone();
    let mut watch_config = config.clone();
    watch_config.read_timeout = None;
    let build = |config: Config| {
        kube::Client::try_from(config).map_err(|e| map_error(e, "connect", "", None, &server))
    };
    Ok(Live {
        client: build(config)?,
        watch_client: build(watch_config)?,
        default_namespace,
        kube_user,
        server: server.trim_end_matches('/').to_string(),
    })
}

/// A label value or object name that a selector can carry as it is.
fn selector_safe(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}

/// Reads every object the classifier needs: exactly one LIST per kind
/// (valkeyclusters, valkeynodes, statefulsets, deployments, pods, events),
/// all at once, never a GET per node. `namespace` `None` is every namespace;
/// `cluster` narrows to one ValkeyCluster by its name and the
/// `valkey.io/cluster` label (without it: every object with that label).
pub async fn read(live: &Live, namespace: Option<&str>, cluster: Option<&str>) -> Result<Snapshot> {
    if let Some(cluster) = cluster
        && !selector_safe(cluster)
    {
        return Err(Error::Usage(format!(
            "`{cluster}` is not a ValkeyCluster name (names are lower-case letters, digits, `-` and `.`)"
        )));
    }
    let labelled = ListParams::default().labels(&match cluster {
        Some(c) => format!("{}={c}", keys::LABEL_CLUSTER),
        None => keys::LABEL_CLUSTER.to_string(),
    });
    let clusters = match cluster {
        Some(c) => ListParams::default().fields(&format!("metadata.name={c}")),
        None => ListParams::default(),
    };
    let events =
        ListParams::default().fields(&format!("involvedObject.apiVersion={VALKEY_API_VERSION}"));
    let (a, b, c, d, e, f) = futures::try_join!(
        list::<ValkeyCluster>(live, namespace, &clusters),
        list::<ValkeyNode>(live, namespace, &labelled),
        list::<StatefulSet>(live, namespace, &labelled),
        list::<Deployment>(live, namespace, &labelled),
        list::<Pod>(live, namespace, &labelled),
        list::<Event>(live, namespace, &events),
    )?;
    let mut snapshot = Snapshot::default();
    for part in [a, b, c, d, e, f] {
        snapshot.clusters.extend(part.clusters);
        snapshot.nodes.extend(part.nodes);
        snapshot.stateful_sets.extend(part.stateful_sets);
        snapshot.deployments.extend(part.deployments);
        snapshot.pods.extend(part.pods);
        snapshot.events.extend(part.events);
    }
    snapshot.normalize();
    Ok(snapshot)
}

/// The events about one pod (kubelet's BackOff, Failed, Killing...), which
/// `explain` adds to a node's timeline. One LIST.
pub async fn pod_events(live: &Live, namespace: &str, pod: &str) -> Result<Vec<Event>> {
    if !selector_safe(pod) {
        return Ok(Vec::new());
    }
    let lp = ListParams::default().fields(&format!(
        "involvedObject.kind=Pod,involvedObject.name={pod}"
    ));
    let mut snapshot = list::<Event>(live, Some(namespace), &lp).await?;
    snapshot.normalize();
    Ok(snapshot.events)
}

/// One logical LIST of a kind. Without a `limit` the API server answers in
/// one response; a `continue` token is followed should one come anyway.
async fn list<K>(live: &Live, namespace: Option<&str>, params: &ListParams) -> Result<Snapshot>
where
    K: Resource<DynamicType = ()>,
{
    let resource = K::plural(&()).to_string();
    let url = K::url_path(&(), namespace);
    let source_name = format!("the API server's list of {resource}");
    let mut params = params.clone();
    let mut snapshot = Snapshot::default();
    for page in 1usize.. {
        let request = kube::core::Request::new(url.clone())
            .list(&params)
            .map_err(|e| Error::Other(format!("cannot build the list of {resource}: {e}")))?;
        let text = live
            .client
            .request_text(request)
            .await
            .map_err(|e| live.error(e, "list", &resource, namespace))?;
        let value: Value = serde_json::from_str(&text).map_err(|e| Error::Api {
            verb: "list".into(),
            resource: resource.clone(),
            status: 200,
            message: format!("the answer is not JSON: {e}"),
        })?;
        file::add_value(&mut snapshot, &value, &page.to_string(), &source_name)?;
        match value
            .pointer("/metadata/continue")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            Some(token) => params = params.continue_token(token),
            None => break,
        }
    }
    Ok(snapshot)
}

/// The user the API server knows (a SelfSubjectReview), else the
/// kubeconfig's user where that API is unavailable, else `unknown`.
pub async fn who_am_i(live: &Live) -> String {
    let api: Api<SelfSubjectReview> = Api::all(live.client.clone());
    let reviewed = api
        .create(&PostParams::default(), &SelfSubjectReview::default())
        .await
        .ok()
        .and_then(|r| r.status?.user_info?.username)
        .filter(|u| !u.is_empty());
    reviewed
        .or_else(|| live.kube_user.clone())
        .unwrap_or_else(|| "unknown".to_string())
}

/// Maps a client error to what a person can act on. `verb` and `resource`
/// name the request (`list`, `valkeynodes`); `namespace` `None` is every
/// namespace. [`Live::error`] also names the server when it is unreachable.
pub fn api_error(err: kube::Error, verb: &str, resource: &str, namespace: Option<&str>) -> Error {
    map_error(err, verb, resource, namespace, "the API server")
}

fn is_valkey_resource(resource: &str) -> bool {
    let plural = resource.split('.').next().unwrap_or(resource);
    matches!(plural, "valkeyclusters" | "valkeynodes")
}

fn map_error(
    err: kube::Error,
    verb: &str,
    resource: &str,
    namespace: Option<&str>,
    server: &str,
) -> Error {
    match err {
        kube::Error::Api(status) => {
            let message = if status.message.is_empty() {
                status.reason.clone()
            } else {
                status.message.clone()
            };
            // A missing resource type answers 404 without naming an object;
            // a missing object names itself in the details.
            let names_object = status.details.as_ref().is_some_and(|d| !d.name.is_empty());
            match status.code {
                401 => Error::Unauthorized { message },
                403 => Error::Forbidden {
                    verb: verb.to_string(),
                    resource: resource.to_string(),
                    namespace: namespace.map(str::to_string),
                    message,
                },
                404 if is_valkey_resource(resource)
                    && (matches!(verb, "list" | "watch") || !names_object) =>
                {
                    let plural = resource.split('.').next().unwrap_or(resource);
                    Error::CrdMissing {
                        crd: format!("{plural}.valkey.io"),
                    }
                }
                code => Error::Api {
                    verb: verb.to_string(),
                    resource: resource.to_string(),
                    status: code,
                    message,
                },
            }
        }
        kube::Error::HyperError(_) | kube::Error::Service(_) => {
            let timed_out = source_chain(&err as &(dyn std::error::Error + 'static)).any(|e| {
                e.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
                    || e.to_string().contains("timed out")
            });
            let chain = error_chain(&err);
            Error::Unreachable {
                server: server.to_string(),
                problem: if timed_out {
                    format!("no answer within --request-timeout ({chain})")
                } else {
                    chain
                },
            }
        }
        kube::Error::Auth(_) | kube::Error::RustlsTls(_) | kube::Error::InferKubeconfig(_) => {
            kubeconfig_error(format!("cannot set up credentials: {}", error_chain(&err)))
        }
        other => Error::Api {
            verb: verb.to_string(),
            resource: resource.to_string(),
            status: 0,
            message: error_chain(&other),
        },
    }
}

fn source_chain<'a>(
    err: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(err), |e| e.source())
}

/// An error and its causes on one line, without repeating a cause that the
/// message above it already quotes.
fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = String::new();
    for e in source_chain(err) {
        let part = e.to_string();
        if part.is_empty() || text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}
