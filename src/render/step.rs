//! One thing a person could do next: prose, and the commands it suggests.
//!
//! A command stands on a line of its own, indented under its step and
//! never wrapped, so it is copied whole. It is not set off with backquotes:
//! a name may hold one (the command's own quoting, [`crate::shell`], keeps
//! it one argument), and then the backquotes would no longer say where the
//! command starts and ends.

use crate::render::fit::paragraph;
use crate::render::style::clean;
use crate::shell::CommandLine;

/// Where a step's prose goes on after its first line.
const TEXT_INDENT: &str = "    ";

/// Where a step's commands start: under its prose, further in.
const COMMAND_INDENT: &str = "      ";

#[derive(Clone, Debug)]
enum Part {
    Say(String),
    Run(CommandLine),
}

/// Prose and commands in the order they are read.
#[derive(Clone, Debug)]
pub(super) struct Step {
    parts: Vec<Part>,
}

impl Step {
    /// A step that starts with `text`.
    pub(super) fn say(text: impl Into<String>) -> Self {
        Step {
            parts: vec![Part::Say(text.into())],
        }
    }

    /// A command, on its own line after what came before (a value longer
    /// than any Kubernetes name cut, as on every screen).
    pub(super) fn run(mut self, command: CommandLine) -> Self {
        self.parts.push(Part::Run(command));
        self
    }

    /// More prose after a command.
    pub(super) fn then(mut self, text: impl Into<String>) -> Self {
        self.parts.push(Part::Say(text.into()));
        self
    }

    /// The step as a bullet: its prose wrapped to `width`, each command
    /// whole on its own line; every part cleaned.
    pub(super) fn render(&self, width: Option<usize>) -> String {
        let mut out = String::new();
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                Part::Say(text) => {
                    let first = if i == 0 { "  - " } else { TEXT_INDENT };
                    out.push_str(&paragraph(&clean(text), width, first, TEXT_INDENT));
                }
                Part::Run(command) => {
                    out.push_str(COMMAND_INDENT);
                    out.push_str(&clean(&command.render_with(crate::render::fit::bounded)));
                    out.push('\n');
                }
            }
        }
        out
    }
}

impl Step {
    /// The step on one line, for a document (`-o json|yaml`): its parts
    /// joined by spaces, each command exact (a document is not a screen).
    pub(super) fn line(&self) -> String {
        self.parts
            .iter()
            .map(|part| match part {
                Part::Say(text) => text.clone(),
                Part::Run(command) => command.render(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl From<&str> for Step {
    fn from(text: &str) -> Self {
        Step::say(text)
    }
}

impl From<String> for Step {
    fn from(text: String) -> Self {
        Step::say(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_stand_on_their_own_lines_whole_and_without_backquotes() {
        let revoke = |name: &str| {
            CommandLine::new("kubectl valkey-roll revoke")
                .arg(name)
                .opt("-n", "prod")
        };
        // (case, step, width, rendered)
        let cases: Vec<(&str, Step, Option<usize>, &str)> = vec![
            (
                "prose, a command, prose",
                Step::say("Remove its permit:")
                    .run(revoke("cache-0-1"))
                    .then("It does not roll the pod back."),
                None,
                "  - Remove its permit:\n      kubectl valkey-roll revoke cache-0-1 -n prod\n    It does not roll the pod back.\n",
            ),
            (
                "a name with a backquote",
                Step::say("Remove its permit:").run(revoke("a`id`b")),
                None,
                "  - Remove its permit:\n      kubectl valkey-roll revoke 'a`id`b' -n prod\n",
            ),
            (
                "a command wider than the screen is not wrapped",
                Step::say("Remove its permit:").run(revoke("a-very-long-node-name-0-1")),
                Some(30),
                "  - Remove its permit:\n      kubectl valkey-roll revoke a-very-long-node-name-0-1 -n prod\n",
            ),
            (
                "an escape in a name is cleaned",
                Step::say("Remove its permit:").run(revoke("a\u{1b}[2Jb")),
                None,
                "  - Remove its permit:\n      kubectl valkey-roll revoke 'a\\u{1b}[2Jb' -n prod\n",
            ),
        ];
        for (case, step, width, want) in cases {
            assert_eq!(step.render(width), want, "{case}");
        }
    }
}
