//! Reports to text. Every renderer is pure: data and a colour flag in, a
//! `String` out; only `main` prints.
//!
//! - [`table`]: `status` for people (`-o table|wide`).
//! - `contexts`: `status` over several kubeconfig contexts.
//! - [`json`]: the documents of docs/plugin.md (`-o json|yaml`).
//! - `metrics`: the exporter's Prometheus metrics and readiness.
//! - `name`: `-o name`.
//! - `notice`: what a view says of itself (no clusters, a partial read).
//! - `wait`: `wait`'s progress lines and why it stopped.
//! - `watch`: `status --watch`'s last line and connection state.
//! - `clock`: what is said about `--now`, and the requests `-v` logs.
//! - `explain`: one node or one cluster as prose and a timeline.
//! - `steer`: steering plans and results.
//! - `step`: a thing to do next, prose and commands (`explain`, a refusal's
//!   way out).
//! - `history`: `history`'s table and document, the roll so far.
//! - `svg`: `history -o svg`, the roll as a picture on a time axis.
//! - `dashboard`: `dashboard`'s page and what its events carry.
//! - `words`: the sentences of reasons, roles and evidence (each report
//!   type's `Display` and its JSON `reason`).
//! - `style`: colour by severity, and neutralising control characters.
//! - `fit`: text fitted to a terminal's width (wrapped, cut, columns left out).
pub(crate) mod clock;
pub(crate) mod contexts;
pub(crate) mod dashboard;
pub(crate) mod explain;
pub(crate) mod fit;
pub(crate) mod history;
pub mod json;
pub(crate) mod metrics;
pub(crate) mod name;
pub(crate) mod notice;
pub(crate) mod steer;
mod step;
pub(crate) mod style;
pub(crate) mod svg;
pub mod table;
pub(crate) mod wait;
pub(crate) mod watch;
pub(crate) mod words;

#[cfg(test)]
mod end_to_end;
