//! What a view says about itself rather than about the clusters: that it
//! found none, that part of it could not be read, or (over several
//! kubeconfig contexts) which context a line is about. The commands and the
//! source hand over the facts; the sentences are here.

use crate::error::Error;
use crate::render::style::clean;
use crate::snapshot::{Duplicate, Unread};

/// All a view says about itself before its report: the kinds left out, then
/// the objects the file held more than once.
pub(crate) fn view_warnings(unread: &[Unread], duplicates: &[Duplicate]) -> String {
    partial_warning(unread) + &duplicate_warning(duplicates)
}

/// The most duplicates named in the warning; the rest are counted.
const DUPLICATES_NAMED: usize = 5;

/// The one warning line for duplicates; empty without any.
pub(crate) fn duplicate_warning(duplicates: &[Duplicate]) -> String {
    if duplicates.is_empty() {
        return String::new();
    }
    let mut named: Vec<String> = duplicates
        .iter()
        .take(DUPLICATES_NAMED)
        .map(|d| {
            format!(
                "{} {}/{} ({} copies)",
                d.kind, d.namespace, d.name, d.copies
            )
        })
        .collect();
    if duplicates.len() > DUPLICATES_NAMED {
        named.push(format!("and {} more", duplicates.len() - DUPLICATES_NAMED));
    }
    format!(
        "warning: the snapshot holds {} object(s) more than once, each read once (the copy with the newest resourceVersion, else the last): {}\n",
        duplicates.len(),
        named.join(", ")
    )
}

/// A kubeconfig context in words: `context prod-eu`, or `the current
/// context` for `None` (no `--context` given).
pub(crate) fn context_words(context: Option<&str>) -> String {
    match context {
        Some(name) => format!("context {}", clean(name)),
        None => "the current context".to_string(),
    }
}

/// A line said of one context among several: `context prod-eu: LINE`.
pub(crate) fn in_context(context: Option<&str>, line: &str) -> String {
    format!("{}: {line}", context_words(context))
}

/// The warning of a context that could not be read, for stderr.
pub(crate) fn context_unread(context: Option<&str>, error: &Error) -> String {
    format!(
        "warning: {} could not be read, its clusters are missing from this report: {}\n",
        context_words(context),
        clean(&error.to_string())
    )
}

/// [`partial_warning`] of one context among several: each line says which
/// (`warning: context prod-eu: partial view: ...`).
pub(crate) fn context_partial_warning(context: Option<&str>, unread: &[Unread]) -> String {
    partial_warning(unread)
        .lines()
        .map(|line| {
            let line = line.strip_prefix("warning: ").unwrap_or(line);
            format!("warning: {}\n", in_context(context, line))
        })
        .collect()
}

/// The warning of pod events an explanation goes without: those of one pod
/// (`Some`, explaining a node) or of a cluster's pods (`None`). The
/// explanation stands without them.
pub(crate) fn events_unread(pod: Option<&str>, error: &Error) -> String {
    match pod {
        Some(pod) => format!("warning: the events of pod {pod}: {error}\n"),
        None => format!("warning: the events of the pods: {error}\n"),
    }
}

/// What a table says when there is nothing to show.
pub(crate) fn no_clusters_message(namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) => format!("No ValkeyClusters found in namespace {ns}.\n"),
        None => "No ValkeyClusters found in any namespace.\n".to_string(),
    }
}

/// What a live page says while the one cluster it was asked for is not
/// there: the page keeps watching, so it may yet appear.
pub(crate) fn named_cluster_missing(name: &str, namespace: Option<&str>) -> String {
    let place = match namespace {
        Some(ns) => format!("in namespace {ns}"),
        None => "in any namespace".to_string(),
    };
    format!(
        "ValkeyCluster {} not found {place}; shown here when it appears.\n",
        clean(name)
    )
}

