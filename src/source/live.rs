//! Reading a snapshot from a cluster: one LIST per kind, concurrently.
//!
//! The responses are converted by the same code as a snapshot file
//! ([`super::file`]), so a live read and `kubectl get ... -o yaml` of the
//! same objects give the same [`Snapshot`], and an object that breaks the
//! schema is reported with its kind, name and field either way.

use super::credentials::Credentials;
use super::file;
use super::requests;
use super::select::{Kind, check_cluster_name, selector_safe, selectors};
use crate::error::{Error, Result};
use crate::snapshot::{Snapshot, ValkeyCluster, ValkeyNode};
use k8s_openapi::api::apps::v1::{Deployment, StatefulSet};
use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use k8s_openapi::api::core::v1::{Event, Pod};

use kube::api::{Api, ListParams, PostParams};
use kube::config::{Config, KubeConfigOptions, Kubeconfig};
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// How to reach the API server and as whom, in kubectl's terms
/// (`--kubeconfig`, `--context`, `--cluster`, `--user`, `--as`,
/// `--as-group`, `--request-timeout`). The commands build it from their
/// flags; [`connect`] reads nothing else but the environment's
/// `KUBECONFIG` and `~/.kube/config`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Access {
    /// A kubeconfig file, in place of `KUBECONFIG` and `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// The context, else the kubeconfig's current one.
    pub context: Option<String>,
    /// The kubeconfig's cluster entry, else the context's.
    pub kube_cluster: Option<String>,
    /// The kubeconfig's user entry, else the context's.
    pub user: Option<String>,
    /// Act as this user.
    pub impersonate: Option<String>,
    /// Act as these groups.
    pub impersonate_groups: Vec<String>,
    /// Time limit of each request but watches; zero: none.
    pub request_timeout: std::time::Duration,
}

/// A connection to one API server, as the kubeconfig and flags chose it.
#[derive(Clone)]
pub(crate) struct Live {
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
    /// The kubeconfig context in use (`--context`, else the current one);
    /// `None` in a pod, or when the kubeconfig names none. `bundle` records it.
    pub context: Option<String>,
    /// For watch streams only: the same connection settings without a read
    /// timeout. A watch with no change sends nothing for minutes, and a
    /// read timeout would cut it; kube's watcher has its own idle timeout
    /// (the server-side watch timeout plus a margin) and reconnects. The
    /// LIST a watcher starts with is bounded by [`Live::request_timeout`]
    /// in `watch.rs` instead.
    pub watch_client: kube::Client,
    /// `--request-timeout` (`None`: 0, no limit).
    pub request_timeout: Option<std::time::Duration>,
    /// The kubeconfig file, user and cluster entry, and what the user
    /// authenticates with: named when the server rejects them.
    pub credentials: Credentials,
    /// The renewal of a credential plugin's token, while a connection
    /// that uses it lives.
    _renewal: Option<std::sync::Arc<Renewal>>,
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
    pub(crate) fn error(
        &self,
        err: kube::Error,
        verb: &str,
        resource: &str,
        namespace: Option<&str>,
    ) -> Error {
        map_error(
            err,
            verb,
            resource,
            namespace,
            &self.server,
            Some(&self.credentials),
        )
    }

    /// The names of the ValkeyClusters in `namespace` (every namespace:
    /// None), for "did you mean"; empty when they cannot be listed.
    pub(crate) async fn cluster_names(&self, namespace: Option<&str>) -> Vec<String> {
        let api: Api<ValkeyCluster> = match namespace {
            Some(ns) => Api::namespaced(self.client.clone(), ns),
            None => Api::all(self.client.clone()),
        };
        api.list(&ListParams::default())
            .await
            .map(|list| list.items.iter().map(|c| c.name().to_string()).collect())
            .unwrap_or_default()
    }

    /// The names of the namespaces the user may list (their metadata only),
    /// for completion; None when they cannot be listed.
    pub(crate) async fn namespace_names(&self) -> Option<Vec<String>> {
        let api: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(self.client.clone());
        let list = api.list_metadata(&ListParams::default()).await.ok()?;
        Some(
            list.items
                .into_iter()
                .filter_map(|n| n.metadata.name)
                .collect(),
        )
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

impl ConfigSource {
    /// The kubeconfig file(s) as an error message names them; `None` in a
    /// pod.
    pub(crate) fn files(&self) -> Option<String> {
        match self {
            ConfigSource::Flag(p) | ConfigSource::Home(p) => Some(p.display().to_string()),
            ConfigSource::Env(paths) => Some(
                paths
                    .iter()
                    .filter(|p| p.exists())
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(":"),
            ),
            ConfigSource::InCluster => None,
        }
    }
}

/// A kubeconfig problem that names the file(s) it is in.
fn in_files(source: &ConfigSource, problem: impl std::fmt::Display) -> Error {
    let problem = problem.to_string();
    match source.files() {
        Some(files) if !files.is_empty() && !problem.contains(&files) => {
            kubeconfig_error(format!("{files}: {problem}"))
        }
        _ => kubeconfig_error(problem),
    }
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
        Kubeconfig::read_from(path).map_err(|e| {
            // A YAML error quotes the file over several lines: its first
            // line has the position, which is enough on one line.
            let problem = error_chain(&e)
                .lines()
                .next()
                .unwrap_or_default()
                .to_string();
            let shown = path.display().to_string();
            // Some of kube's messages name the file already.
            kubeconfig_error(if problem.contains(&shown) {
                problem
            } else {
                format!("{shown}: {problem}")
            })
        })
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

fn kube_options(access: &Access) -> KubeConfigOptions {
    KubeConfigOptions {
        context: access.context.clone(),
        cluster: access.kube_cluster.clone(),
        user: access.user.clone(),
    }
}

/// `--user` and `--cluster` must name entries of the kubeconfig, as kubectl
/// insists; kube would otherwise fall back to an empty user silently.
fn check_named_entries(kubeconfig: &Kubeconfig, options: &KubeConfigOptions) -> Result<()> {
    if let Some(user) = &options.user
        && !kubeconfig.auth_infos.iter().any(|a| &a.name == user)
    {
        return Err(kubeconfig_error(format!(
            "auth info \"{user}\" does not exist"
        )));
    }
    if let Some(cluster) = &options.cluster
        && !kubeconfig.clusters.iter().any(|c| &c.name == cluster)
    {
        return Err(kubeconfig_error(format!(
            "cluster \"{cluster}\" does not exist"
        )));
    }
    // The context's own entries must exist too, as kubectl checks: kube
    // would go on without credentials and the server would answer as
    // `system:anonymous`, which names nothing the person can fix.
    if let (Some(name), Some(context)) = (
        context_name(kubeconfig, options),
        chosen_context(kubeconfig, options),
    ) {
        if options.user.is_none()
            && let Some(user) = context.user.as_deref().filter(|u| !u.is_empty())
            && !kubeconfig.auth_infos.iter().any(|a| a.name == user)
        {
            return Err(kubeconfig_error(format!(
                "user \"{user}\" was not found for context \"{name}\""
            )));
        }
        if options.cluster.is_none()
            && !context.cluster.is_empty()
            && !kubeconfig
                .clusters
                .iter()
                .any(|c| c.name == context.cluster)
        {
            return Err(kubeconfig_error(format!(
                "cluster \"{}\" was not found for context \"{name}\"",
                context.cluster
            )));
        }
    }
    Ok(())
}

/// The name of the context the connection uses: `--context`, else the
/// kubeconfig's current one.
fn context_name<'k>(kubeconfig: &'k Kubeconfig, options: &'k KubeConfigOptions) -> Option<&'k str> {
    options
        .context
        .as_deref()
        .or(kubeconfig.current_context.as_deref())
}

/// That context's entry (its cluster and user), when the kubeconfig has it.
fn chosen_context<'k>(
    kubeconfig: &'k Kubeconfig,
    options: &'k KubeConfigOptions,
) -> Option<&'k kube::config::Context> {
    let name = context_name(kubeconfig, options)?;
    kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == name)?
        .context
        .as_ref()
}

