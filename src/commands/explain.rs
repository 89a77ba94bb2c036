//! `explain` (not built yet).
use crate::app::Ctx;
use crate::error::{Error, Outcome, Result};
pub async fn run(_ctx: &Ctx, _args: &crate::cli::ExplainArgs) -> Result<Outcome> {
    Err(Error::Other("explain is not built yet".into()))
}
