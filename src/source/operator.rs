//! The valkey-operator's leader-election Lease, for `explain` when the
//! operator looks silent (docs/plugin.md, "A silent operator"): who leads and
//! when it last renewed. One GET; reading it needs `get` on leases in the
//! operator's namespace, which the README's Role lists as optional, so a
//! Lease that cannot be read is a value that `explain` words in one line,
//! never an error.

use crate::snapshot::{LEASE_NAME, LeaseRead, OperatorLease};
use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;

/// Reads the Lease [`LEASE_NAME`] in `namespace`.
pub(crate) async fn lease(client: &kube::Client, namespace: &str) -> LeaseRead {
    let leases: Api<Lease> = Api::namespaced(client.clone(), namespace);
    match leases.get(LEASE_NAME).await {
        Ok(l) => {
            let spec = l.spec.unwrap_or_default();
            LeaseRead::Read(OperatorLease {
                namespace: namespace.to_string(),
                holder: spec.holder_identity,
                renewed_at: spec.renew_time.map(|t| t.0),
            })
        }
        Err(kube::Error::Api(status)) if status.code == 403 => LeaseRead::Forbidden {
            namespace: namespace.to_string(),
        },
        Err(kube::Error::Api(status)) if status.code == 404 => LeaseRead::NotFound {
            namespace: namespace.to_string(),
        },
        Err(kube::Error::Api(status)) => LeaseRead::Failed(format!(
            "{} (HTTP {})",
            super::live::status_message(&status),
            status.code
        )),
        Err(other) => LeaseRead::Failed(other.to_string()),
    }
}
