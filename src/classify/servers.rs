//! What the servers say (docs/servers.md; PLUGIN.md "What the servers
//! say"): facts from the readings of a cluster's Valkey servers, each with
//! its source, laid over the API's judgement.
//!
//! - A node's role comes from its own server (`roleSource: server`), ahead
//!   of all API evidence, when its reading counts: the newest reading of
//!   its current pod, not failed, and not older than the newest API
//!   evidence about it (its pod's creation, the operator's role events).
//!   Otherwise the API's role stands with a note saying why.
//! - A shard's primary by the servers: the one server of the shard that
//!   says `primary`; of several, the one a replica of the shard follows,
//!   else the one the API judges primary. The others are fresh servers
//!   with no place yet (the operator makes them replicas next).
//! - A replica is *synced* by the operator's own rule (c33988f,
//!   internal/valkey/clusterstate.go): `master_link_status:up` and not
//!   flagged `fail`, `fail?` or `pfail`.
//! - A shard whose primary (by the servers) has no synced replica is at
//!   risk (`NoSyncedReplica`); a primary whose server says `cluster_state`
//!   is not ok is `ClusterStateFail`.
//! - The walk's front, a primary waiting its turn in such a shard, is held
//!   back by the operator until a replica syncs: the cluster's `deferred`.
//! - A primary by the servers that the API judges no primary, while the
//!   API names another and no failover of the roll explains it, is a
//!   failover the operator did not make.
//!
//! Without readings of a cluster nothing here applies: the API judgement
//! stands exactly as it was.

use super::clock::{secs, since};
use super::events;
use super::judge::Judged;
use super::node::NodeObjects;
use super::role::{JudgedRole, Roles};
use crate::report::{
    Deferred, DeferredSource, FailoverUnderWay, NodeServer, ReplicaLink, Risk, RiskKind, Role,
    RoleNote, RoleSource, ServerNote, ServersRead, UnplannedFailover,
};
use crate::snapshot::{LinkStatus, ServerReading, ServerRole, keys};
use jiff::Timestamp;
use k8s_openapi::api::core::v1::Event;
use std::collections::{BTreeMap, HashMap};

/// The operator's events that tell a server's new role: a reading older
/// than the newest of them may say what no longer holds. A failover that
/// starts, fails or times out tells no new role.
const ROLE_EVENTS: [&str; 3] = [
    keys::EVENT_PRIMARY_CREATED,
    keys::EVENT_REPLICA_CREATED,
    keys::EVENT_FAILOVER_COMPLETED,
];

/// A node as the servers see it.
struct Member<'a> {
    name: &'a str,
    shard: Option<u32>,
    /// Its own server's reading, when it counts.
    counted: Option<&'a ServerReading>,
    /// The address others name it by (the reading's, else its pod's IP),
    /// without the port.
    address: Option<String>,
    /// The role the API's evidence gave it, and where from.
    api_role: Option<Role>,
    api_source: Option<RoleSource>,
    /// Why its own server's word is not had (None: read and counted, or
    /// an empty primary's note, which says its word).
    note: Option<ServerNote>,
}

/// The servers' facts about one cluster; built only when some reading
/// concerns it.
pub(crate) struct Servers<'a> {
    members: Vec<Member<'a>>,
    /// Each shard's primary by the servers (an index into `members`).
    primaries: BTreeMap<u32, usize>,
    pub read: ServersRead,
}

/// The host of `host:port` (or of a bare host; `[v6]:port` too).
fn host(address: &str) -> &str {
    let a = address.trim();
    if let Some(rest) = a.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match a.rsplit_once(':') {
        Some((h, port)) if !h.contains(':') && port.chars().all(|c| c.is_ascii_digit()) => h,
        _ => a,
    }
}

/// The CLUSTER NODES flags that make a replica not synced.
const FAILING: [&str; 3] = ["fail", "fail?", "pfail"];

/// Synced by the operator's rule: a replica whose link is up and whose
/// myself line is not flagged failing.
fn synced(r: &ServerReading) -> bool {
    r.role == Some(ServerRole::Replica)
        && r.link == Some(LinkStatus::Up)
        && !r.flags.iter().any(|f| FAILING.contains(&f.as_str()))
}

