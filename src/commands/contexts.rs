//! Several kubeconfig contexts at once (`--context` more than once,
//! `--all-contexts`) for `status`, `wait` and `exporter`: which contexts,
//! and how each is named.

use crate::cli::GlobalArgs;
use crate::error::{Error, Result};
use crate::source::live;

/// One context to read: `None` is the kubeconfig's current one (or the
/// pod's own service account), when no `--context` was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ContextName(pub Option<String>);

impl ContextName {
    /// The `context` of a metric or a JSON cluster: the name, or empty.
    pub(crate) fn label(&self) -> String {
        self.0.clone().unwrap_or_default()
    }

    /// The name given, `None` for the current context (render words it).
    pub(crate) fn given(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

/// The contexts asked for, in the order given (each once): every context
/// of the kubeconfig with `--all-contexts`, each `--context`, else the
/// current one.
pub(crate) fn resolve(global: &GlobalArgs) -> Result<Vec<ContextName>> {
    let names = if global.all_contexts {
        let all = live::kubeconfig_contexts(global.kubeconfig.as_deref())?;
        if all.is_empty() {
            return Err(Error::Kubeconfig {
                problem: "--all-contexts: the kubeconfig has no context".to_string(),
            });
        }
        all
    } else {
        global.contexts.clone()
    };
    if names.is_empty() {
        return Ok(vec![ContextName(None)]);
    }
    let mut seen = Vec::with_capacity(names.len());
    for name in names {
        if !seen.contains(&name) {
            seen.push(name);
        }
    }
    Ok(seen.into_iter().map(|n| ContextName(Some(n))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use clap::Parser;

    fn global(args: &[&str]) -> GlobalArgs {
        Cli::try_parse_from(
            ["kubectl-valkey-roll"]
                .iter()
                .chain(args)
                .chain(&["status"])
                .copied(),
        )
        .unwrap()
        .global
    }

    #[test]
    fn contexts_in_the_order_given_each_once() {
        let cases: &[(&[&str], &[Option<&str>])] = &[
            (&[], &[None]),
            (&["--context", "a"], &[Some("a")]),
            (
                &["--context", "b", "--context", "a", "--context", "b"],
                &[Some("b"), Some("a")],
            ),
        ];
        for (args, want) in cases {
            let got = resolve(&global(args)).unwrap();
            let want: Vec<ContextName> = want
                .iter()
                .map(|n| ContextName(n.map(str::to_string)))
                .collect();
            assert_eq!(got, want, "{args:?}");
        }
    }

    #[test]
    fn all_contexts_of_the_kubeconfig() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config");
        std::fs::write(
            &path,
            "apiVersion: v1\nkind: Config\ncurrent-context: b\nclusters: []\nusers: []\ncontexts:\n- name: a\n  context: {cluster: x, user: y}\n- name: b\n  context: {cluster: x, user: y}\n",
        )
        .unwrap();
        let path = path.display().to_string();
        let got = resolve(&global(&["--kubeconfig", &path, "--all-contexts"])).unwrap();
        assert_eq!(
            got,
            [ContextName(Some("a".into())), ContextName(Some("b".into()))]
        );
        let empty = dir.path().join("empty");
        std::fs::write(&empty, "apiVersion: v1\nkind: Config\ncontexts: []\n").unwrap();
        let empty = empty.display().to_string();
        let err = resolve(&global(&["--kubeconfig", &empty, "--all-contexts"])).unwrap_err();
        assert!(err.to_string().contains("no context"), "{err}");
    }

    #[test]
    fn labels() {
        assert_eq!(ContextName(None).label(), "");
        assert_eq!(ContextName(Some("eu".into())).label(), "eu");
    }
}
