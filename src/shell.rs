//! Commands printed for a person to paste: the undo line of a steering
//! command and the next steps `explain` suggests. Every value in them (node,
//! pod and workload names, the namespace, each flag value) comes from a
//! cluster, a file or the command line, so each is quoted for a POSIX shell
//! before it is put in a command.
//!
//! Quoting is `shlex`'s (`try_quote`): a maintained crate, already in the
//! dependency graph, whose quoting was hardened after RUSTSEC-2024-0006 (it
//! quotes `{`, `!`, `^`, `\xa0`, every non-ASCII character, and works for
//! bash, zsh, dash and fish alike). It leaves ordinary words (letters,
//! digits, `-._/:@+`) bare, so `revoke cache-0-1 -n prod` stays readable.
//!
//! A value that starts with `-` must not become a flag: a flag's value is
//! then written as `--flag=VALUE` (`-n=-x`; clap and kubectl's pflag both
//! read that as the value), and positionals go after `--`, which ends the
//! flags for clap and kubectl alike. Prefixing `./` would change a name, so
//! it is not done.
//!
//! A NUL cannot be passed to a program at all (arguments are C strings): it
//! is written as the text `\u{0}`, as [`clean`](crate::render::style::clean)
//! shows it, so the command stays one visible line that can only miss.

use std::borrow::Cow;

/// One word for a POSIX shell: bare when that is safe, else quoted.
pub(crate) fn word(value: &str) -> Cow<'_, str> {
    match shlex::try_quote(value) {
        Ok(quoted) => quoted,
        Err(_) => {
            let visible = value.replace('\0', r"\u{0}");
            Cow::Owned(shlex::try_quote(&visible).map_or_else(
                // Unreachable (the NULs are gone), but never panic on data.
                |_| "''".to_string(),
                Cow::into_owned,
            ))
        }
    }
}

/// A command line built from its parts, each value quoted as it is
/// written out.
#[derive(Clone, Debug)]
pub(crate) struct CommandLine {
    head: String,
    positionals: Vec<String>,
    options: Vec<Opt>,
}

#[derive(Clone, Debug)]
enum Opt {
    /// `-n prod`: a flag and its value (data).
    Value(String, String),
    /// Written as given (never data).
    Switch(String),
}

impl CommandLine {
    /// `head` is the program and subcommand, written as given (never data):
    /// `kubectl valkey-roll revoke`, `kubectl describe pod`.
    pub(crate) fn new(head: &str) -> Self {
        CommandLine {
            head: head.to_string(),
            positionals: Vec::new(),
            options: Vec::new(),
        }
    }

    /// A positional argument (a name).
    pub(crate) fn arg(mut self, value: &str) -> Self {
        self.positionals.push(value.to_string());
        self
    }

    /// A flag with a value: `-n prod`, or `-n=-x` when the value starts with
    /// `-` (it would otherwise be read as a flag of its own).
    pub(crate) fn opt(mut self, flag: &str, value: &str) -> Self {
        self.options
            .push(Opt::Value(flag.to_string(), value.to_string()));
        self
    }

    /// A flag without a value (`--yes`), or a placeholder the reader fills
    /// in (`--reason "..."`): written as given, never data.
    pub(crate) fn switch(mut self, text: &str) -> Self {
        self.options.push(Opt::Switch(text.to_string()));
        self
    }

    /// The line: `head POSITIONALS OPTIONS`, or `head OPTIONS -- POSITIONALS`
    /// when a positional starts with `-`.
    pub(crate) fn render(&self) -> String {
        self.render_with(Cow::Borrowed)
    }

    /// The line with each value shown through `shown` before it is quoted.
    /// Render passes its cut for a screen (`render::fit::bounded`: a value
    /// longer than any Kubernetes name is cut with `…`, so the screen stays
    /// linear in the input and the command one quoted word that can only
    /// miss); [`render`](Self::render) keeps the exact values, for pasting
    /// and for the undo line of `-o json`.
    pub(crate) fn render_with<'a>(&'a self, shown: impl Fn(&'a str) -> Cow<'a, str>) -> String {
        let quoted = |v: &'a str| word(&shown(v)).into_owned();
        let positionals: Vec<String> = self.positionals.iter().map(|p| quoted(p)).collect();
        let options: Vec<String> = self
            .options
            .iter()
            .map(|o| match o {
                Opt::Value(flag, value) if value.starts_with('-') => {
                    format!("{flag}={}", quoted(value))
                }
                Opt::Value(flag, value) => format!("{flag} {}", quoted(value)),
                Opt::Switch(text) => text.clone(),
            })
            .collect();
        let dashed = self.positionals.iter().any(|p| p.starts_with('-'));
        let mut parts: Vec<&str> = vec![&self.head];
        if dashed {
            parts.extend(options.iter().map(String::as_str));
            parts.push("--");
            parts.extend(positionals.iter().map(String::as_str));
        } else {
            parts.extend(positionals.iter().map(String::as_str));
            parts.extend(options.iter().map(String::as_str));
        }
        parts.join(" ")
    }
}