fn role_of(r: ServerRole) -> Role {
    match r {
        ServerRole::Primary => Role::Primary,
        ServerRole::Replica => Role::Replica,
    }
}

/// The newest time the API tells something about `view`'s server: its
/// pod's creation (a new pod is a new server), the newest of the
/// operator's role events whose note names its pod's address.
fn evidence_at(
    view: &NodeObjects<'_>,
    role_events: &[(Timestamp, Vec<String>)],
) -> Option<Timestamp> {
    let created = view
        .pod
        .and_then(|p| p.metadata.creation_timestamp.as_ref())
        .map(|t| t.0);
    let ip = view.pod_ip();
    let named = role_events
        .iter()
        .filter(|(_, addresses)| ip.is_some_and(|ip| addresses.iter().any(|a| a == ip)))
        .map(|(t, _)| *t);
    created.into_iter().chain(named).max()
}

impl<'a> Servers<'a> {
    /// Lays the readings over the API's roles (`roles.nodes`, in `views`'
    /// order) and returns what follows; None, and `roles` untouched, when
    /// no reading concerns the cluster.
    pub(crate) fn read(
        readings: &[&'a ServerReading],
        views: &[NodeObjects<'a>],
        shards: &[Option<u32>],
        cluster_events: &[&Event],
        roles: &mut Roles,
    ) -> Option<Servers<'a>> {
        let pods: Vec<Option<String>> = views.iter().map(NodeObjects::pod_name).collect();
        // The newest reading of each pod (readings come oldest first).
        let mut by_pod: HashMap<&str, &'a ServerReading> = HashMap::new();
        let mut by_node: HashMap<&str, &'a ServerReading> = HashMap::new();
        for r in readings {
            let newer = |old: &&ServerReading| old.observed_at.0 <= r.observed_at.0;
            if by_pod.get(r.pod()).is_none_or(newer) {
                by_pod.insert(r.pod(), r);
            }
            if let Some(n) = r.node.as_deref()
                && by_node.get(n).is_none_or(newer)
            {
                by_node.insert(n, r);
            }
        }
        let concerns = views.iter().zip(&pods).any(|(v, p)| {
            p.as_deref().is_some_and(|p| by_pod.contains_key(p)) || by_node.contains_key(v.name())
        });
        if !concerns {
            return None;
        }
        // A repeat in an event's series keeps its first note, so only the
        // first occurrence is known to be about the addresses it names.
        let role_events: Vec<(Timestamp, Vec<String>)> = cluster_events
            .iter()
            .filter(|e| ROLE_EVENTS.contains(&events::reason(e)))
            .filter_map(|e| {
                let at = events::first_time(e).or_else(|| events::time(e))?;
                Some((at, super::role::addresses(events::note(e))))
            })
            .collect();

        let mut members = Vec::with_capacity(views.len());
        let mut notes: Vec<Option<ServerNote>> = Vec::with_capacity(views.len());
        let mut newest: Option<Timestamp> = None;
        for (i, v) in views.iter().enumerate() {
            let own = pods[i].as_deref().and_then(|p| by_pod.get(p).copied());
            let (counted, note) = match own {
                Some(r) => {
                    newest = newest.max(Some(r.observed_at.0));
                    let evidence = evidence_at(v, &role_events);
                    match (&r.error, r.role, evidence) {
                        (Some(e), _, _) => (None, Some(ServerNote::Unread { error: e.clone() })),
                        // Older than the API's word, and saying otherwise.
                        (None, Some(said), Some(at))
                            if r.observed_at.0 < at
                                && roles.nodes.get(i).and_then(|j| j.role)
                                    != Some(role_of(said)) =>
                        {
                            (
                                None,
                                Some(ServerNote::Stale {
                                    observed_at: r.observed_at.0,
                                    evidence_at: at,
                                }),
                            )
                        }
                        (None, None, _) => (
                            None,
                            Some(ServerNote::Unread {
                                error: String::new(),
                            }),
                        ),
                        (None, Some(_), _) => (Some(r), None),
                    }
                }
                None => match by_node.get(v.name()) {
                    Some(r) => {
                        newest = newest.max(Some(r.observed_at.0));
                        (
                            None,
                            Some(ServerNote::OtherPod {
                                pod: r.pod().to_string(),
                            }),
                        )
                    }
                    None => (None, Some(ServerNote::Missing)),
                },
            };
            let address = counted
                .and_then(|r| r.address.as_deref())
                .or_else(|| v.pod_ip())
                .map(|a| host(a).to_string());
            members.push(Member {
                name: v.name(),
                shard: shards.get(i).copied().flatten(),
                counted,
                address,
                api_role: roles.nodes.get(i).and_then(|r| r.role),
                api_source: roles.nodes.get(i).and_then(|r| r.source),
                note: None,
            });
            notes.push(note);
        }

        // Each shard's primary by the servers.
        let mut says_primary: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, m) in members.iter().enumerate() {
            if let (Some(s), Some(r)) = (m.shard, m.counted)
                && r.role == Some(ServerRole::Primary)
            {
                says_primary.entry(s).or_default().push(i);
            }
        }
        let mut primaries = BTreeMap::new();
        let failing_over = |shard: u32| {
            roles
                .failover
                .as_ref()
                .is_some_and(|f| f.shard.is_none_or(|s| s == shard))
        };
        for (shard, claim) in &says_primary {
            let chosen = match claim.as_slice() {
                [only] => Some(*only),
                _ => {
                    let followed: Vec<usize> = claim
                        .iter()
                        .copied()
                        .filter(|&p| {
                            members.iter().any(|m| {
                                m.shard == Some(*shard)
                                    && m.counted.is_some_and(|r| {
                                        r.role == Some(ServerRole::Replica)
                                            && r.primary_address.as_deref().map(host)
                                                == members[p].address.as_deref()
                                    })
                            })
                        })
                        .collect();
                    // A fresh server is alone: its cluster state is not ok.
                    let joined: Vec<usize> = claim
                        .iter()
                        .copied()
                        .filter(|&p| {
                            members[p].counted.and_then(|r| r.cluster_state.as_deref())
                                == Some("ok")
                        })
                        .collect();
                    // Where none has joined (a cluster being created), only
                    // the operator's word that it gave one the slots (an
                    // event, an annotation, or what follows from its
                    // events: index 0 gets them) picks it; `status.role`
                    // says primary of every fresh server.
                    let told = |p: usize| {
                        members[p].api_role == Some(Role::Primary)
                            && (!joined.is_empty()
                                || matches!(
                                    members[p].api_source,
                                    Some(
                                        RoleSource::Event
                                            | RoleSource::Annotation
                                            | RoleSource::Inferred
                                    )
                                ))
                    };
                    let pool = if joined.is_empty() { claim } else { &joined };
                    let by_api: Vec<usize> = pool.iter().copied().filter(|&p| told(p)).collect();
                    match (followed.as_slice(), joined.as_slice(), by_api.as_slice()) {
                        ([one], _, _) | ([], [one], _) => Some(*one),
                        ([], _, [one]) if !failing_over(*shard) => Some(*one),
                        _ => None,
                    }
                }
            };
            if let Some(p) = chosen {
                primaries.insert(*shard, p);
                for &other in claim.iter().filter(|&&o| o != p) {
                    notes[other] = Some(ServerNote::EmptyPrimary {
                        primary: Some(members[p].name.to_string()),
                    });
                }
            }
        }

        // The one point where the servers meet the API's judgement.
        for (i, m) in members.iter().enumerate() {
            let Some(judged) = roles.nodes.get_mut(i) else {
                continue;
            };
            match (&notes[i], m.counted.and_then(|r| r.role)) {
                (None, Some(role)) => {
                    *judged = JudgedRole {
                        role: Some(role_of(role)),
                        source: Some(RoleSource::Server),
                        note: None,
                    };
                }
                (Some(note), _) if judged.note.is_none() => {
                    judged.note = Some(RoleNote::Server(note.clone()));
                }
                _ => {}
            }
        }

        for (m, note) in members.iter_mut().zip(&notes) {
            m.note = note.clone();
        }
        let read = members.iter().filter(|m| m.counted.is_some()).count();
        Some(Servers {
            read: ServersRead {
                read,
                unread: members.len() - read,
                observed_at: newest,
            },
            members,
            primaries,
        })
    }

