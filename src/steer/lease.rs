//! The `coordination.k8s.io/v1` Lease `valkey-roll.<cluster>` that
//! serialises manual steering of one cluster: a second steering command is
//! refused while it is held, and told who holds it. Taken over only once
//! expired; renewed before each write (a long write sequence outlives 30 s);
//! released (deleted) at the end.

use crate::error::Result;
use crate::source::live::api_error;
use crate::steer::plan::Refusal;
use jiff::Timestamp;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use kube::Api;
use kube::api::{DeleteParams, PostParams, Preconditions};

/// How long a Lease is valid without renewal (docs/plugin.md: 30 s).
pub(crate) const DURATION_SECONDS: i32 = 30;

/// The Lease's name for a cluster.
pub(crate) fn name(cluster: &str) -> String {
    format!("valkey-roll.{cluster}")
}

/// `user@host/pid`, the Lease's holderIdentity.
pub(crate) fn holder_identity(user: &str) -> String {
    format!("{user}@{}/{}", host_name(), std::process::id())
}

/// The machine's name, for the Lease and the Events; `unknown-host` when it
/// cannot be told.
pub(crate) fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|s| !s.is_empty()))
        .or_else(|| std::env::var("COMPUTERNAME").ok().filter(|s| !s.is_empty()))
        .unwrap_or_else(|| "unknown-host".to_string())
}

/// A Lease this process holds.
pub(crate) struct Guard {
    api: Api<Lease>,
    namespace: String,
    name: String,
    holder: String,
    /// The Lease as last written by this process (its resourceVersion is
    /// the precondition of the next renewal and of the release).
    lease: Lease,
}

/// The moment a Lease runs out: its renew time (else acquire time, else
/// creation) plus its duration. `None` when it carries no time at all.
pub(crate) fn expires_at(lease: &Lease) -> Option<Timestamp> {
    let spec = lease.spec.as_ref();
    let since = spec
        .and_then(|s| s.renew_time.as_ref().or(s.acquire_time.as_ref()))
        .map(|t| t.0)
        .or_else(|| lease.metadata.creation_timestamp.as_ref().map(|t| t.0))?;
    let secs = spec
        .and_then(|s| s.lease_duration_seconds)
        .unwrap_or(DURATION_SECONDS);
    // A renew time at the end of time (an API-legal 9999-12-31 is read as
    // the latest time, see snapshot::LATEST) saturates: held to the end,
    // not taken over because the sum overflows.
    Some(
        since
            .checked_add(jiff::SignedDuration::from_secs(i64::from(secs.max(0))))
            .unwrap_or(Timestamp::MAX),
    )
}

