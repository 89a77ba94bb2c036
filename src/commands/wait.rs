//! `wait` (not built yet).
use crate::app::Ctx;
use crate::error::{Error, Outcome, Result};
pub async fn run(_ctx: &Ctx, _args: &crate::cli::WaitArgs) -> Result<Outcome> {
    Err(Error::Other("wait is not built yet".into()))
}