    fn member(&self, name: &str) -> Option<&Member<'a>> {
        self.members.iter().find(|m| m.name == name)
    }

    /// What `node`'s own server says, where its reading counts.
    pub(crate) fn node_server(&self, node: &str) -> Option<NodeServer> {
        let m = self.member(node)?;
        let r = m.counted?;
        let replica = r.role == Some(ServerRole::Replica);
        Some(NodeServer {
            role: r.role.map(role_of),
            link: r.link,
            syncing: r.syncing,
            synced: replica.then(|| synced(r)),
            lag_bytes: if replica { self.lag(m) } else { None },
            observed_at: Some(r.observed_at.0),
        })
    }

    /// Why `node`'s own server's word is not had (its reading failed, is
    /// missing, stale or another pod's), or that it is an empty primary.
    pub(crate) fn node_note(&self, node: &str) -> Option<ServerNote> {
        self.member(node)?.note.clone()
    }

    /// A replica's offset behind its shard's primary by the servers, in
    /// bytes: both offsets read (the two readings are some milliseconds
    /// apart, so a primary taking writes shows a small gap).
    fn lag(&self, m: &Member<'a>) -> Option<u64> {
        let p = *self.primaries.get(&m.shard?)?;
        let primary = self.members[p].counted?.repl_offset?;
        Some(primary.saturating_sub(m.counted?.repl_offset?))
    }

    /// The shard's replicas as their servers say them, and whether one is
    /// synced; None when the servers name no primary of the shard.
    fn replicas(&self, shard: u32, judged: &[Judged<'_>], now: Timestamp) -> Option<Replicas> {
        let primary = *self.primaries.get(&shard)?;
        let mut out = Replicas {
            primary: self.members[primary].name.to_string(),
            links: Vec::new(),
            synced: false,
        };
        for (i, m) in self.members.iter().enumerate() {
            if i == primary || m.shard != Some(shard) {
                continue;
            }
            let j = judged.iter().find(|j| j.name() == m.name);
            if j.is_some_and(|j| !j.cluster_owned) {
                continue;
            }
            let replica = m.counted.filter(|r| r.role == Some(ServerRole::Replica));
            out.synced |= replica.is_some_and(synced);
            out.links.push(ReplicaLink {
                node: m.name.to_string(),
                link: replica.and_then(|r| r.link),
                syncing: replica.and_then(|r| r.syncing),
                lag_bytes: replica.and_then(|_| self.lag(m)),
                flagged: replica.and_then(|r| {
                    r.flags
                        .iter()
                        .find(|f| FAILING.contains(&f.as_str()))
                        .cloned()
                }),
                unread: m.note.clone(),
                down_for: j
                    .and_then(super::risk::down_since)
                    .map(|t| secs(since(now, t))),
            });
        }
        Some(out)
    }

    /// Shards at risk by the servers, in shard order: a primary with no
    /// synced replica; the first primary that says the cluster state is
    /// not ok.
    pub(crate) fn risks(&self, judged: &[Judged<'_>], now: Timestamp) -> Vec<Risk> {
        let mut out = Vec::new();
        for &shard in self.primaries.keys() {
            let Some(r) = self.replicas(shard, judged, now) else {
                continue;
            };
            if r.links.is_empty() || r.synced {
                continue;
            }
            let down = r.links.iter().filter_map(|l| l.down_for).min();
            out.push(Risk {
                kind: RiskKind::NoSyncedReplica,
                shard,
                primary: Some(r.primary),
                since: down.map(|s| now - jiff::SignedDuration::from_secs(s as i64)),
                for_seconds: down,
                replicas: Some(r.links),
            });
        }
        let failing = self.primaries.iter().find(|(_, p)| {
            self.members[**p]
                .counted
                .and_then(|r| r.cluster_state.as_deref())
                .is_some_and(|s| s != "ok")
        });
        if let Some((shard, p)) = failing {
            out.push(Risk {
                kind: RiskKind::ClusterStateFail,
                shard: *shard,
                primary: Some(self.members[*p].name.to_string()),
                since: None,
                for_seconds: None,
                replicas: None,
            });
        }
        out
    }

    /// The front held back by the operator, by the servers: a primary
    /// (by its server) waiting its turn, no holder, and no synced replica
    /// in its shard.
    pub(crate) fn deferred(
        &self,
        front: Option<&Judged<'_>>,
        holders: usize,
        judged: &[Judged<'_>],
        now: Timestamp,
    ) -> Option<Deferred> {
        let f = front.filter(|f| f.state == crate::report::NodeState::Waiting)?;
        if holders > 0 {
            return None;
        }
        let shard = f.place.shard?;
        let primary = *self.primaries.get(&shard)?;
        if self.members[primary].name != f.name() {
            return None;
        }
        let r = self.replicas(shard, judged, now)?;
        if r.links.is_empty() || r.synced {
            return None;
        }
        Some(Deferred {
            shard: Some(shard),
            primary: Some(r.primary),
            cause: String::new(),
            source: DeferredSource::Servers,
            replicas: r.links,
        })
    }

    /// Primaries by the servers that the API judges no primary while it
    /// names another of the shard; not while a failover of the roll is
    /// under way in that shard, nor when the API's primary is the walk's
    /// front or a holder (the operator fails it over before rolling it).
    pub(crate) fn unplanned(
        &self,
        judged: &[Judged<'_>],
        failover: Option<&FailoverUnderWay>,
        front: Option<&Judged<'_>>,
    ) -> Vec<UnplannedFailover> {
        let mut out = Vec::new();
        for (&shard, &p) in &self.primaries {
            let m = &self.members[p];
            if m.api_role == Some(Role::Primary) {
                continue;
            }
            if failover.is_some_and(|f| f.shard.is_none_or(|s| s == shard)) {
                continue;
            }
            let from = self
                .members
                .iter()
                .find(|o| o.shard == Some(shard) && o.api_role == Some(Role::Primary));
            let Some(from) = from else { continue };
            let in_flight = judged
                .iter()
                .find(|j| j.name() == from.name)
                .is_some_and(|j| j.holder || front.is_some_and(|f| f.name() == j.name()));
            if in_flight {
                continue;
            }
            let Some(r) = m.counted else { continue };
            out.push(UnplannedFailover {
                shard,
                to: m.name.to_string(),
                from: Some(from.name.to_string()),
                seen_at: r.observed_at.0,
            });
        }
        out
    }
}

/// A shard's replicas by the servers.
struct Replicas {
    primary: String,
    links: Vec<ReplicaLink>,
    synced: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        for (address, want) in [
            ("127.0.1.2:6379", "127.0.1.2"),
            ("127.0.1.2", "127.0.1.2"),
            ("[::1]:6379", "::1"),
            ("::1", "::1"),
            (" 10.0.0.1:6379 ", "10.0.0.1"),
            ("name:port", "name:port"),
        ] {
            assert_eq!(host(address), want, "{address}");
        }
    }

    fn reading(role: ServerRole, link: Option<LinkStatus>, flags: &[&str]) -> ServerReading {
        ServerReading {
            metadata: Default::default(),
            node: None,
            observed_at: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                "2026-11-29T10:00:00Z".parse().unwrap(),
            ),
            address: None,
            node_id: None,
            role: Some(role),
            primary_address: None,
            link,
            syncing: None,
            flags: flags.iter().map(|f| f.to_string()).collect(),
            cluster_state: None,
            error: None,
            repl_offset: None,
        }
    }

    #[test]
    fn synced_is_the_operators_rule() {
        use LinkStatus::*;
        use ServerRole::*;
        assert!(synced(&reading(Replica, Some(Up), &["myself", "slave"])));
        assert!(!synced(&reading(Replica, Some(Down), &["myself", "slave"])));
        assert!(!synced(&reading(Replica, None, &["myself", "slave"])));
        assert!(!synced(&reading(Replica, Some(Up), &["slave", "fail"])));
        assert!(!synced(&reading(Replica, Some(Up), &["slave", "fail?"])));
        assert!(!synced(&reading(Replica, Some(Up), &["slave", "pfail"])));
        assert!(!synced(&reading(Primary, Some(Up), &["myself", "master"])));
    }
}