/// The warning a partial view carries, one line per kind left out: which
/// kind, why, and what is judged without it. Empty for a whole view.
pub(crate) fn partial_warning(unread: &[Unread]) -> String {
    unread
        .iter()
        .map(|u| {
            let without = match u.resource.as_str() {
                "pods" => "pod evidence (CrashLoopBackOff, image pulls, readiness) is missing",
                "events" => "grant times come from annotations and managedFields only, progress from object times",
                "statefulsets" | "deployments" => "workload roll state is missing",
                "valkeyclusters" => "clusters are judged by their nodes alone",
                _ => "what depends on them is missing",
            };
            format!(
                "warning: partial view: {resource} could not be listed ({}); judged without them: {without}\n",
                clean(&u.error),
                resource = u.resource
            )
        })
        .collect()
}

/// Said on the verdict of a cluster whose servers were asked and not all
/// read, the same words in every view (status and `status --watch`'s
/// headline, the dashboard's card, `wait`'s line; docs/servers.md, "Not
/// read, on the verdict"): `servers: 1 of 4 not read`, or `servers: none
/// of 4 read`. `None` when every server asked was read, or none was asked.
pub(crate) fn servers_on_verdict(cluster: &crate::report::ClusterReport) -> Option<String> {
    let s = cluster.servers_unread()?;
    let of = s.read + s.unread;
    Some(match s.read {
        0 => format!("servers: none of {of} read"),
        _ => format!("servers: {} of {of} not read", s.unread),
    })
}

/// The warnings of servers not read (docs/servers.md): one line per
/// cluster, naming why; the nodes they leave are judged from the API, as
/// without `--servers`. Empty when every server asked was read.
pub(crate) fn servers_unread(accounts: &[crate::snapshot::ClusterServers]) -> String {
    let mut out = String::new();
    for a in accounts {
        if let Some(f) = &a.trouble {
            let why = cluster_unread(&a.cluster, f);
            out.push_str(&format!(
                "warning: the servers of cluster {} were not read: {why}; judged from the API alone\n",
                a.cluster
            ));
            continue;
        }
        if a.failed.is_empty() {
            continue;
        }
        let total = a.read + a.failed.len();
        let shown: Vec<String> = a
            .failed
            .iter()
            .take(3)
            .map(|(pod, f)| format!("{pod} {}", server_failure(f)))
            .collect();
        let more = match a.failed.len().saturating_sub(3) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        out.push_str(&format!(
            "warning: {} of {total} servers of cluster {} not read ({}{more}); their nodes are judged from the API\n",
            a.failed.len(),
            a.cluster,
            shown.join(", ")
        ));
    }
    out
}

/// Why none of `cluster`'s servers could be read.
pub(crate) fn cluster_unread(cluster: &str, f: &crate::snapshot::Failure) -> String {
    use crate::snapshot::{CaTrouble, EXPORTER_USER, Failure, secret_name};
    let secret = secret_name(cluster);
    match f {
        Failure::Forbidden => {
            format!("reading Secret {secret} is forbidden (RBAC: get on that one Secret)")
        }
        Failure::NoReadOnlyUser => format!(
            "no read-only user (Secret {secret} or its key {EXPORTER_USER} is missing; spec.exporter.enabled makes it)"
        ),
        Failure::Tls => "they speak TLS only (spec.networking.tls) and no CA was given to verify them: --servers-ca FILE or --servers-ca-configmap NAMESPACE/NAME[:KEY] (the plugin never reads their certificate Secret, which holds their private key)".to_string(),
        Failure::CaUnread(why) => {
            let why = match why {
                CaTrouble::Forbidden => "reading its ConfigMap is forbidden (RBAC: get on that one ConfigMap)",
                CaTrouble::Missing => "no such file, ConfigMap or key",
                CaTrouble::NotPem => "it holds no PEM certificate",
            };
            format!("they speak TLS only (spec.networking.tls), and the CA given could not be read: {why}")
        }
        Failure::TimedOut => "--request-timeout was up before they were reached".to_string(),
        _ => format!("Secret {secret} could not be read"),
    }
}

