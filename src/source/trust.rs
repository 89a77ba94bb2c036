//! The CA that verifies the servers of a TLS cluster (docs/servers.md,
//! "TLS"): a PEM file the person gives (`--servers-ca FILE`) or one key of
//! a ConfigMap (`--servers-ca-configmap NAMESPACE/NAME[:KEY]`, one GET by
//! name). Never the operator's certificate Secret: it holds the servers'
//! private key (`tls.key`) beside its `ca.crt`, and a read-only tool does
//! not read that.
//!
//! The CA becomes a rustls client configuration (the ring provider, as
//! kube's own TLS to the API server) that verifies each server's
//! certificate against it alone, and its name as the operator does
//! ([`server_name`]). No client certificate: the operator's servers run
//! with `tls-auth-clients optional`.

use std::path::PathBuf;
use std::sync::Arc;

use k8s_openapi::api::core::v1::ConfigMap;
use rustls::ClientConfig;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName};

use super::live::Live;
use crate::snapshot::{CaTrouble, TlsRefusal};

/// Where the CA is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CaFrom {
    /// A PEM file on this machine.
    File(PathBuf),
    /// The key `key` of the ConfigMap `namespace/name`.
    ConfigMap {
        namespace: String,
        name: String,
        key: String,
    },
}

/// The most bytes of a CA bundle read (a file or a ConfigMap's key): a
/// bundle of a few hundred certificates; more is not a CA.
const MOST_BYTES: usize = 1024 * 1024;

/// Reads the CA and builds the client configuration that verifies a
/// cluster's servers with it.
pub(crate) async fn load(live: &Live, from: &CaFrom) -> Result<Arc<ClientConfig>, CaTrouble> {
    let pem = match from {
        CaFrom::File(path) => read_file(path).await?,
        CaFrom::ConfigMap {
            namespace,
            name,
            key,
        } => read_configmap(live, namespace, name, key).await?,
    };
    config(&pem)
}

/// A local file of at most [`MOST_BYTES`] (one more byte is read, to
/// know it is past them); read off the async workers.
async fn read_file(path: &std::path::Path) -> Result<Vec<u8>, CaTrouble> {
    use std::io::Read;
    let path = path.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let file = std::fs::File::open(path).map_err(|_| CaTrouble::Missing)?;
        let mut bytes = Vec::new();
        file.take(MOST_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|_| CaTrouble::Missing)?;
        Ok(bytes)
    })
    .await
    .unwrap_or(Err(CaTrouble::Missing))
}

async fn read_configmap(
    live: &Live,
    namespace: &str,
    name: &str,
    key: &str,
) -> Result<Vec<u8>, CaTrouble> {
    let api: kube::Api<ConfigMap> = kube::Api::namespaced(live.client.clone(), namespace);
    let map = match api.get(name).await {
        Ok(m) => m,
        Err(kube::Error::Api(status)) if status.code == 403 => return Err(CaTrouble::Forbidden),
        Err(_) => return Err(CaTrouble::Missing),
    };
    if let Some(text) = map.data.and_then(|mut d| d.remove(key)) {
        return Ok(text.into_bytes());
    }
    map.binary_data
        .and_then(|mut d| d.remove(key))
        .map(|b| b.0)
        .ok_or(CaTrouble::Missing)
}

/// The client configuration of a PEM bundle: every certificate in it is a
/// root; none, or a bundle past [`MOST_BYTES`], is [`CaTrouble::NotPem`].
pub(crate) fn config(pem: &[u8]) -> Result<Arc<ClientConfig>, CaTrouble> {
    if pem.len() > MOST_BYTES {
        return Err(CaTrouble::NotPem);
    }
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(pem) {
        let cert = cert.map_err(|_| CaTrouble::NotPem)?;
        roots.add(cert).map_err(|_| CaTrouble::NotPem)?;
    }
    if roots.is_empty() {
        return Err(CaTrouble::NotPem);
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|_| CaTrouble::NotPem)?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// The name a cluster's servers are verified by, as the operator verifies
/// them (c33988f, internal/controller/valkeycluster_controller.go and
/// utils.go `getTLSConfig`): its headless Service's DNS name,
/// `valkey-<cluster>.<namespace>.svc.cluster.local`. None when the names
/// make no DNS name.
pub(crate) fn server_name(namespace: &str, cluster: &str) -> Option<ServerName<'static>> {
    ServerName::try_from(format!("valkey-{cluster}.{namespace}.svc.cluster.local")).ok()
}

