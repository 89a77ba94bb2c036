//! `kubectl-valkey_roll`: the executable name kubectl looks up for
//! `kubectl valkey-roll` (dashes typed become underscores), and the name krew
//! links. The same program as `kubectl-valkey-roll`.

fn main() -> std::process::ExitCode {
    kubectl_valkey_roll::app::main()
}