fn server_failure(f: &crate::snapshot::Failure) -> &'static str {
    use crate::snapshot::{Failure, TlsRefusal};
    match f {
        Failure::Forbidden => "forbidden",
        Failure::NoReadOnlyUser => "has no read-only user",
        Failure::AuthRefused => "refused the password",
        Failure::Unreachable => "unreachable",
        Failure::TimedOut => "timed out",
        Failure::TooLarge => "sent a reply too large",
        Failure::BadReply => "answered garbage",
        Failure::ClosedEarly => "closed the connection early",
        Failure::Tls => "speaks TLS",
        Failure::TlsRefused(why) => match why {
            TlsRefusal::UnknownIssuer => "tls refused: unknown issuer",
            TlsRefusal::WrongName => "tls refused: wrong name",
            TlsRefusal::Expired => "tls refused: expired",
            TlsRefusal::NotTls => "tls refused: the server did not speak TLS",
            TlsRefusal::Other => "tls refused: the handshake failed",
        },
        Failure::CaUnread(_) => "has no CA to verify it",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 43 item 3: servers asked and not read are said on the verdict,
    /// in these words wherever it is shown; all read, or none asked, says
    /// nothing.
    #[test]
    fn servers_not_read_in_the_verdicts_words() {
        use crate::report::{ServersRead, Verdict};
        // (read, unread or not asked, what the verdict says)
        type Case = (Option<(usize, usize)>, Option<&'static str>);
        let cases: &[Case] = &[
            (None, None),
            (Some((4, 0)), None),
            (Some((0, 0)), None),
            (Some((3, 1)), Some("servers: 1 of 4 not read")),
            (Some((1, 5)), Some("servers: 5 of 6 not read")),
            (Some((0, 4)), Some("servers: none of 4 read")),
        ];
        for (servers, want) in cases {
            let mut c = crate::fixture::sample::waited_cluster("c0", Verdict::Converged);
            c.servers = servers.map(|(read, unread)| ServersRead {
                read,
                unread,
                observed_at: None,
            });
            assert_eq!(servers_on_verdict(&c).as_deref(), *want, "{servers:?}");
        }
    }

    /// A cluster none of whose servers is read says why in one line, and
    /// what stands instead.
    #[test]
    fn a_cluster_not_read_is_one_line_saying_why() {
        use crate::snapshot::{ClusterServers, Failure};
        let cases = [
            (
                Failure::Tls,
                "they speak TLS only (spec.networking.tls) and no CA was given to verify \
                 them: --servers-ca FILE or --servers-ca-configmap NAMESPACE/NAME[:KEY] (the \
                 plugin never reads their certificate Secret, which holds their private key)",
            ),
            (
                Failure::CaUnread(crate::snapshot::CaTrouble::Forbidden),
                "they speak TLS only (spec.networking.tls), and the CA given could not be \
                 read: reading its ConfigMap is forbidden (RBAC: get on that one ConfigMap)",
            ),
            (
                Failure::NoReadOnlyUser,
                "no read-only user (Secret internal-cache-system-passwords or its key \
                 _exporter is missing; spec.exporter.enabled makes it)",
            ),
            (
                Failure::Forbidden,
                "reading Secret internal-cache-system-passwords is forbidden (RBAC: get on \
                 that one Secret)",
            ),
            (
                Failure::TimedOut,
                "--request-timeout was up before they were reached",
            ),
        ];
        for (failure, why) in cases {
            let said = servers_unread(&[ClusterServers {
                namespace: "prod".into(),
                cluster: "cache".into(),
                trouble: Some(failure.clone()),
                read: 0,
                failed: Vec::new(),
            }]);
            assert_eq!(
                said,
                format!(
                    "warning: the servers of cluster cache were not read: {why}; judged from \
                     the API alone\n"
                ),
                "{failure:?}"
            );
        }
    }

    /// A server whose TLS handshake failed is named with why (issue 44).
    #[test]
    fn a_tls_refusal_names_its_reason() {
        use crate::snapshot::{ClusterServers, Failure, TlsRefusal};
        let cases = [
            (TlsRefusal::UnknownIssuer, "tls refused: unknown issuer"),
            (TlsRefusal::WrongName, "tls refused: wrong name"),
            (TlsRefusal::Expired, "tls refused: expired"),
            (
                TlsRefusal::NotTls,
                "tls refused: the server did not speak TLS",
            ),
            (TlsRefusal::Other, "tls refused: the handshake failed"),
        ];
        for (why, said) in cases {
            let text = servers_unread(&[ClusterServers {
                namespace: "prod".into(),
                cluster: "cache".into(),
                trouble: None,
                read: 3,
                failed: vec![("valkey-cache-0-0-0".into(), Failure::TlsRefused(why))],
            }]);
            assert_eq!(
                text,
                format!(
                    "warning: 1 of 4 servers of cluster cache not read (valkey-cache-0-0-0 \
                     {said}); their nodes are judged from the API\n"
                ),
                "{why:?}"
            );
            // The reading's code reads back as the same failure.
            let code = Failure::TlsRefused(why).code();
            assert_eq!(Failure::of_code(Some(code)), Failure::TlsRefused(why));
            assert!(code.starts_with("tls refused"), "{code}");
        }
    }

    #[test]
    fn duplicate_warning_names_a_few_and_counts_the_rest_on_one_line() {
        let many: Vec<Duplicate> = (0..8)
            .map(|i| Duplicate {
                kind: "Pod",
                namespace: "prod".into(),
                name: format!("p{i}"),
                copies: 2,
            })
            .collect();
        let warning = duplicate_warning(&many);
        assert_eq!(warning.lines().count(), 1, "{warning}");
        assert!(
            warning.contains("Pod prod/p4 (2 copies), and 3 more"),
            "{warning}"
        );
        assert!(!warning.contains("p5"), "{warning}");
        assert_eq!(duplicate_warning(&[]), "");
    }

    #[test]
    fn contexts_in_words() {
        assert_eq!(context_words(None), "the current context");
        assert_eq!(context_words(Some("eu\u{1b}[31m")), "context eu\\u{1b}[31m");
        assert_eq!(in_context(Some("eu"), "ready\n"), "context eu: ready\n");
        let unread = [Unread {
            resource: "pods".into(),
            error: "forbidden".into(),
        }];
        assert_eq!(
            context_partial_warning(Some("eu"), &unread),
            "warning: context eu: partial view: pods could not be listed (forbidden); \
             judged without them: pod evidence (CrashLoopBackOff, image pulls, readiness) \
             is missing\n"
        );
        assert_eq!(context_partial_warning(None, &[]), "");
        assert_eq!(
            context_unread(None, &Error::WatchEnded),
            format!(
                "warning: the current context could not be read, its clusters are missing \
                 from this report: {}\n",
                Error::WatchEnded
            )
        );
    }

    #[test]
    fn events_unread_names_the_pod_or_the_pods() {
        assert_eq!(
            events_unread(Some("cache-0-0"), &Error::WatchEnded),
            format!(
                "warning: the events of pod cache-0-0: {}\n",
                Error::WatchEnded
            )
        );
        assert_eq!(
            events_unread(None, &Error::WatchEnded),
            format!("warning: the events of the pods: {}\n", Error::WatchEnded)
        );
    }

    #[test]
    fn empty_listing_message() {
        assert_eq!(
            no_clusters_message(Some("prod")),
            "No ValkeyClusters found in namespace prod.\n"
        );
        assert_eq!(
            no_clusters_message(None),
            "No ValkeyClusters found in any namespace.\n"
        );
    }

    #[test]
    fn a_named_cluster_not_there_is_named_and_cleaned() {
        assert_eq!(
            named_cluster_missing("cache", Some("prod")),
            "ValkeyCluster cache not found in namespace prod; shown here when it appears.\n"
        );
        assert!(!named_cluster_missing("a\u{202e}b\x1b[31m", None).contains(['\u{202e}', '\x1b']));
    }

    #[test]
    fn partial_warning_names_each_kind_left_out_and_what_is_missing() {
        let unread = |resource: &str| Unread {
            resource: resource.into(),
            error: "forbidden".into(),
        };
        assert_eq!(partial_warning(&[]), "");
        assert_eq!(
            partial_warning(&[unread("pods"), unread("events")]),
            "warning: partial view: pods could not be listed (forbidden); judged without them: \
             pod evidence (CrashLoopBackOff, image pulls, readiness) is missing\n\
             warning: partial view: events could not be listed (forbidden); judged without them: \
             grant times come from annotations and managedFields only, progress from object times\n"
        );
    }
}
