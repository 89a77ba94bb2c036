//! `version`: what was built, from which commit, for which target, and which
//! forms of the roll protocol it understands. Everything is fixed at build
//! time (build.rs), so two builds of one commit say the same.

use crate::cli::OutputFormat;
use crate::commands::Ctx;
use crate::error::{Outcome, Result};
use crate::render::json::{to_json, to_yaml};
use serde::Serialize;

/// The `version -o json|yaml` document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct VersionInfo {
    pub version: &'static str,
    /// The commit built (HEAD, build.rs), or `unknown`.
    pub commit: &'static str,
    /// The target triple the binary was built for.
    pub target: &'static str,
    /// The forms of the staged-roll protocol understood (docs/protocol.md).
    pub protocols: [&'static str; 2],
}

impl VersionInfo {
    pub(crate) const fn current() -> Self {
        VersionInfo {
            version: env!("CARGO_PKG_VERSION"),
            commit: env!("KUBECTL_VALKEY_ROLL_GIT_COMMIT"),
            target: env!("KUBECTL_VALKEY_ROLL_TARGET"),
            protocols: ["P1", "P2"],
        }
    }

    /// The text form: one fact per line, the first as `--version` tools print it.
    pub(crate) fn text(&self) -> String {
        format!(
            "kubectl-valkey-roll {}\ncommit:    {}\ntarget:    {}\nprotocols: {}\n",
            self.version,
            self.commit,
            self.target,
            self.protocols.join(", ")
        )
    }
}

pub(crate) fn run(ctx: &Ctx) -> Result<Outcome> {
    render(&VersionInfo::current(), ctx.global.output).map(Outcome::ok)
}

/// `table` and `wide` are the text form.
pub(crate) fn render(info: &VersionInfo, output: OutputFormat) -> Result<String> {
    match output {
        // A version is no object: -o name says it as text.
        OutputFormat::Table | OutputFormat::Wide | OutputFormat::Name | OutputFormat::Svg => {
            Ok(info.text())
        }
        OutputFormat::Json => to_json(info),
        OutputFormat::Yaml => to_yaml(info),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> VersionInfo {
        VersionInfo {
            version: "0.1.0",
            commit: "0123456789abcdef0123456789abcdef01234567",
            target: "x86_64-unknown-linux-gnu",
            protocols: ["P1", "P2"],
        }
    }

    #[test]
    fn every_format_carries_every_fact() {
        let cases = [
            (
                OutputFormat::Table,
                "kubectl-valkey-roll 0.1.0\ncommit:    0123456789abcdef0123456789abcdef01234567\ntarget:    x86_64-unknown-linux-gnu\nprotocols: P1, P2\n",
            ),
            (
                OutputFormat::Json,
                "{\n  \"version\": \"0.1.0\",\n  \"commit\": \"0123456789abcdef0123456789abcdef01234567\",\n  \"target\": \"x86_64-unknown-linux-gnu\",\n  \"protocols\": [\n    \"P1\",\n    \"P2\"\n  ]\n}\n",
            ),
        ];
        for (format, want) in cases {
            assert_eq!(render(&info(), format).expect("render"), want, "{format:?}");
        }
        let yaml = render(&info(), OutputFormat::Yaml).expect("yaml");
        let back: serde_json::Value = serde_saphyr::from_str(&yaml).expect("yaml reads back");
        let json: serde_json::Value =
            serde_json::from_str(&render(&info(), OutputFormat::Json).expect("json"))
                .expect("json reads back");
        assert_eq!(back, json, "yaml is the same document as json");
    }

    #[test]
    fn the_build_stamps_commit_and_target() {
        let info = VersionInfo::current();
        assert_eq!(info.version, env!("CARGO_PKG_VERSION"));
        assert!(!info.target.is_empty() && info.target != "unknown");
        // A checkout stamps a full hash; a tarball build says `unknown`.
        assert!(
            info.commit == "unknown"
                || (info.commit.len() == 40 && info.commit.bytes().all(|b| b.is_ascii_hexdigit())),
            "commit {:?}",
            info.commit
        );
    }
}