impl std::fmt::Display for CommandLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splits a printed line as a POSIX shell would (shlex's splitter, a
    /// separate implementation from its quoter), so a case checks what the
    /// pasted line means, not only how it looks.
    fn argv(line: &str) -> Vec<String> {
        shlex::split(line).unwrap_or_else(|| panic!("not one shell line: {line}"))
    }

    #[test]
    fn words_are_quoted_only_where_needed_and_mean_themselves() {
        // (case, value, printed)
        let cases: &[(&str, &str, &str)] = &[
            ("a node name", "cache-0-1", "cache-0-1"),
            ("a dotted name", "valkey.cache-0-1", "valkey.cache-0-1"),
            ("a path", "/home/a/.kube/config", "/home/a/.kube/config"),
            ("a user", "system:admin@corp", "system:admin@corp"),
            ("a hash", "9f2c41ab03de", "9f2c41ab03de"),
            ("empty", "", "''"),
            (
                "command substitution",
                "$(touch /tmp/x)",
                "'$(touch /tmp/x)'",
            ),
            ("backquotes", "`id`", "'`id`'"),
            ("a space", "a b", "'a b'"),
            ("a single quote", "it's", "\"it's\""),
            ("a double quote", "say \"hi\"", "'say \"hi\"'"),
            ("a comment", "a#b", "'a#b'"),
            ("a leading hash", "#x", "'#x'"),
            ("a newline", "a\nb", "'a\nb'"),
            ("a tilde", "~root", "'~root'"),
            ("a glob", "cache-*", "'cache-*'"),
            ("a semicolon", "a;reboot", "'a;reboot'"),
            ("a pipe", "a|b", "'a|b'"),
            ("a redirect", "a>b", "'a>b'"),
            ("a variable", "$HOME", "'$HOME'"),
            ("history expansion", "a!!", "'a!!'"),
            ("a brace", "{a,b}", "'{a,b}'"),
            ("a backslash", "a\\b", "\"a\\\\b\""),
            ("non-ASCII", "caf\u{e9}", "'caf\u{e9}'"),
            ("an equals sign", "a=b", "'a=b'"),
        ];
        for (name, value, want) in cases {
            let got = word(value);
            assert_eq!(got, *want, "{name}");
            assert_eq!(argv(&got), vec![value.to_string()], "{name}: {got}");
        }
    }

    #[test]
    fn a_nul_is_written_visibly() {
        assert_eq!(word("a\0b"), r#""a\\u{0}b""#);
        assert_eq!(
            shlex::split(&word("a\0b")),
            Some(vec![r"a\u{0}b".to_string()])
        );
    }

    #[test]
    fn a_leading_dash_never_becomes_a_flag() {
        // (case, command, printed)
        let cases: Vec<(&str, CommandLine, &str)> = vec![
            (
                "ordinary",
                CommandLine::new("kubectl valkey-roll revoke")
                    .arg("cache-0-1")
                    .opt("-n", "prod"),
                "kubectl valkey-roll revoke cache-0-1 -n prod",
            ),
            (
                "a node named like a flag",
                CommandLine::new("kubectl valkey-roll revoke")
                    .arg("--all")
                    .opt("-n", "prod"),
                "kubectl valkey-roll revoke -n prod -- --all",
            ),
            (
                "a namespace named like a flag",
                CommandLine::new("kubectl valkey-roll revoke")
                    .arg("cache-0-1")
                    .opt("-n", "-A"),
                "kubectl valkey-roll revoke cache-0-1 -n=-A",
            ),
            (
                "a flag value that needs quotes too",
                CommandLine::new("kubectl valkey-roll grant")
                    .arg("x")
                    .opt("--context", "-a b"),
                "kubectl valkey-roll grant x --context='-a b'",
            ),
            (
                "switches stay as written",
                CommandLine::new("kubectl valkey-roll revoke")
                    .arg("$(id)")
                    .opt("-n", "prod")
                    .switch("--reason \"...\""),
                "kubectl valkey-roll revoke '$(id)' -n prod --reason \"...\"",
            ),
        ];
        for (name, line, want) in cases {
            assert_eq!(line.render(), want, "{name}");
        }
        // What the shell hands the program: the dashed name after `--`.
        assert_eq!(
            argv(
                &CommandLine::new("k revoke")
                    .arg("-rf x")
                    .opt("-n", "-n")
                    .render()
            ),
            ["k", "revoke", "-n=-n", "--", "-rf x"]
        );
    }
}
