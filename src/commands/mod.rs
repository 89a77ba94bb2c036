//! One module per command; each returns an `crate::error::Outcome` and
//! gets the `Ctx` it was run in.

use crate::cli::GlobalArgs;
use crate::render::fit::Screen;
use crate::source;
use jiff::Timestamp;

pub(crate) mod bundle;
pub mod completion;
pub(crate) mod contexts;
pub(crate) mod dashboard;
pub(crate) mod explain;
pub(crate) mod exporter;
pub(crate) mod history;
pub(crate) mod http;
pub(crate) mod shared;
pub(crate) mod status;
pub(crate) mod steer;
pub(crate) mod version;
pub(crate) mod wait;
pub(crate) mod watch;

/// What every command may know about how it was run.
#[derive(Debug, Clone)]
pub(crate) struct Ctx {
    pub global: GlobalArgs,
    /// Colour the output (a terminal, no `--no-color`, no `NO_COLOR`).
    pub color: bool,
    /// stdout is a terminal (redraw in place for `--watch`).
    pub stdout_is_terminal: bool,
    /// stdin is a terminal (a steering command may ask for confirmation).
    pub stdin_is_terminal: bool,
}

/// Where the flags say to read from ([`source::Target`]).
pub(crate) fn target(global: &GlobalArgs) -> source::Target {
    source::Target {
        file: global.from_file.clone(),
        namespace: global.namespace.clone(),
        all_namespaces: global.all_namespaces,
        access: access(global),
    }
}

/// How the flags say to reach the API server ([`source::Access`]): the one
/// `--context` given (commands that read several run once per context).
pub(crate) fn access(global: &GlobalArgs) -> source::Access {
    source::Access {
        kubeconfig: global.kubeconfig.clone(),
        context: global.context().map(str::to_string),
        kube_cluster: global.kube_cluster.clone(),
        user: global.user.clone(),
        impersonate: global.impersonate.clone(),
        impersonate_groups: global.impersonate_groups.clone(),
        request_timeout: global.request_timeout,
    }
}

impl Ctx {
    /// What the command reads ([`target`] of its flags).
    pub(crate) fn target(&self) -> source::Target {
        target(&self.global)
    }

    /// How the command reaches the API server ([`access`] of its flags).
    pub(crate) fn access(&self) -> source::Access {
        access(&self.global)
    }

    /// The clock: `--now`, else the real one.
    pub(crate) fn now(&self) -> Timestamp {
        self.global.now.unwrap_or_else(Timestamp::now)
    }

    /// The width text is fitted to: `--width` (0: none), else `COLUMNS`,
    /// else the terminal's when stdout is one; none when piped (whole
    /// lines, as a program reading them wants). Asked again on every
    /// render, so `--watch` follows a terminal that was resized.
    pub(crate) fn width(&self) -> Option<usize> {
        let columns = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse::<usize>().ok())
            .filter(|c| *c > 0);
        let width = match (self.global.width, columns) {
            (Some(0), _) => None,
            (Some(w), _) => Some(w),
            (None, Some(c)) => Some(c),
            (None, None) if self.stdout_is_terminal => Some(terminal_columns().unwrap_or(80)),
            (None, None) => None,
        };
        // Narrower than this, nothing reads well: lines break where they must.
        width.map(|w| w.max(MIN_WIDTH))
    }

    /// What text output is fitted to: colour, width, headers.
    pub(crate) fn screen(&self) -> Screen {
        Screen {
            color: self.color,
            width: self.width(),
            no_headers: self.global.no_headers,
        }
    }
}

/// The narrowest width text is fitted to.
pub(crate) const MIN_WIDTH: usize = 40;

/// The columns of the terminal on stdout, when it is one and says.
fn terminal_columns() -> Option<usize> {
    let mut size = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ only writes a winsize into the one we pass.
    let rc = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) };
    (rc == 0 && size.ws_col > 0).then_some(usize::from(size.ws_col))
}
