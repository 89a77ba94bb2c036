//! `completion` (not built yet).
use crate::app::Ctx;
use crate::error::{Error, Outcome, Result};
pub fn run(_args: &crate::cli::CompletionArgs) -> Result<Outcome> {
    Err(Error::Other("completion is not built yet".into()))
}
pub async fn complete(_ctx: &Ctx, _args: &crate::cli::CompleteArgs) -> Result<Outcome> {
    Ok(Outcome::ok(String::new()))
}