/// The kubeconfig's cluster entry for the chosen context (or `--cluster`).
fn kubeconfig_cluster(kubeconfig: &Kubeconfig, options: &KubeConfigOptions) -> Option<String> {
    if let Some(cluster) = &options.cluster {
        return Some(cluster.clone());
    }
    Some(chosen_context(kubeconfig, options)?.cluster.clone()).filter(|c| !c.is_empty())
}

/// The kubeconfig's user name for the chosen context (or `--user`).
pub(crate) fn kubeconfig_user(
    kubeconfig: &Kubeconfig,
    options: &KubeConfigOptions,
) -> Option<String> {
    if let Some(user) = &options.user {
        return Some(user.clone());
    }
    chosen_context(kubeconfig, options)?
        .user
        .clone()
        .filter(|u| !u.is_empty())
}

/// An environment variable, `None` when unset or empty.
fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The proxy to reach `server` through, as kubectl chooses it: the
/// cluster entry's `proxy-url` whenever it is set; else the environment's
/// `HTTPS_PROXY` (for an `https` server) or `HTTP_PROXY` (for `http`), in
/// capitals or not, unless the server is `localhost` or a loopback
/// address, or `NO_PROXY` covers it (`*`; an address or CIDR range; a
/// name, which covers its subdomains too, with a leading `.` or `*.` or
/// not; each with a `:port` or not). A proxy without a scheme is `http://`.
/// kube's own choice reads `HTTPS_PROXY` alone and matches `NO_PROXY`
/// against the proxy, not the server, so it is replaced by this one.
fn proxy_for(
    server: &http::Uri,
    proxy_url: Option<&str>,
    env: impl Fn(&str) -> Option<String>,
) -> std::result::Result<Option<http::Uri>, String> {
    let parse = |text: &str, what: &str| {
        let text = text.trim();
        let text = if text.contains("://") {
            text.to_string()
        } else {
            format!("http://{text}")
        };
        text.parse::<http::Uri>()
            .map(Some)
            .map_err(|e| format!("{what} {text:?} is not a URL: {e}"))
    };
    if let Some(url) = proxy_url.filter(|u| !u.trim().is_empty()) {
        return parse(url, "proxy-url");
    }
    let https = server.scheme_str() == Some("https");
    let names: [&str; 2] = if https {
        ["HTTPS_PROXY", "https_proxy"]
    } else {
        ["HTTP_PROXY", "http_proxy"]
    };
    let Some((name, proxy)) = names.iter().find_map(|n| env(n).map(|value| (*n, value))) else {
        return Ok(None);
    };
    let host = server
        .host()
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    let ip = host.parse::<std::net::IpAddr>().ok();
    if host == "localhost" || ip.is_some_and(|ip| ip.is_loopback()) {
        return Ok(None);
    }
    let port = server.port_u16().unwrap_or(if https { 443 } else { 80 });
    if let Some(no_proxy) = env("NO_PROXY").or_else(|| env("no_proxy"))
        && no_proxy
            .split(',')
            .map(|p| p.trim().to_ascii_lowercase())
            .filter(|p| !p.is_empty())
            .any(|p| no_proxy_covers(&p, &host, ip, port))
    {
        return Ok(None);
    }
    parse(&proxy, name)
}

/// One `NO_PROXY` entry covers the server `host` (`ip` when it is an
/// address) on `port`.
fn no_proxy_covers(entry: &str, host: &str, ip: Option<std::net::IpAddr>, port: u16) -> bool {
    if entry == "*" {
        return true;
    }
    if let Some((net, bits)) = entry.split_once('/') {
        let (Ok(net), Ok(bits), Some(ip)) =
            (net.parse::<std::net::IpAddr>(), bits.parse::<u32>(), ip)
        else {
            return false;
        };
        return match (net, ip) {
            (std::net::IpAddr::V4(n), std::net::IpAddr::V4(a)) if bits <= 32 => {
                let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
                u32::from(n) & mask == u32::from(a) & mask
            }
            (std::net::IpAddr::V6(n), std::net::IpAddr::V6(a)) if bits <= 128 => {
                let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
                u128::from(n) & mask == u128::from(a) & mask
            }
            _ => false,
        };
    }
    if let Ok(entry_ip) = entry.trim_start_matches('[').trim_end_matches(']').parse() {
        return ip == Some(entry_ip);
    }
    // `name:port`: the port must match too.
    let (name, entry_port) = match entry.rsplit_once(':') {
        Some((name, p)) if !name.contains(':') => match p.parse::<u16>() {
            Ok(p) => (name, Some(p)),
            Err(_) => return false,
        },
        _ => (entry, None),
    };
    if entry_port.is_some_and(|p| p != port) {
        return false;
    }
    let name = name.trim_start_matches('*');
    match name.strip_prefix('.') {
        Some(bare) => host == bare || host.ends_with(name),
        None => host == name || host.ends_with(&format!(".{name}")),
    }
}

/// A token that cannot be sent as an HTTP header (a control character in
/// it: `token: |` in YAML keeps a line break at its end) is an error
/// naming the user entry, as kubectl's "invalid header field value" is;
/// kube would panic on it when the client is built.
fn check_token(auth: &kube::config::AuthInfo, user: Option<&str>) -> Result<()> {
    use secrecy::ExposeSecret;
    match &auth.token {
        Some(token) if !super::exec::header_safe(token.expose_secret()) => {
            Err(kubeconfig_error(format!(
                "the token{} cannot be sent: it holds a control character (a line break at its end, as `token: |` in YAML leaves, is one)",
                user.map(|u| format!(" of user \"{u}\""))
                    .unwrap_or_default()
            )))
        }
        _ => Ok(()),
    }
}

/// Builds the client configuration: kubeconfig (or in-cluster), then the
/// flags that override it. Makes no request.
#[cfg(test)]
pub(crate) async fn client_config(
    access: &Access,
    source: &ConfigSource,
) -> Result<(Config, Option<String>)> {
    client_config_with_cluster(access, source)
        .await
        .map(|(config, user, ..)| (config, user))
}

/// [`client_config`], with the kubeconfig's cluster entry and the context
/// it used too. Every kubeconfig problem names the file it is in.
async fn client_config_with_cluster(
    access: &Access,
    source: &ConfigSource,
) -> Result<(
    Config,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<Plugin>,
)> {
    let options = kube_options(access);
    let mut context = None;
    let (mut config, mut kube_user, cluster) = match read_kubeconfig(source)? {
        Some(kubeconfig) => {
            check_named_entries(&kubeconfig, &options).map_err(|e| match e {
                Error::Kubeconfig { problem } => in_files(source, problem),
                other => other,
            })?;
            context = context_name(&kubeconfig, &options)
                .filter(|c| !c.is_empty())
                .map(str::to_string);
            let user = kubeconfig_user(&kubeconfig, &options);
            let cluster = kubeconfig_cluster(&kubeconfig, &options);
            let proxy_url = cluster.as_ref().and_then(|name| {
                kubeconfig
                    .clusters
                    .iter()
                    .find(|c| &c.name == name)?
                    .cluster
                    .as_ref()?
                    .proxy_url
                    .clone()
            });
            let mut config = Config::from_custom_kubeconfig(kubeconfig, &options)
                .await
                .map_err(|e| in_files(source, error_chain(&e)))?;
            config.proxy_url = proxy_for(&config.cluster_url, proxy_url.as_deref(), env_var)
                .map_err(|e| in_files(source, e))?;
            check_token(&config.auth_info, user.as_deref()).map_err(|e| match e {
                Error::Kubeconfig { problem } => in_files(source, problem),
                other => other,
            })?;
            (config, user, cluster)
        }
        None => {
            let config = Config::incluster().map_err(|e| {
                kubeconfig_error(format!(
                    "no kubeconfig (--kubeconfig, KUBECONFIG or ~/.kube/config) and not running in a pod ({}). To read a snapshot without a cluster, give it with -f FILE (kubectl get ... -o yaml, or a bundle)",
                    error_chain(&e)
                ))
            })?;
            let mut config = config;
            config.proxy_url =
                proxy_for(&config.cluster_url, None, env_var).map_err(kubeconfig_error)?;
            (config, None, None)
        }
    };
    // The kubeconfig's user entry, before `--as` names another.
    let context_user = kube_user.clone();
    if let Some(user) = &access.impersonate {
        config.auth_info.impersonate = Some(user.clone());
        kube_user = Some(user.clone());
    }
    if !access.impersonate_groups.is_empty() {
        config.auth_info.impersonate_groups = Some(access.impersonate_groups.clone());
    }
    // kubectl's --request-timeout=0 means no limit.
    let timeout = Some(access.request_timeout).filter(|t| !t.is_zero());
    config.connect_timeout = timeout;
    config.write_timeout = timeout;
    config.read_timeout = timeout;
    // Count the read timeout from when the request is sent, not from when a
    // pooled connection went idle.
    config.reset_reader_on_write = true;
    // A credential plugin is run here, off the async workers and bounded
    // (super::exec), never by kube, which runs it unbounded on a worker
    // when the client is built. kube uses it only when nothing before it
    // in its order (provider, password, token, token file) is given.
    let exec = config.auth_info.exec.take();
    let plugin = match exec {
        Some(exec)
            if config.auth_info.auth_provider.is_none()
                && config.auth_info.username.is_none()
                && config.auth_info.token.is_none()
                && config.auth_info.token_file.is_none() =>
        {
            let user = context_user.clone();
            let minted = super::exec::mint(&exec, timeout, user.as_deref())
                .await
                .map_err(|e| match e {
                    Error::Kubeconfig { problem } => in_files(source, problem),
                    other => other,
                })?;
            if let Some((cert, key)) = &minted.certificate {
                use base64::Engine;
                let b64 = base64::engine::general_purpose::STANDARD;
                config.auth_info.client_certificate_data = Some(b64.encode(cert));
                config.auth_info.client_key_data = Some(b64.encode(key).into());
            }
            Some(Plugin {
                exec,
                user,
                limit: timeout,
                minted,
            })
        }
        _ => None,
    };
    Ok((config, kube_user, cluster, context, plugin))
}

