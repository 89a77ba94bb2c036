//! What reading found about the view itself rather than about its objects:
//! the kinds a partial read left out, the objects a file held more than
//! once. The reading layer finds them, the commands pass them on, render
//! says them (`render::notice`); plain data, so that render meets the
//! reading layer only here.

/// A kind a partial read left out, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unread {
    /// The resource, e.g. `pods`.
    pub resource: String,
    /// The error, as it would have been reported.
    pub error: String,
}

/// An object the text holds more than once (the same kind, namespace and
/// name): people append dumps to bundles, and two copies of a node must
/// not read as two nodes in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duplicate {
    pub kind: &'static str,
    pub namespace: String,
    pub name: String,
    pub copies: usize,
}
