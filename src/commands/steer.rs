//! `steer` (not built yet).
use crate::app::Ctx;
use crate::error::{Error, Outcome, Result};
pub async fn grant(_ctx: &Ctx, _args: &crate::cli::GrantArgs) -> Result<Outcome> {
    Err(Error::Other("grant is not built yet".into()))
}
pub async fn revoke(_ctx: &Ctx, _args: &crate::cli::RevokeArgs) -> Result<Outcome> {
    Err(Error::Other("revoke is not built yet".into()))
}
pub async fn force(_ctx: &Ctx, _args: &crate::cli::ForceArgs) -> Result<Outcome> {
    Err(Error::Other("force is not built yet".into()))
}