/// Reads a Lease as every object is read, far-future times included (a
/// typed GET cannot hold a renewTime after 9999-12-30T22:00Z, which the
/// API can). `None` when there is none.
async fn get_lease(api: &Api<Lease>, name: &str) -> Result<Option<Lease>, kube::Error> {
    let request = kube::core::Request::new(api.resource_url())
        .get(name, &kube::api::GetParams::default())
        .map_err(kube::Error::BuildRequest)?;
    let text = match api.clone().into_client().request_text(request).await {
        Ok(text) => text,
        Err(kube::Error::Api(s)) if s.is_not_found() => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut value: serde_json::Value =
        serde_json::from_str(&text).map_err(kube::Error::SerdeError)?;
    crate::snapshot::clamp_late_times(&mut value);
    serde_json::from_value(value)
        .map(Some)
        .map_err(kube::Error::SerdeError)
}

/// Whether a Lease has run out at `now` (one without any time counts as run
/// out: nobody can be renewing it).
pub(crate) fn expired(lease: &Lease, now: Timestamp) -> bool {
    expires_at(lease).is_none_or(|at| at <= now)
}

fn held_refusal(lease: &Lease, now: Timestamp) -> Refusal {
    let name = lease.metadata.name.clone().unwrap_or_default();
    let holder = holder_of(lease).map(str::to_string);
    let expires_in_seconds = expires_at(lease).map(|at| crate::units::seconds_since(now, at));
    Refusal::LeaseHeld {
        lease: name,
        holder,
        expires_in_seconds,
    }
}

fn holder_of(lease: &Lease) -> Option<&str> {
    lease.spec.as_ref()?.holder_identity.as_deref()
}

/// The Lease was left by a steering command of the same user on this
/// machine whose process has ended (the API server went away before it
/// could release it). Nobody can be renewing it, so waiting out its 30 s
/// would only make the person running the command again wait for nothing.
/// `holder` is this process's identity (`user@host/pid`).
fn abandoned(lease: &Lease, holder: &str, alive: impl Fn(u32) -> bool) -> bool {
    let Some(theirs) = holder_of(lease) else {
        return false;
    };
    let split = |identity: &str| {
        identity
            .rsplit_once('/')
            .and_then(|(who, pid)| Some((who.to_string(), pid.parse::<u32>().ok()?)))
    };
    match (split(theirs), split(holder)) {
        (Some((who, pid)), Some((me, my_pid))) => who == me && pid != my_pid && !alive(pid),
        _ => false,
    }
}

/// Whether a process of this machine is alive; only where `/proc` tells
/// (elsewhere every process counts as alive, so nothing is taken over).
fn pid_alive(pid: u32) -> bool {
    let proc_fs = std::path::Path::new("/proc/self");
    !proc_fs.exists() || std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// The Lease with its renewTime moved to `now`; everything else, its
/// resourceVersion included, as it was.
fn renewed(lease: &Lease, now: Timestamp) -> Lease {
    let mut l = lease.clone();
    let spec = l.spec.get_or_insert_with(LeaseSpec::default);
    spec.renew_time = Some(MicroTime(now));
    spec.lease_duration_seconds = Some(DURATION_SECONDS);
    l
}

/// The Lease is no longer this process's: `current` is what is there now
/// (`None`: deleted).
fn lost_refusal(name: &str, current: Option<&Lease>) -> Refusal {
    Refusal::LeaseLost {
        lease: name.to_string(),
        holder: current.and_then(holder_of).map(str::to_string),
    }
}

fn fresh_spec(holder: &str, now: Timestamp, transitions: Option<i32>) -> LeaseSpec {
    LeaseSpec {
        holder_identity: Some(holder.to_string()),
        lease_duration_seconds: Some(DURATION_SECONDS),
        acquire_time: Some(MicroTime(now)),
        renew_time: Some(MicroTime(now)),
        lease_transitions: transitions,
        ..LeaseSpec::default()
    }
}

/// How many times [`take`] tries before it gives up on a Lease that keeps
/// appearing and disappearing.
const TAKE_ROUNDS: usize = 5;

/// Takes the cluster's Lease, or says who holds it. `now` is the real
/// clock (a Lease is about this moment, whatever `--now` says).
pub(crate) async fn take(
    client: kube::Client,
    namespace: &str,
    cluster: &str,
    holder: &str,
    now: Timestamp,
) -> Result<std::result::Result<Guard, Refusal>> {
    let api: Api<Lease> = Api::namespaced(client, namespace);
    let lease_name = name(cluster);
    // A Lease released between our create and our get is simply created
    // again. Among many steering commands at once (the race test runs 20)
    // that can happen more than once in a row, hence a few rounds.
    for _ in 0..TAKE_ROUNDS {
        let lease = Lease {
            metadata: ObjectMeta {
                name: Some(lease_name.clone()),
                namespace: Some(namespace.to_string()),
                ..ObjectMeta::default()
            },
            spec: Some(fresh_spec(holder, now, None)),
        };
        match api.create(&PostParams::default(), &lease).await {
            Ok(created) => {
                return Ok(Ok(Guard {
                    api,
                    namespace: namespace.to_string(),
                    name: lease_name,
                    holder: holder.to_string(),
                    lease: created,
                }));
            }
            Err(kube::Error::Api(s)) if s.is_already_exists() || s.is_conflict() => {}
            Err(e) => return Err(api_error(e, "create", "leases", Some(namespace))),
        }
        let existing = match get_lease(&api, &lease_name).await {
            Ok(Some(l)) => l,
            Ok(None) => continue,
            Err(e) => return Err(api_error(e, "get", "leases", Some(namespace))),
        };
        if !expired(&existing, now) && !abandoned(&existing, holder, pid_alive) {
            return Ok(Err(held_refusal(&existing, now)));
        }
        // Expired: take it over with an update carrying its resourceVersion,
        // so that of two takers only one wins.
        let transitions = existing
            .spec
            .as_ref()
            .and_then(|s| s.lease_transitions)
            .unwrap_or(0)
            .saturating_add(1);
        let mut taken = existing.clone();
        taken.spec = Some(fresh_spec(holder, now, Some(transitions)));
        match api
            .replace(&lease_name, &PostParams::default(), &taken)
            .await
        {
            Ok(replaced) => {
                return Ok(Ok(Guard {
                    api,
                    namespace: namespace.to_string(),
                    name: lease_name,
                    holder: holder.to_string(),
                    lease: replaced,
                }));
            }
            Err(kube::Error::Api(s)) if s.is_conflict() || s.is_not_found() => {
                let now_holder = get_lease(&api, &lease_name).await.ok().flatten();
                return Ok(Err(match now_holder {
                    Some(l) => held_refusal(&l, now),
                    None => held_refusal(&existing, now),
                }));
            }
            Err(e) => return Err(api_error(e, "update", "leases", Some(namespace))),
        }
    }
    Err(crate::error::Error::LeaseUnstable {
        namespace: namespace.to_string(),
        lease: lease_name,
    })
}

impl Guard {
    /// Renews the Lease at `now` (the real clock): an update of its
    /// renewTime carrying the resourceVersion last written, so it fails when
    /// anyone else changed it. A refusal when someone else holds it now (or
    /// it is gone): the caller must stop writing.
    pub(crate) async fn renew(
        &mut self,
        now: Timestamp,
    ) -> Result<std::result::Result<(), Refusal>> {
        // Two rounds: a change by someone who left us the holder (a label,
        // say) is renewed over once.
        for _ in 0..2 {
            match self
                .api
                .replace(
                    &self.name,
                    &PostParams::default(),
                    &renewed(&self.lease, now),
                )
                .await
            {
                Ok(l) => {
                    self.lease = l;
                    return Ok(Ok(()));
                }
                Err(kube::Error::Api(s)) if s.is_conflict() || s.is_not_found() => {}
                Err(e) => return Err(api_error(e, "update", "leases", Some(&self.namespace))),
            }
            let current = match get_lease(&self.api, &self.name).await {
                Ok(l) => l,
                Err(e) => return Err(api_error(e, "get", "leases", Some(&self.namespace))),
            };
            match current {
                Some(l) if holder_of(&l) == Some(self.holder.as_str()) => self.lease = l,
                other => return Ok(Err(lost_refusal(&self.name, other.as_ref()))),
            }
        }
        Ok(Err(lost_refusal(&self.name, Some(&self.lease))))
    }

    /// Deletes the Lease if it is still the one this process took (a Lease
    /// that expired and was taken over by someone else is left alone).
    pub(crate) async fn release(self) -> Result<()> {
        let params = DeleteParams {
            preconditions: Some(Preconditions {
                resource_version: self.lease.metadata.resource_version.clone(),
                uid: None,
            }),
            ..DeleteParams::default()
        };
        match self.api.delete(&self.name, &params).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(s)) if s.is_conflict() || s.is_not_found() => Ok(()),
            Err(e) => Err(api_error(e, "delete", "leases", Some(&self.namespace))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_of_an_ended_process_of_mine_is_abandoned() {
        let mut l = lease(Some("2026-11-29T10:00:00Z"), None, Some(30));
        let dead = |_: u32| false;
        let alive = |_: u32| true;
        // (case, holder of the Lease, this process, pid alive, abandoned)
        let cases: &[(&str, &str, &str, bool, bool)] = &[
            ("mine, ended", "alice@box/42", "alice@box/43", false, true),
            (
                "mine, still running",
                "alice@box/42",
                "alice@box/43",
                true,
                false,
            ),
            ("another user", "bob@box/42", "alice@box/43", false, false),
            (
                "another machine",
                "alice@laptop/42",
                "alice@box/43",
                false,
                false,
            ),
            ("no pid", "alice@box", "alice@box/43", false, false),
        ];
        for (name, theirs, mine, is_alive, want) in cases {
            l.spec.as_mut().unwrap().holder_identity = Some(theirs.to_string());
            let got = if *is_alive {
                abandoned(&l, mine, alive)
            } else {
                abandoned(&l, mine, dead)
            };
            assert_eq!(got, *want, "{name}");
        }
        assert!(pid_alive(std::process::id()));
    }

    fn lease(renew: Option<&str>, acquire: Option<&str>, secs: Option<i32>) -> Lease {
        Lease {
            metadata: ObjectMeta {
                name: Some("valkey-roll.cache".into()),
                ..ObjectMeta::default()
            },
            spec: Some(LeaseSpec {
                holder_identity: Some("alice@box/42".into()),
                renew_time: renew.map(|t| MicroTime(t.parse().unwrap())),
                acquire_time: acquire.map(|t| MicroTime(t.parse().unwrap())),
                lease_duration_seconds: secs,
                ..LeaseSpec::default()
            }),
        }
    }

    #[test]
    fn expiry_counts_from_renewal_then_acquisition() {
        let now: Timestamp = "2026-11-29T10:00:30Z".parse().unwrap();
        // (case, renewTime, acquireTime, leaseDurationSeconds, expired)
        type Case<'a> = (&'a str, Option<&'a str>, Option<&'a str>, Option<i32>, bool);
        let cases: &[Case] = &[
            (
                "renewed 10s ago, 30s",
                Some("2026-11-29T10:00:20Z"),
                None,
                Some(30),
                false,
            ),
            (
                "renewed 30s ago, 30s",
                Some("2026-11-29T10:00:00Z"),
                None,
                Some(30),
                true,
            ),
            (
                "renewed 31s ago, 30s",
                Some("2026-11-29T09:59:59Z"),
                None,
                Some(30),
                true,
            ),
            (
                "acquired 5s ago",
                None,
                Some("2026-11-29T10:00:25Z"),
                Some(30),
                false,
            ),
            (
                "renew wins over acquire",
                Some("2026-11-29T09:59:00Z"),
                Some("2026-11-29T10:00:25Z"),
                Some(30),
                true,
            ),
            (
                "no duration: 30s",
                Some("2026-11-29T10:00:10Z"),
                None,
                None,
                false,
            ),
            (
                "in the future",
                Some("2026-11-29T10:05:00Z"),
                None,
                Some(30),
                false,
            ),
            ("no time at all", None, None, Some(30), true),
            // jiff's last time (an API-legal 9999-12-31 is read as it):
            // renewed then, held to the end, not overflowed into "expired".
            (
                "renewed at the end of time",
                Some("9999-12-30T22:00:00Z"),
                None,
                Some(30),
                false,
            ),
        ];
        for (name, renew, acquire, secs, want) in cases {
            assert_eq!(
                expired(&lease(*renew, *acquire, *secs), now),
                *want,
                "{name}"
            );
        }
    }

    #[test]
    fn a_held_lease_names_its_holder() {
        let now: Timestamp = "2026-11-29T10:00:30Z".parse().unwrap();
        let r = held_refusal(&lease(Some("2026-11-29T10:00:20Z"), None, Some(30)), now);
        assert_eq!(
            crate::render::steer::refusal::refusal(&r),
            "another steering command holds the Lease valkey-roll.cache: alice@box/42 (expires in 20s unless renewed); try again when it is done"
        );
    }

    #[test]
    fn a_renewal_moves_renew_time_and_keeps_the_rest() {
        let mut held = lease(
            Some("2026-11-29T10:00:00Z"),
            Some("2026-11-29T10:00:00Z"),
            Some(30),
        );
        held.metadata.resource_version = Some("41".into());
        let now: Timestamp = "2026-11-29T10:00:25Z".parse().unwrap();
        let r = renewed(&held, now);
        // The resourceVersion stays: the update fails if anyone else wrote.
        assert_eq!(r.metadata.resource_version.as_deref(), Some("41"));
        let spec = r.spec.clone().unwrap_or_default();
        assert_eq!(spec.renew_time, Some(MicroTime(now)));
        assert_eq!(spec.acquire_time, held.spec.and_then(|s| s.acquire_time));
        assert_eq!(spec.holder_identity.as_deref(), Some("alice@box/42"));
        // Still valid 29 s later, where the old one had run out.
        let later: Timestamp = "2026-11-29T10:00:54Z".parse().unwrap();
        assert!(!expired(&r, later));
        assert!(expired(&held_at("2026-11-29T10:00:00Z"), later));
    }

    fn held_at(renew: &str) -> Lease {
        lease(Some(renew), None, Some(30))
    }

    #[test]
    fn a_lost_lease_names_who_has_it_now() {
        // (case, the Lease there now, text)
        let taken = {
            let mut l = held_at("2026-11-29T10:00:20Z");
            if let Some(s) = l.spec.as_mut() {
                s.holder_identity = Some("mallory@elsewhere/1".into());
            }
            l
        };
        let cases: Vec<(&str, Option<&Lease>, &str)> = vec![
            (
                "taken over",
                Some(&taken),
                "the Lease valkey-roll.cache was taken over by mallory@elsewhere/1 before this command was done",
            ),
            (
                "deleted",
                None,
                "the Lease valkey-roll.cache was deleted before this command was done",
            ),
        ];
        for (name, current, want) in cases {
            let text =
                crate::render::steer::refusal::refusal(&lost_refusal("valkey-roll.cache", current));
            assert!(text.starts_with(want), "{name}: {text}");
            assert!(
                text.ends_with("run the command again when it is done"),
                "{name}: {text}"
            );
        }
    }

    #[test]
    fn identity_is_user_at_host_slash_pid() {
        let id = holder_identity("alice");
        assert!(id.starts_with("alice@"), "{id}");
        assert!(id.ends_with(&format!("/{}", std::process::id())), "{id}");
    }
}
