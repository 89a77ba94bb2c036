//! Certificates and kubeconfigs for the test API server: one CA signs the
//! serving certificate (127.0.0.1, localhost) and every client certificate
//! (the admin in `system:masters`, and users minted by tests).

use std::fs;
use std::path::Path;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};

/// The CA, kept in PEM so that it can sign from any thread.
pub struct Ca {
    pub cert_pem: String,
    params: CertificateParams,
    key_pem: String,
}

/// A certificate and its private key, PEM.
pub struct Pair {
    pub cert_pem: String,
    pub key_pem: String,
}

impl Ca {
    pub fn new() -> Ca {
        let key = KeyPair::generate().expect("generate CA key");
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params
            .distinguished_name
            .push(DnType::CommonName, "kubectl-valkey-roll test CA");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let cert = params.self_signed(&key).expect("self-sign CA");
        Ca {
            cert_pem: cert.pem(),
            params,
            key_pem: key.serialize_pem(),
        }
    }

    fn sign(&self, params: CertificateParams) -> Pair {
        let ca_key = KeyPair::from_pem(&self.key_pem).expect("CA key");
        let issuer = Issuer::from_params(&self.params, ca_key);
        let key = KeyPair::generate().expect("generate key");
        let cert = params.signed_by(&key, &issuer).expect("sign certificate");
        Pair {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        }
    }

    /// The API server's serving certificate.
    pub fn serving(&self) -> Pair {
        let sans = [
            "127.0.0.1",
            "localhost",
            "10.0.0.1",
            "kubernetes",
            "kubernetes.default",
            "kubernetes.default.svc",
        ];
        let mut params =
            CertificateParams::new(sans.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .expect("serving params");
        params
            .distinguished_name
            .push(DnType::CommonName, "kube-apiserver");
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        self.sign(params)
    }

    /// A client certificate: the API server's x509 authenticator takes the
    /// user name from CN and the groups from O. rcgen writes one value per
    /// attribute type, so a second group goes into a second O attribute under
    /// the same OID; more than two groups cannot be expressed.
    /// A client certificate as [`Ca::client`], valid only from `not_before`
    /// until `not_after` (whole days, UTC): an expired one, say.
    pub fn client_valid(
        &self,
        cn: &str,
        not_before: (i32, u8, u8),
        not_after: (i32, u8, u8),
    ) -> Pair {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("client params");
        params.distinguished_name.push(DnType::CommonName, cn);
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        params.not_before = rcgen::date_time_ymd(not_before.0, not_before.1, not_before.2);
        params.not_after = rcgen::date_time_ymd(not_after.0, not_after.1, not_after.2);
        self.sign(params)
    }

    /// A server's certificate for `names` (DNS names), valid from
    /// `not_before` until `not_after` (whole days, UTC).
    pub fn server_valid(
        &self,
        names: &[&str],
        not_before: (i32, u8, u8),
        not_after: (i32, u8, u8),
    ) -> Pair {
        let mut params =
            CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .expect("server params");
        params.distinguished_name.push(DnType::CommonName, names[0]);
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.not_before = rcgen::date_time_ymd(not_before.0, not_before.1, not_before.2);
        params.not_after = rcgen::date_time_ymd(not_after.0, not_after.1, not_after.2);
        self.sign(params)
    }

    pub fn client(&self, cn: &str, groups: &[&str]) -> Pair {
        assert!(
            groups.len() <= 2,
            "mint_user supports at most two groups (got {groups:?})"
        );
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("client params");
        params.distinguished_name.push(DnType::CommonName, cn);
        if let Some(g) = groups.first() {
            params.distinguished_name.push(DnType::OrganizationName, *g);
        }
        if let Some(g) = groups.get(1) {
            params
                .distinguished_name
                .push(DnType::CustomDnType(vec![2, 5, 4, 10]), *g);
        }
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        self.sign(params)
    }
}

/// A fresh key pair for signing service-account tokens: (private key in
/// PKCS#8 PEM, public key in PKIX PEM).
pub fn service_account_keys() -> (String, String) {
    let key = KeyPair::generate().expect("generate service-account key");
    (key.serialize_pem(), key.public_key_pem())
}

/// Standard base64 (RFC 4648, with padding), for kubeconfig `*-data` fields.
pub fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Writes a kubeconfig with one cluster, one user (a client certificate) and
/// one context, `testbin`, which is current. The context carries `namespace`
/// when given. Everything is inline (`*-data`), so the file stands alone.
pub fn write_kubeconfig(
    path: &Path,
    server_url: &str,
    ca_pem: &str,
    user: &str,
    client: &Pair,
    namespace: Option<&str>,
) {
    let ns_line = namespace
        .map(|ns| format!("    namespace: {ns}\n"))
        .unwrap_or_default();
    let text = format!(
        "apiVersion: v1\n\
         kind: Config\n\
         clusters:\n\
         - name: testbin\n\
         \x20 cluster:\n\
         \x20   server: {server_url}\n\
         \x20   certificate-authority-data: {ca}\n\
         users:\n\
         - name: {user}\n\
         \x20 user:\n\
         \x20   client-certificate-data: {cert}\n\
         \x20   client-key-data: {key}\n\
         contexts:\n\
         - name: testbin\n\
         \x20 context:\n\
         \x20   cluster: testbin\n\
         \x20   user: {user}\n\
         {ns_line}\
         current-context: testbin\n\
         preferences: {{}}\n",
        ca = base64(ca_pem.as_bytes()),
        cert = base64(client.cert_pem.as_bytes()),
        key = base64(client.key_pem.as_bytes()),
    );
    fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}