/// A credential plugin that gave the connection its credential.
pub(crate) struct Plugin {
    exec: kube::config::ExecConfig,
    user: Option<String>,
    limit: Option<std::time::Duration>,
    minted: super::exec::Minted,
}

/// The task that renews a plugin's token before it expires; stopped when
/// the last connection that uses it is dropped.
struct Renewal(tokio::task::JoinHandle<()>);

impl Drop for Renewal {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// `Bearer TOKEN`, marked sensitive; `None` when it cannot be a header
/// (the plugin's token was checked, so never).
fn bearer(token: &str) -> Option<http::HeaderValue> {
    let mut value = http::HeaderValue::try_from(format!("Bearer {token}")).ok()?;
    value.set_sensitive(true);
    Some(value)
}

/// Renews `plugin`'s token a minute before it expires, into `cell`; a
/// failed run is tried again 10 s later (meanwhile the old token stands,
/// and the server says when it is no longer accepted).
async fn renew(mut plugin: Plugin, cell: requests::Bearer) {
    loop {
        let Some(expires) = plugin.minted.expires else {
            return;
        };
        let wait = jiff::Timestamp::now()
            .duration_until(expires)
            .checked_sub(jiff::SignedDuration::from_secs(60))
            .and_then(|d| std::time::Duration::try_from(d).ok())
            .unwrap_or(std::time::Duration::from_secs(1));
        tokio::time::sleep(wait).await;
        match super::exec::mint(&plugin.exec, plugin.limit, plugin.user.as_deref()).await {
            Ok(minted) => {
                if let Some(value) = minted.token.as_deref().and_then(bearer) {
                    *cell.lock().unwrap_or_else(|p| p.into_inner()) = value;
                }
                plugin.minted = minted;
            }
            Err(_) => {
                plugin.minted.expires = Some(
                    jiff::Timestamp::now()
                        .checked_add(jiff::SignedDuration::from_secs(70))
                        .unwrap_or(expires),
                );
            }
        }
    }
}

/// Connects as kubectl would: `--kubeconfig`, else `KUBECONFIG` (several
/// paths, merged), else `~/.kube/config`, else in-cluster; `--context`,
/// `--cluster`, `--user`, `--as`, `--as-group` and `--request-timeout`
/// applied. Makes no request.
pub(crate) async fn connect(access: &Access) -> Result<Live> {
    let home_config = std::env::home_dir()
        .map(|home| home.join(".kube").join("config"))
        .filter(|p| p.exists());
    let env = std::env::var_os("KUBECONFIG");
    let source = config_source(access.kubeconfig.as_deref(), env.as_deref(), home_config);
    connect_with(access, &source).await
}

/// Every context of the kubeconfig (`--all-contexts`), in its order, from
/// the same files `connect` reads (`kubeconfig`: `--kubeconfig`). In a pod
/// (no kubeconfig) there is none.
pub(crate) fn kubeconfig_contexts(kubeconfig: Option<&Path>) -> Result<Vec<String>> {
    let home_config = std::env::home_dir()
        .map(|home| home.join(".kube").join("config"))
        .filter(|p| p.exists());
    let env = std::env::var_os("KUBECONFIG");
    let source = config_source(kubeconfig, env.as_deref(), home_config);
    Ok(read_kubeconfig(&source)?
        .map(|kubeconfig| {
            kubeconfig
                .contexts
                .into_iter()
                .map(|c| c.name)
                .filter(|name| !name.is_empty())
                .collect()
        })
        .unwrap_or_default())
}

pub(crate) async fn connect_with(access: &Access, source: &ConfigSource) -> Result<Live> {
    let (config, kube_user, cluster, context, plugin) =
        client_config_with_cluster(access, source).await?;
    let mut credentials = Credentials::of(
        &config.auth_info,
        source.files(),
        kube_user.clone(),
        cluster,
    );
    let mut bearer_cell = None;
    let mut renewal = None;
    if let Some(plugin) = plugin {
        credentials.kind = super::credentials::CredentialKind::Plugin;
        if let Some(value) = plugin.minted.token.as_deref().and_then(bearer) {
            let cell: requests::Bearer = std::sync::Arc::new(std::sync::Mutex::new(value));
            bearer_cell = Some(cell.clone());
            if plugin.minted.expires.is_some() {
                renewal = Some(std::sync::Arc::new(Renewal(tokio::spawn(renew(
                    plugin, cell,
                )))));
            }
        }
    }
    let request_timeout = config.read_timeout;
    let server = config.cluster_url.to_string();
    let default_namespace = config.default_namespace.clone();
    let mut watch_config = config.clone();
    watch_config.read_timeout = None;
    let build = |config: Config, slim_lists: bool| {
        kube::client::ClientBuilder::try_from(config)
            .map(|b| {
                b.with_layer(&requests::Logged {
                    server: server.clone(),
                    timeout: request_timeout,
                    bearer: bearer_cell.clone(),
                    slim_lists,
                })
                .build()
            })
            .map_err(|e| map_error(e, "connect", "", None, &server, Some(&credentials)))
    };
    Ok(Live {
        client: build(config, false)?,
        // The watch's LISTs slimmed as they arrive: kube's watcher reads
        // each page whole, and a server that ignores `limit` answers the
        // whole kind in one page (issue 42).
        watch_client: build(watch_config, true)?,
        default_namespace,
        kube_user,
        server: server.trim_end_matches('/').to_string(),
        request_timeout,
        credentials,
        context,
        _renewal: renewal,
    })
}

/// Reads every object the classifier needs: exactly one LIST per kind
/// (valkeyclusters, valkeynodes, statefulsets, deployments, pods, events),
/// all at once, never a GET per node. `namespace` `None` is every namespace;
/// `cluster` narrows to one ValkeyCluster by its name and the
/// `valkey.io/cluster` label (without it: every object with that label),
/// except ValkeyNodes, listed whole and kept by label or owner reference.
/// Any kind that cannot be listed is an error: steering and `wait` decide
/// nothing on a partial view.
pub(crate) async fn read(
    live: &Live,
    namespace: Option<&str>,
    cluster: Option<&str>,
) -> Result<Snapshot> {
    Ok(read_all(live, namespace, cluster, Mode::Strict)
        .await?
        .snapshot)
}

/// A kind a partial read left out, and why (plain data of the snapshot).
pub(crate) use crate::snapshot::Unread;

/// [`read`], for the commands that only show: a kind the user may not list
/// (403) is left out and named in the second value, so what can still be
/// judged is shown, marked partial. The ValkeyNodes are the roll itself:
/// without them nothing can be judged, and their 403 is an error. Any
/// other error (unreachable, a missing CRD) is an error.
///
/// A namespace with nothing in it is asked for once more (one GET): a LIST
/// in a namespace that does not exist answers an empty list, and "nothing
/// found" would hide a typo in `-n`.
pub(crate) async fn read_partial(
    live: &Live,
    namespace: Option<&str>,
    cluster: Option<&str>,
) -> Result<(Snapshot, Vec<Unread>)> {
    let read = read_all(live, namespace, cluster, Mode::Partial).await?;
    Ok((read.snapshot, read.unread))
}

/// What [`read`] lists, kept twice: as the [`Snapshot`] every command
/// judges, and as the objects the API server answered (JSON, each with its
/// `apiVersion` and `kind`, managedFields and all) for `bundle`. The
/// objects are exactly those the snapshot was made from: for a named
/// cluster, only its ValkeyNodes.
#[derive(Debug, Clone)]
pub(crate) struct RawRead {
    pub snapshot: Snapshot,
    /// One entry per kind, in [`Kind::ALL`]'s order, in the answer's order
    /// (empty unless asked for by [`read_raw`]).
    pub objects: Vec<(Kind, Vec<Value>)>,
    /// The kinds a partial read left out.
    pub unread: Vec<Unread>,
}

/// [`read`], keeping the raw objects as well: the same six LISTs.
pub(crate) async fn read_raw(
    live: &Live,
    namespace: Option<&str>,
    cluster: Option<&str>,
) -> Result<RawRead> {
    read_all(live, namespace, cluster, Mode::Raw).await
}

/// How [`read_all`] reads: strictly (any error is the answer), partially
/// (a forbidden kind other than ValkeyNodes is left out), or strictly and
/// keeping the raw objects (only `bundle` pays for them).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Strict,
    Partial,
    Raw,
}

