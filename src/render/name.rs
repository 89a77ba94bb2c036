//! `-o name`: the objects a command is about, one a line, as kubectl
//! names them (`resource.group/name`), for scripts: `status -o name`
//! lists the clusters, `explain` and the steering commands name the node
//! (or cluster, or pod) they are about.

use super::style::clean;
use crate::report::Report;

/// `valkeycluster.valkey.io/NAME`.
pub(crate) fn cluster(name: &str) -> String {
    format!("valkeycluster.valkey.io/{}\n", clean(name))
}

/// `valkeynode.valkey.io/NAME`.
pub(crate) fn node(name: &str) -> String {
    format!("valkeynode.valkey.io/{}\n", clean(name))
}

/// `pod/NAME`.
pub(crate) fn pod(name: &str) -> String {
    format!("pod/{}\n", clean(name))
}

/// Every cluster of the report, one a line.
pub(crate) fn clusters(report: &Report) -> String {
    report.clusters.iter().map(|c| cluster(&c.name)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;

    #[test]
    fn names_as_kubectl_writes_them() {
        assert_eq!(
            clusters(&sample::jammed()),
            "valkeycluster.valkey.io/cache\n"
        );
        assert_eq!(node("cache-1-0"), "valkeynode.valkey.io/cache-1-0\n");
        assert_eq!(pod("p\u{1b}x"), "pod/p\\u{1b}x\n");
    }
}
