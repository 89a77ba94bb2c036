//! One module per command; each returns an [`crate::error::Outcome`].
pub mod bundle;
pub mod completion;
pub mod explain;
pub mod history;
pub mod status;
pub mod steer;
pub mod version;
pub mod wait;
pub mod watch;