async fn read_all(
    live: &Live,
    namespace: Option<&str>,
    cluster: Option<&str>,
    mode: Mode,
) -> Result<RawRead> {
    check_cluster_name(cluster)?;
    let keep_raw = mode == Mode::Raw;
    let params = |kind| {
        let (label_selector, field_selector) = selectors(kind, cluster);
        ListParams {
            label_selector,
            field_selector,
            ..ListParams::default()
        }
    };
    // All six run to their end (no early exit on the first error), so the
    // error reported is the first in this order, whatever the timing.
    let (a, b, c, d, e, f) = futures::join!(
        list::<ValkeyCluster>(live, namespace, params(Kind::ValkeyClusters), keep_raw),
        list::<ValkeyNode>(live, namespace, params(Kind::ValkeyNodes), keep_raw),
        list::<StatefulSet>(live, namespace, params(Kind::StatefulSets), keep_raw),
        list::<Deployment>(live, namespace, params(Kind::Deployments), keep_raw),
        list::<Pod>(live, namespace, params(Kind::Pods), keep_raw),
        list::<Event>(live, namespace, params(Kind::Events), keep_raw),
    );
    let mut snapshot = Snapshot::default();
    let mut unread = Vec::new();
    let mut objects = Vec::new();
    let parts = [
        ("valkeyclusters", a),
        ("valkeynodes", b),
        ("statefulsets", c),
        ("deployments", d),
        ("pods", e),
        ("events", f),
    ];
    let mut first_error = None;
    for (kind, (resource, part)) in Kind::ALL.into_iter().zip(parts) {
        match part {
            Ok((part, raw)) => {
                snapshot.clusters.extend(part.clusters);
                snapshot.nodes.extend(part.nodes);
                snapshot.stateful_sets.extend(part.stateful_sets);
                snapshot.deployments.extend(part.deployments);
                snapshot.pods.extend(part.pods);
                snapshot.events.extend(part.events);
                objects.push((kind, raw));
            }
            Err(error @ Error::Forbidden { .. })
                if mode == Mode::Partial && resource != "valkeynodes" =>
            {
                unread.push(Unread {
                    resource: resource.to_string(),
                    error: error.to_string(),
                });
            }
            Err(error) => {
                first_error.get_or_insert(error);
            }
        }
    }
    if let Some(error) = first_error {
        return Err(error);
    }
    if let Some(cluster) = cluster {
        snapshot.retain_nodes_of(cluster);
        // The raw ValkeyNodes follow: keep those the snapshot kept.
        let kept: std::collections::BTreeSet<(Option<&str>, Option<&str>)> = snapshot
            .nodes
            .iter()
            .map(|n| (n.metadata.namespace.as_deref(), n.metadata.name.as_deref()))
            .collect();
        fn key(v: &Value) -> (Option<&str>, Option<&str>) {
            (
                Some(
                    v.pointer("/metadata/namespace")
                        .and_then(Value::as_str)
                        .filter(|ns| !ns.is_empty())
                        .unwrap_or("default"),
                ),
                v.pointer("/metadata/name").and_then(Value::as_str),
            )
        }
        for (kind, raw) in &mut objects {
            if *kind == Kind::ValkeyNodes {
                raw.retain(|v| kept.contains(&key(v)));
            }
        }
    }
    snapshot.normalize();
    if let Some(ns) = namespace
        && snapshot.clusters.is_empty()
        && snapshot.nodes.is_empty()
    {
        check_namespace(live, ns).await?;
    }
    Ok(RawRead {
        snapshot,
        objects,
        unread,
    })
}

/// An error when `namespace` does not exist; nothing when it does, or when
/// the user may not ask (a Role in one namespace gives no `get` on
/// namespaces: then the empty view stands as it is).
async fn check_namespace(live: &Live, namespace: &str) -> Result<()> {
    use k8s_openapi::api::core::v1::Namespace;
    let api: Api<Namespace> = Api::all(live.client.clone());
    match api.get_opt(namespace).await {
        Ok(None) => Err(Error::NamespaceMissing {
            namespace: namespace.to_string(),
        }),
        Ok(Some(_)) | Err(kube::Error::Api(_)) => Ok(()),
        Err(e) => Err(live.error(e, "get", "namespaces", None)),
    }
}

/// The events about one pod (kubelet's BackOff, Failed, Killing...), which
/// `explain` adds to a node's timeline. One LIST.
pub(crate) async fn pod_events(live: &Live, namespace: &str, pod: &str) -> Result<Vec<Event>> {
    if !selector_safe(pod) {
        return Ok(Vec::new());
    }
    let lp = ListParams::default().fields(&format!(
        "involvedObject.kind=Pod,involvedObject.name={pod}"
    ));
    let (mut snapshot, _) = list::<Event>(live, Some(namespace), lp, false).await?;
    snapshot.normalize();
    Ok(snapshot.events)
}

/// The events about the pods `pods` names (namespace, name), typed and
/// raw: what `explain` adds to a timeline live, and what `bundle` keeps so
/// `explain -f` on a bundle tells the same story. One LIST of the pod
/// events in scope (events cannot be selected by label), kept by the pod
/// they are about.
pub(crate) async fn events_of_pods(
    live: &Live,
    namespace: Option<&str>,
    pods: &std::collections::BTreeSet<(String, String)>,
) -> Result<(Vec<Event>, Vec<Value>)> {
    if pods.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let lp = ListParams::default().fields("involvedObject.kind=Pod");
    let (mut snapshot, mut raw) = list::<Event>(live, namespace, lp, true).await?;
    let about = |ns: &str, name: &str| pods.contains(&(ns.to_string(), name.to_string()));
    raw.retain(|v| {
        let s = |ptr: &str| v.pointer(ptr).and_then(Value::as_str).unwrap_or_default();
        let ns = s("/involvedObject/namespace");
        let ns = if ns.is_empty() {
            s("/metadata/namespace")
        } else {
            ns
        };
        about(ns, s("/involvedObject/name"))
    });
    snapshot.events.retain(|e| {
        let ns = e
            .involved_object
            .namespace
            .as_deref()
            .filter(|ns| !ns.is_empty())
            .or(e.metadata.namespace.as_deref())
            .unwrap_or_default();
        about(ns, e.involved_object.name.as_deref().unwrap_or_default())
    });
    snapshot.normalize();
    Ok((snapshot.events, raw))
}