/// Why a handshake failed, from the error tokio-rustls gives.
pub(crate) fn refusal(e: &std::io::Error) -> Option<TlsRefusal> {
    use rustls::{CertificateError, Error, InvalidMessage};
    let inner = e.get_ref()?.downcast_ref::<Error>()?;
    Some(match inner {
        Error::InvalidCertificate(c) => match c {
            // Signed by another CA than the one given: of another name
            // (unknown issuer), or of the same name with another key (a
            // rotated CA: the signature does not verify).
            CertificateError::UnknownIssuer | CertificateError::BadSignature => {
                TlsRefusal::UnknownIssuer
            }
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                TlsRefusal::WrongName
            }
            CertificateError::Expired
            | CertificateError::ExpiredContext { .. }
            | CertificateError::NotValidYet
            | CertificateError::NotValidYetContext { .. } => TlsRefusal::Expired,
            _ => TlsRefusal::Other,
        },
        // The first bytes back are no TLS record: a plain-text server.
        Error::InvalidMessage(
            InvalidMessage::InvalidContentType | InvalidMessage::UnknownProtocolVersion,
        ) => TlsRefusal::NotTls,
        _ => TlsRefusal::Other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_is_pem_certificates_and_nothing_else() {
        let ca = rcgen::CertificateParams::new(Vec::<String>::new())
            .unwrap()
            .self_signed(&rcgen::KeyPair::generate().unwrap())
            .unwrap()
            .pem();
        let cases: [(&str, Vec<u8>, Result<(), CaTrouble>); 5] = [
            ("one CA", ca.clone().into_bytes(), Ok(())),
            ("two", format!("{ca}{ca}").into_bytes(), Ok(())),
            ("empty", Vec::new(), Err(CaTrouble::NotPem)),
            (
                "a key, no certificate",
                b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".to_vec(),
                Err(CaTrouble::NotPem),
            ),
            (
                "past the bound",
                ca.repeat(MOST_BYTES / ca.len() + 1).into_bytes(),
                Err(CaTrouble::NotPem),
            ),
        ];
        for (what, pem, want) in cases {
            assert_eq!(config(&pem).map(|_| ()), want, "{what}");
        }
    }

    /// Each handshake error rustls gives is the refusal it names; an I/O
    /// error of no TLS is none.
    #[test]
    fn a_refusal_is_named_for_its_reason() {
        use rustls::{CertificateError, Error, InvalidMessage};
        let cases: [(Error, TlsRefusal); 8] = [
            (
                Error::InvalidCertificate(CertificateError::UnknownIssuer),
                TlsRefusal::UnknownIssuer,
            ),
            (
                Error::InvalidCertificate(CertificateError::BadSignature),
                TlsRefusal::UnknownIssuer,
            ),
            (
                Error::InvalidCertificate(CertificateError::NotValidForName),
                TlsRefusal::WrongName,
            ),
            (
                Error::InvalidCertificate(CertificateError::Expired),
                TlsRefusal::Expired,
            ),
            (
                Error::InvalidCertificate(CertificateError::NotValidYet),
                TlsRefusal::Expired,
            ),
            (
                Error::InvalidMessage(InvalidMessage::InvalidContentType),
                TlsRefusal::NotTls,
            ),
            (
                Error::InvalidMessage(InvalidMessage::HandshakePayloadTooLarge),
                TlsRefusal::Other,
            ),
            (
                Error::InvalidCertificate(CertificateError::Revoked),
                TlsRefusal::Other,
            ),
        ];
        for (error, want) in cases {
            let what = format!("{error:?}");
            let io = std::io::Error::new(std::io::ErrorKind::InvalidData, error);
            assert_eq!(refusal(&io), Some(want), "{what}");
        }
        let eof = std::io::Error::from(std::io::ErrorKind::UnexpectedEof);
        assert_eq!(refusal(&eof), None);
    }

    #[test]
    fn the_server_name_is_the_operators() {
        assert_eq!(
            server_name("prod", "cache").map(|n| n.to_str().into_owned()),
            Some("valkey-cache.prod.svc.cluster.local".to_string())
        );
    }
}
