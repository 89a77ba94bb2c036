//! `kubectl-valkey-roll`: the program lives in the library, shared with the
//! `kubectl-valkey_roll` name that kubectl looks up.

fn main() -> std::process::ExitCode {
    kubectl_valkey_roll::app::main()
}