/// The page size of every LIST: kubectl's own (`--chunk-size`). A page
/// of 500 pods as the operator builds them is a few MB of JSON, so memory
/// holds a page of each kind at a time, not the whole answer; a LIST of
/// fewer objects is one request, whatever their number below it.
pub(crate) const PAGE_SIZE: u32 = 500;

/// One logical LIST of `K`, page by page ([`PAGE_SIZE`]), into a snapshot
/// of slim objects ([`super::slim`]): each page is read straight from the
/// answer's bytes, and only when that cannot be done (see
/// [`super::slim::read_page`]) through a JSON value and the file reader's
/// conversion, which names a broken field. With `keep_raw`, every page goes
/// the whole way and its objects are kept as the API server answered them,
/// each given the `apiVersion` and `kind` a typed list leaves off its items
/// (for `bundle` only: every other command would hold each object twice for
/// nothing). A `continue` token that expired (410) starts the LIST again
/// in one unpaged request, as kubectl does.
async fn list<K>(
    live: &Live,
    namespace: Option<&str>,
    params: ListParams,
    keep_raw: bool,
) -> Result<(Snapshot, Vec<Value>)>
where
    K: super::slim::Direct + 'static,
{
    let paged = ListParams {
        limit: Some(PAGE_SIZE),
        ..params.clone()
    };
    match list_pages::<K>(live, namespace, paged, keep_raw).await {
        Err(Error::Api {
            status: Some(410), ..
        }) => list_pages::<K>(live, namespace, params, keep_raw).await,
        other => other,
    }
}

async fn list_pages<K>(
    live: &Live,
    namespace: Option<&str>,
    mut params: ListParams,
    keep_raw: bool,
) -> Result<(Snapshot, Vec<Value>)>
where
    K: super::slim::Direct + 'static,
{
    let api = K::api_resource();
    let resource = api.plural.clone();
    let url = <kube::api::DynamicObject as kube::Resource>::url_path(&api, namespace);
    let source_name = format!("the API server's list of {resource}");
    let mut snapshot = Snapshot::default();
    let mut raw = Vec::new();
    for page in 1usize.. {
        let request = || {
            kube::core::Request::new(url.clone())
                .list(&params)
                .map_err(|source| Error::ListRequest {
                    resource: resource.clone(),
                    source,
                })
        };
        let failed = |e| live.error(e, "list", &resource, namespace);
        // Read as it streams in; only a page the direct reading gives up
        // (rare: see super::slim::read_page) is asked for again, whole.
        let direct = if keep_raw {
            None
        } else {
            let stream = live
                .client
                .request_stream(request()?)
                .await
                .map_err(failed)?;
            stream_page::<K>(stream)
                .await
                .map_err(|e| e.map_kube(failed))?
        };
        let token = match direct {
            Some((part, token)) => {
                snapshot.extend(part);
                token
            }
            None => {
                let body = match live.client.request_stream(request()?).await {
                    Ok(stream) => read_body(stream).await,
                    Err(e) => Err(e),
                }
                .map_err(failed)?;
                // Parsed, a page of small values takes many times its text
                // (`[{},{},...]` some thirty): past the budget it is not.
                if whole_weight(&body) > WHOLE_BUDGET {
                    return Err(failed(kube::Error::ReadEvents(std::io::Error::other(
                        super::requests::Cut::TooLarge,
                    ))));
                }
                let mut value: Value = serde_json::from_slice(&body).map_err(|e| Error::Api {
                    verb: "list".into(),
                    resource: resource.clone(),
                    status: Some(200),
                    message: format!("the answer is not JSON: {e}"),
                    source: None,
                })?;
                drop(body);
                file::add_value(&mut snapshot, &value, &page.to_string(), &source_name)?;
                let token = value
                    .pointer("/metadata/continue")
                    .and_then(Value::as_str)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string);
                if let Some(Value::Array(items)) = value.get_mut("items").filter(|_| keep_raw) {
                    for mut item in items.drain(..) {
                        if let Value::Object(map) = &mut item {
                            map.insert("apiVersion".into(), Value::String(api.api_version.clone()));
                            map.insert("kind".into(), Value::String(api.kind.clone()));
                        }
                        raw.push(item);
                    }
                }
                token
            }
        };
        match token {
            Some(token) => params = params.continue_token(&token),
            None => break,
        }
    }
    Ok((snapshot, raw))
}

/// How reading a page as it streams can fail.
enum StreamFailure {
    Kube(kube::Error),
    Task(Error),
}

impl StreamFailure {
    fn map_kube(self, f: impl FnOnce(kube::Error) -> Error) -> Error {
        match self {
            StreamFailure::Kube(e) => f(e),
            StreamFailure::Task(e) => e,
        }
    }
}

/// One LIST page of `K` read straight from the answer as it streams in
/// ([`super::slim::read_page`], on a blocking thread beside the one that
/// receives it), so that a page of several MB is never held whole: the
/// objects kept are all that grow. `None`: the page must be read the
/// whole way.
async fn stream_page<K>(
    mut stream: impl futures::AsyncBufRead + Unpin,
) -> std::result::Result<Option<(Snapshot, Option<String>)>, StreamFailure>
where
    K: super::slim::Direct + 'static,
{
    use futures::AsyncBufReadExt;
    let (tx, rx) = tokio::sync::mpsc::channel::<Vec<u8>>(4);
    let parse = tokio::task::spawn_blocking(move || {
        let chunks = super::slim::Chunks::new(rx);
        super::slim::read_page_within::<K>(
            std::io::BufReader::with_capacity(64 * 1024, chunks),
            PAGE_BUDGET,
        )
    });
    let pump = async move {
        loop {
            let chunk = match stream.fill_buf().await {
                Ok([]) => return Ok(()),
                Ok(bytes) => bytes.to_vec(),
                Err(e) => return Err(e),
            };
            stream.consume_unpin(chunk.len());
            // The reader stopped early: it has its answer (it gives up).
            if tx.send(chunk).await.is_err() {
                return Ok(());
            }
        }
    };
    let (pumped, parsed) = tokio::join!(pump, parse);
    pumped.map_err(|e| StreamFailure::Kube(kube::Error::ReadEvents(e)))?;
    parsed
        .map_err(|e| {
            StreamFailure::Task(Error::Task {
                what: "the LIST page reader failed",
                source: crate::error::TaskFailure::Join(e),
            })
        })?
        .map_err(|super::slim::OverBudget| too_large())
}

/// The answer's size error, as the client's body gives it.
fn too_large() -> StreamFailure {
    StreamFailure::Kube(kube::Error::ReadEvents(std::io::Error::other(
        super::requests::Cut::TooLarge,
    )))
}

/// The most one LIST page may hold as it is read directly: its objects
/// kept and the text being read ([`super::slim::read_page_within`]). The
/// answer's own cap ([`super::requests::MAX_ANSWER_BYTES`]): so six LISTs
/// at once hold at most six times that (docs/usage.md).
const PAGE_BUDGET: usize = super::requests::MAX_ANSWER_BYTES as usize;

/// The most one LIST page read the whole way (`bundle`, or a page the
/// direct reading gives up) may weigh, its text and the JSON value it is
/// parsed into ([`whole_weight`]): twice the cap. A page of 500 pods as the
/// operator builds them (10 KB of JSON each, from shared/recordings)
/// weighs 82 MiB and takes 51 MB parsed: within the cap it would be
/// refused, which `bundle` of a cluster of that size must never be.
const WHOLE_BUDGET: usize = 2 * PAGE_BUDGET;

/// What a page's text and the JSON value parsed from it hold at most: the
/// text; for each value in it (every `[`, `,` and `:` outside a string
/// starts one, and so does the page) a value's room in its array grown by
/// doubling (32 bytes, twice) and the smallest block the allocator gives a
/// string (32); and for each object (`{`) the leaf of its
/// B-tree map, 632 bytes, which an object of one key takes whole. Held by
/// `whole_weight_is_above_what_a_parsed_page_holds` (the allocator's count).
fn whole_weight(text: &[u8]) -> usize {
    const PER_VALUE: usize = 96;
    const PER_OBJECT: usize = 640;
    let mut values = 1usize;
    let mut objects = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in text {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'{' => objects += 1,
                b'[' | b',' | b':' => values += 1,
                _ => {}
            }
        }
    }
    text.len()
        .saturating_add(values.saturating_mul(PER_VALUE))
        .saturating_add(objects.saturating_mul(PER_OBJECT))
}

