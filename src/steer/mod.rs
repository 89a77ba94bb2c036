//! Steering: a pure plan and a small executor. Not built yet.
