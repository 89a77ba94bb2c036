//! Reading a [`crate::snapshot::Snapshot`]: from a cluster or from a file. Not built yet.