/// An answer's body, read into one buffer as it streams in. kube's
/// `request_text` gathers the chunks, copies them into one buffer and that
/// into a `String`: three copies of a page of several MB at once, where
/// this holds one. A failure while the body is read is a failure to reach
/// the server, as a failed `send` is ([`map_error`]).
async fn read_body(
    mut stream: impl futures::AsyncBufRead + Unpin,
) -> std::result::Result<Vec<u8>, kube::Error> {
    use futures::AsyncBufReadExt;
    // Chunk by chunk as they come: `read_to_end` fills each new stretch of
    // its buffer with zeros first, which in a debug build made a 64 MiB
    // answer take minutes.
    let mut body = Vec::new();
    loop {
        let bytes = stream.fill_buf().await.map_err(kube::Error::ReadEvents)?;
        if bytes.is_empty() {
            return Ok(body);
        }
        // Grown by doubling, but never past the cap and this chunk: a
        // buffer of 64 MiB and more held up to twice that (issue 42).
        let need = body.len() + bytes.len();
        if need > body.capacity() {
            let cap = super::requests::MAX_ANSWER_BYTES as usize;
            let room = body.capacity().saturating_mul(2).clamp(need, cap.max(need));
            body.reserve_exact(room - body.len());
        }
        body.extend_from_slice(bytes);
        let n = bytes.len();
        stream.consume_unpin(n);
    }
}

/// The user the API server knows (a SelfSubjectReview), else the
/// kubeconfig's user where that API is unavailable, else `unknown`.
pub(crate) async fn who_am_i(live: &Live) -> String {
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
pub(crate) fn api_error(
    err: kube::Error,
    verb: &str,
    resource: &str,
    namespace: Option<&str>,
) -> Error {
    map_error(err, verb, resource, namespace, "the API server", None)
}

fn is_valkey_resource(resource: &str) -> bool {
    let plural = resource.split('.').next().unwrap_or(resource);
    matches!(plural, "valkeyclusters" | "valkeynodes")
}

/// What an API error says: its message, else its reason, cut short (an
/// error page of a proxy can be megabytes).
pub(super) fn status_message(status: &kube::core::Status) -> String {
    if status.message.is_empty() {
        cut_short(&status.reason)
    } else {
        cut_short(&status.message)
    }
}

/// The most characters of a server's words an error quotes.
const QUOTED_CHARS: usize = 500;

/// `text`, its first [`QUOTED_CHARS`] characters and `…` when longer.
fn cut_short(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

fn map_error(
    err: kube::Error,
    verb: &str,
    resource: &str,
    namespace: Option<&str>,
    server: &str,
    credentials: Option<&Credentials>,
) -> Error {
    match err {
        kube::Error::Api(status) => {
            let message = status_message(&status);
            // A missing resource type answers 404 without naming an object;
            // a missing object names itself in the details.
            let names_object = status.details.as_ref().is_some_and(|d| !d.name.is_empty());
            match status.code {
                401 => match credentials {
                    Some(c) => Error::CredentialsRejected {
                        server: server.to_string(),
                        why: c.why_rejected(jiff::Timestamp::now()),
                    },
                    None => Error::Unauthorized { message },
                },
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
                    status: Some(code),
                    message,
                    source: Some(Box::new(kube::Error::Api(status))),
                },
            }
        }
        kube::Error::HyperError(_) | kube::Error::Service(_) | kube::Error::ReadEvents(_)
            if requests::cut_in(&err).is_some() =>
        {
            match requests::cut_in(&err) {
                Some(requests::Cut::TooLarge) => Error::AnswerTooLarge {
                    server: server.to_string(),
                    verb: verb.to_string(),
                    resource: resource.to_string(),
                    limit_mib: requests::MAX_ANSWER_BYTES / (1024 * 1024),
                },
                Some(requests::Cut::Redirect { status, location }) => Error::Api {
                    verb: verb.to_string(),
                    resource: resource.to_string(),
                    status: Some(*status),
                    message: format!(
                        "a redirect{}, not followed (kubectl follows none for the API either); check the server in the kubeconfig",
                        location
                            .as_ref()
                            .map(|l| format!(" to {}", cut_short(l)))
                            .unwrap_or_default()
                    ),
                    source: None,
                },
                Some(requests::Cut::TimedOut(limit)) => Error::Unreachable {
                    server: server.to_string(),
                    problem: format!(
                        "the answer to {verb} {resource} did not end within --request-timeout ({}s)",
                        limit.as_secs_f64()
                    ),
                    source: None,
                },
                None => Error::Unreachable {
                    server: server.to_string(),
                    problem: error_chain(&err),
                    source: Some(Box::new(err)),
                },
            }
        }
        kube::Error::HyperError(_) | kube::Error::Service(_)
            if credentials.is_some() && server_not_trusted(&err) =>
        {
            let c = credentials.cloned().unwrap_or_default();
            Error::ServerNotTrusted {
                server: server.to_string(),
                cluster: c.cluster,
                kubeconfig: c.kubeconfig,
                problem: error_chain(&err),
                source: Some(Box::new(err)),
            }
        }
        kube::Error::HyperError(_) | kube::Error::Service(_) | kube::Error::ReadEvents(_) => {
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
                source: Some(Box::new(err)),
            }
        }
        kube::Error::Auth(_) | kube::Error::RustlsTls(_) | kube::Error::InferKubeconfig(_) => {
            kubeconfig_error(format!("cannot set up credentials: {}", error_chain(&err)))
        }
        other => Error::Api {
            verb: verb.to_string(),
            resource: resource.to_string(),
            status: None,
            message: error_chain(&other),
            source: Some(Box::new(other)),
        },
    }
}

