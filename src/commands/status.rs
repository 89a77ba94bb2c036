//! `status` (not built yet).
use crate::app::Ctx;
use crate::error::{Error, Outcome, Result};
pub async fn run(_ctx: &Ctx, _args: &crate::cli::StatusArgs) -> Result<Outcome> {
    Err(Error::Other("status is not built yet".into()))
}