/// The TLS handshake failed on the server's certificate (not signed by the
/// kubeconfig's certificate authority, or not for this address).
fn server_not_trusted(err: &kube::Error) -> bool {
    source_chain(err as &(dyn std::error::Error + 'static)).any(|e| {
        e.downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .is_some_and(|inner| inner.to_string().contains("invalid peer certificate"))
            || e.to_string().contains("invalid peer certificate")
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;

    /// A list of `n` copies of `item`, as an API server writes one.
    fn page_of(item: &str, n: usize) -> Vec<u8> {
        let items = vec![item; n].join(",");
        format!(r#"{{"kind":"List","apiVersion":"v1","metadata":{{}},"items":[{items}]}}"#)
            .into_bytes()
    }

    /// The weight a page is refused by before it is parsed is above what
    /// parsing it takes (the allocator's count), for the shapes that take
    /// the most for their text and for real objects; and a page of 500
    /// real pods weighs well within the budget.
    #[test]
    fn whole_weight_is_above_what_a_parsed_page_holds() {
        let pod = serde_json::to_string(&crate::fixture::json::item(
            &crate::fixture::fleet_of("prod", 1, 1).pods[0],
            "v1",
            "Pod",
        ))
        .expect("JSON");
        let node = serde_json::to_string(&crate::fixture::json::item(
            &crate::fixture::fleet_of("prod", 1, 1).nodes[0],
            "valkey.io/v1alpha1",
            "ValkeyNode",
        ))
        .expect("JSON");
        let deep = format!("{}0{}", r#"{"a":"#.repeat(100), "}".repeat(100));
        let cases: [(&str, Vec<u8>); 9] = [
            ("empty objects", page_of("{}", 100_000)),
            ("objects of one key", page_of(r#"{"a":0}"#, 100_000)),
            ("objects of one key, nested", page_of(&deep, 1_000)),
            ("numbers", page_of("0", 200_000)),
            ("strings of one letter", page_of(r#""a""#, 200_000)),
            ("empty lists", page_of("[]", 100_000)),
            (
                "named objects",
                page_of(r#"{"metadata":{"name":"a"}}"#, 50_000),
            ),
            ("pods", page_of(&pod, 500)),
            ("nodes", page_of(&node, 500)),
        ];
        for (name, text) in cases {
            let (parsed, peak) =
                crate::counting::peak_of(|| serde_json::from_slice::<Value>(&text).is_ok());
            assert!(parsed, "{name}");
            let weight = whole_weight(&text);
            assert!(
                text.len() + peak <= weight,
                "{name}: {} bytes of text took {peak} parsed, weighed {weight}",
                text.len()
            );
            if matches!(name, "pods" | "nodes") {
                assert!(weight * 4 < PAGE_BUDGET, "{name}: {weight}");
            }
        }
    }
    use clap::Parser;
    use kube::core::Status;
    use std::ffi::OsString;

    /// What the flags `args` give, as a command builds it.
    fn access(args: &[&str]) -> Access {
        let argv = std::iter::once("kubectl-valkey-roll")
            .chain(args.iter().copied())
            .chain(std::iter::once("status"));
        crate::commands::access(&Cli::try_parse_from(argv).expect("test flags parse").global)
    }

    const MAIN: &str = r#"apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: http://127.0.0.1:1
- name: prod-cluster
  cluster:
    server: https://prod.example.com:6443
contexts:
- name: dev
  context:
    cluster: dev-cluster
    user: alice
    namespace: team-a
- name: prod
  context:
    cluster: prod-cluster
    user: bob
users:
- name: alice
  user:
    token: alice-token
- name: bob
  user:
    token: bob-token
"#;

    /// A second file for KUBECONFIG: its current-context loses to the first
    /// file's; its new context is added.
    const EXTRA: &str = r#"apiVersion: v1
kind: Config
current-context: prod
contexts:
- name: other
  context:
    cluster: dev-cluster
    user: carol
    namespace: team-c
users:
- name: carol
  user:
    token: carol-token
"#;

    struct Files {
        dir: tempfile::TempDir,
    }

    impl Files {
        fn new() -> Files {
            let dir = tempfile::tempdir().expect("temp dir");
            std::fs::write(dir.path().join("main"), MAIN).expect("write main");
            std::fs::write(dir.path().join("extra"), EXTRA).expect("write extra");
            std::fs::write(
                dir.path().join("ghost"),
                MAIN.replace("user: alice", "user: ghost"),
            )
            .expect("write ghost");
            Files { dir }
        }
        fn path(&self, name: &str) -> PathBuf {
            self.dir.path().join(name)
        }
    }

    /// (case, --kubeconfig, KUBECONFIG, ~/.kube/config when it exists, the source)
    type SourceCase<'a> = (
        &'a str,
        Option<&'a Path>,
        Option<OsString>,
        Option<PathBuf>,
        ConfigSource,
    );

    /// (case, flags, source, server, default namespace, kubeconfig user)
    type ChoiceCase<'a> = (
        &'a str,
        Vec<&'a str>,
        &'a ConfigSource,
        &'a str,
        &'a str,
        Option<&'a str>,
    );

    #[test]
    fn config_source_follows_kubectl_order() {
        let flag = PathBuf::from("/flag/config");
        let home = PathBuf::from("/home/me/.kube/config");
        let joined = std::env::join_paths(["/a/config", "/b/config"]).expect("join");
        let cases: Vec<SourceCase> = vec![
            (
                "--kubeconfig wins",
                Some(&flag),
                Some(joined.clone()),
                Some(home.clone()),
                ConfigSource::Flag(flag.clone()),
            ),
            (
                "KUBECONFIG lists several",
                None,
                Some(joined.clone()),
                Some(home.clone()),
                ConfigSource::Env(vec!["/a/config".into(), "/b/config".into()]),
            ),
            (
                "empty KUBECONFIG is unset",
                None,
                Some(OsString::new()),
                Some(home.clone()),
                ConfigSource::Home(home.clone()),
            ),
            (
                "home",
                None,
                None,
                Some(home.clone()),
                ConfigSource::Home(home.clone()),
            ),
            (
                "nothing: in-cluster",
                None,
                None,
                None,
                ConfigSource::InCluster,
            ),
        ];
        for (name, flag, env, home, expected) in cases {
            assert_eq!(
                config_source(flag, env.as_deref(), home),
                expected,
                "{name}"
            );
        }
    }

    #[tokio::test]
    async fn kubeconfig_choices() {
        let files = Files::new();
        let env = ConfigSource::Env(vec![
            files.path("missing"),
            files.path("main"),
            files.path("extra"),
        ]);
        let flag = ConfigSource::Flag(files.path("main"));
        let cases: Vec<ChoiceCase> = vec![
            (
                "current context",
                vec![],
                &flag,
                "http://127.0.0.1:1/",
                "team-a",
                Some("alice"),
            ),
            (
                "--context without namespace",
                vec!["--context", "prod"],
                &flag,
                "https://prod.example.com:6443/",
                "default",
                Some("bob"),
            ),
            (
                "--cluster and --user override the context",
                vec!["--cluster", "prod-cluster", "--user", "bob"],
                &flag,
                "https://prod.example.com:6443/",
                "team-a",
                Some("bob"),
            ),
            (
                "KUBECONFIG merged: first current-context wins",
                vec![],
                &env,
                "http://127.0.0.1:1/",
                "team-a",
                Some("alice"),
            ),
            (
                "KUBECONFIG merged: a context from the second file",
                vec!["--context", "other"],
                &env,
                "http://127.0.0.1:1/",
                "team-c",
                Some("carol"),
            ),
            (
                "--as names the user",
                vec!["--as", "dave"],
                &flag,
                "http://127.0.0.1:1/",
                "team-a",
                Some("dave"),
            ),
        ];
        for (name, args, source, server, namespace, user) in cases {
            let (config, kube_user) = client_config(&access(&args), source)
                .await
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(config.cluster_url.to_string(), server, "{name}");
            assert_eq!(config.default_namespace, namespace, "{name}");
            assert_eq!(kube_user.as_deref(), user, "{name}");
        }
    }

    #[tokio::test]
    async fn kubeconfig_errors() {
        let files = Files::new();
        let cases: Vec<(&str, Vec<&str>, ConfigSource, &str)> = vec![
            (
                "--kubeconfig that does not exist",
                vec![],
                ConfigSource::Flag(files.path("nope")),
                "nope",
            ),
            (
                "KUBECONFIG naming no file that exists",
                vec![],
                ConfigSource::Env(vec![files.path("nope"), files.path("gone")]),
                "none of the files KUBECONFIG names exists",
            ),
            (
                "unknown context",
                vec!["--context", "staging"],
                ConfigSource::Flag(files.path("main")),
                "staging",
            ),
            (
                "unknown --user",
                vec!["--user", "nope"],
                ConfigSource::Flag(files.path("main")),
                "auth info \"nope\" does not exist",
            ),
            (
                "unknown --cluster",
                vec!["--cluster", "nowhere"],
                ConfigSource::Flag(files.path("main")),
                "cluster \"nowhere\" does not exist",
            ),
            (
                "a context whose user is not there",
                vec![],
                ConfigSource::Flag(files.path("ghost")),
                "user \"ghost\" was not found for context \"dev\"",
            ),
            (
                "the file is named",
                vec!["--context", "staging"],
                ConfigSource::Flag(files.path("main")),
                "main",
            ),
        ];
        for (name, args, source, needle) in cases {
            match client_config(&access(&args), &source).await {
                Err(Error::Kubeconfig { problem }) => {
                    assert!(problem.contains(needle), "{name}: {problem}")
                }
                Err(other) => panic!("{name}: wrong error {other:?}"),
                Ok(_) => panic!("{name}: no error"),
            }
        }
    }

    #[tokio::test]
    async fn flags_set_impersonation_and_timeouts() {
        let files = Files::new();
        let source = ConfigSource::Flag(files.path("main"));
        let args = access(&[
            "--as",
            "dave",
            "--as-group",
            "sre",
            "--as-group",
            "oncall",
            "--request-timeout",
            "7s",
        ]);
        let (config, _) = client_config(&args, &source).await.expect("config");
        assert_eq!(config.auth_info.impersonate.as_deref(), Some("dave"));
        assert_eq!(
            config.auth_info.impersonate_groups,
            Some(vec!["sre".to_string(), "oncall".to_string()])
        );
        let seven = Some(std::time::Duration::from_secs(7));
        assert_eq!(
            (
                config.connect_timeout,
                config.read_timeout,
                config.write_timeout
            ),
            (seven, seven, seven)
        );
        let (config, _) = client_config(&access(&["--request-timeout", "0s"]), &source)
            .await
            .expect("config");
        assert_eq!(
            (
                config.connect_timeout,
                config.read_timeout,
                config.write_timeout
            ),
            (None, None, None),
            "0 means no limit, as in kubectl"
        );
        let (config, _) = client_config(&access(&[]), &source).await.expect("config");
        assert_eq!(config.auth_info.impersonate, None);
        assert_eq!(config.auth_info.impersonate_groups, None);
    }

    #[tokio::test]
    async fn an_unreachable_server_is_named() {
        let files = Files::new();
        let live = connect_with(
            &access(&["--request-timeout", "5s"]),
            &ConfigSource::Flag(files.path("main")),
        )
        .await
        .expect("connect makes no request");
        assert_eq!(live.server, "http://127.0.0.1:1");
        assert_eq!(live.default_namespace, "team-a");
        match read(&live, Some("team-a"), Some("cache")).await {
            Err(Error::Unreachable { server, .. }) => assert_eq!(server, "http://127.0.0.1:1"),
            other => panic!("expected Unreachable, got {other:?}"),
        }
        // No SelfSubjectReview answer: the kubeconfig's user.
        assert_eq!(who_am_i(&live).await, "alice");
        let nobody = Live {
            kube_user: None,
            ..live.clone()
        };
        assert_eq!(who_am_i(&nobody).await, "unknown");
        match read(&live, None, Some("cache,env=prod")).await {
            Err(Error::Usage(message)) => assert!(message.contains("cache,env=prod"), "{message}"),
            other => panic!("expected a usage error, got {other:?}"),
        }
    }

    /// (case, server, proxy-url, environment, the proxy)
    type ProxyCase<'a> = (
        &'a str,
        &'a http::Uri,
        Option<&'a str>,
        &'static [(&'static str, &'static str)],
        Option<&'a str>,
    );

    #[test]
    fn the_proxy_is_chosen_as_kubectl_chooses_it() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let https: http::Uri = "https://api.corp.example:6443".parse().unwrap();
        let http_server: http::Uri = "http://api.corp.example:8080".parse().unwrap();
        let loopback: http::Uri = "https://127.0.0.1:6443".parse().unwrap();
        let p = Some("http://proxy:3128/");
        let cases: Vec<ProxyCase> = vec![
            ("nothing", &https, None, &[], None),
            (
                "HTTPS_PROXY",
                &https,
                None,
                &[("HTTPS_PROXY", "http://proxy:3128")],
                p,
            ),
            (
                "lower case",
                &https,
                None,
                &[("https_proxy", "proxy:3128")],
                p,
            ),
            (
                "HTTP_PROXY is for http servers",
                &https,
                None,
                &[("HTTP_PROXY", "http://proxy:3128")],
                None,
            ),
            (
                "HTTP_PROXY",
                &http_server,
                None,
                &[("HTTP_PROXY", "http://proxy:3128")],
                p,
            ),
            (
                "loopback never",
                &loopback,
                None,
                &[("HTTPS_PROXY", "http://proxy:3128")],
                None,
            ),
            (
                "NO_PROXY name",
                &https,
                None,
                &[
                    ("HTTPS_PROXY", "http://proxy:3128"),
                    ("NO_PROXY", "localhost, corp.example,"),
                ],
                None,
            ),
            (
                "NO_PROXY .suffix",
                &https,
                None,
                &[
                    ("HTTPS_PROXY", "http://proxy:3128"),
                    ("NO_PROXY", ".corp.example"),
                ],
                None,
            ),
            (
                "NO_PROXY *.suffix",
                &https,
                None,
                &[
                    ("HTTPS_PROXY", "http://proxy:3128"),
                    ("NO_PROXY", "*.corp.example"),
                ],
                None,
            ),
            (
                "NO_PROXY other port",
                &https,
                None,
                &[
                    ("HTTPS_PROXY", "http://proxy:3128"),
                    ("NO_PROXY", "api.corp.example:443"),
                ],
                p,
            ),
            (
                "NO_PROXY same port",
                &https,
                None,
                &[
                    ("HTTPS_PROXY", "http://proxy:3128"),
                    ("NO_PROXY", "api.corp.example:6443"),
                ],
                None,
            ),
            (
                "NO_PROXY another name",
                &https,
                None,
                &[
                    ("HTTPS_PROXY", "http://proxy:3128"),
                    ("NO_PROXY", "xcorp.example,10.0.0.0/8"),
                ],
                p,
            ),
            (
                "NO_PROXY *",
                &https,
                None,
                &[("HTTPS_PROXY", "http://proxy:3128"), ("NO_PROXY", "*")],
                None,
            ),
            (
                "proxy-url wins over NO_PROXY",
                &https,
                Some("socks5://127.0.0.1:1080"),
                &[("NO_PROXY", "*")],
                Some("socks5://127.0.0.1:1080/"),
            ),
        ];
        for (case, server, proxy_url, vars, want) in cases {
            let got =
                proxy_for(server, proxy_url, env(vars)).unwrap_or_else(|e| panic!("{case}: {e}"));
            assert_eq!(got.map(|u| u.to_string()).as_deref(), want, "{case}");
        }
        let ten: http::Uri = "https://10.1.2.3".parse().unwrap();
        assert_eq!(
            proxy_for(
                &ten,
                None,
                env(&[("HTTPS_PROXY", "proxy:1"), ("NO_PROXY", "10.0.0.0/8")])
            ),
            Ok(None)
        );
    }

    fn status(code: u16, name: &str) -> kube::Error {
        let mut status = Status::failure("the server says no", "Reason").with_code(code);
        if !name.is_empty() {
            status = status.with_details(kube::core::response::StatusDetails {
                name: name.to_string(),
                group: "valkey.io".into(),
                kind: "valkeynodes".into(),
                uid: String::new(),
                causes: Vec::new(),
                retry_after_seconds: 0,
            });
        }
        kube::Error::Api(Box::new(status))
    }

    #[test]
    fn api_errors_map_to_what_a_person_can_act_on() {
        let cases: Vec<(&str, kube::Error, &str, &str, &str)> = vec![
            ("401", status(401, ""), "list", "pods", "Unauthorized"),
            (
                "403",
                status(403, ""),
                "patch",
                "valkeynodes",
                "Forbidden patch valkeynodes",
            ),
            (
                "404 listing nodes",
                status(404, ""),
                "list",
                "valkeynodes",
                "CrdMissing valkeynodes.valkey.io",
            ),
            (
                "404 watching clusters",
                status(404, ""),
                "watch",
                "valkeyclusters",
                "CrdMissing valkeyclusters.valkey.io",
            ),
            (
                "404 of one node",
                status(404, "cache-0-9"),
                "patch",
                "valkeynodes",
                "Api 404",
            ),
            (
                "404 listing pods",
                status(404, ""),
                "list",
                "pods",
                "Api 404",
            ),
            (
                "409",
                status(409, "cache-0-1"),
                "patch",
                "valkeynodes",
                "Api 409",
            ),
            ("500", status(500, ""), "list", "events", "Api 500"),
        ];
        for (name, err, verb, resource, expected) in cases {
            let got = match api_error(err, verb, resource, Some("prod")) {
                Error::Unauthorized { .. } => "Unauthorized".to_string(),
                Error::Forbidden {
                    verb,
                    resource,
                    namespace,
                    message,
                } => {
                    assert_eq!(namespace.as_deref(), Some("prod"), "{name}");
                    assert_eq!(message, "the server says no", "{name}");
                    format!("Forbidden {verb} {resource}")
                }
                Error::CrdMissing { crd } => format!("CrdMissing {crd}"),
                Error::Api {
                    status,
                    verb: v,
                    resource: r,
                    ..
                } => {
                    assert_eq!((v.as_str(), r.as_str()), (verb, resource), "{name}");
                    format!("Api {}", status.unwrap_or_default())
                }
                other => format!("{other:?}"),
            };
            assert_eq!(got, expected, "{name}");
        }
    }
}
