//! What the connection presents, so that a rejected credential or an
//! untrusted server can be explained in kubectl's words: which kubeconfig
//! file, which user and cluster entry, and, for a client certificate, until
//! when it is valid.
//!
//! The API server answers a bad client certificate with a bare 401 (it
//! verifies client certificates after the handshake, in its x509
//! authenticator), so only the client can tell an expired certificate from
//! one signed by a CA the server does not trust: it reads the certificate's
//! validity here, from the kubeconfig, without any request.

use base64::Engine;
use jiff::Timestamp;
use kube::config::AuthInfo;

/// The credentials and files a connection was made from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Credentials {
    /// The kubeconfig file(s), as kubectl would name them; `None` in a pod.
    pub kubeconfig: Option<String>,
    /// The kubeconfig's user entry (or `--user`).
    pub user: Option<String>,
    /// The kubeconfig's cluster entry (or `--cluster`).
    pub cluster: Option<String>,
    pub kind: CredentialKind,
}

/// What the user entry authenticates with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum CredentialKind {
    /// A client certificate, valid from..until (`None` when it cannot be
    /// read here; the TLS layer will say why).
    ClientCertificate {
        not_before: Option<Timestamp>,
        not_after: Option<Timestamp>,
    },
    Token,
    /// An exec plugin or an auth provider: it mints the credential.
    Plugin,
    Basic,
    #[default]
    None,
}

impl Credentials {
    /// What `auth` presents, read without any request.
    pub(crate) fn of(
        auth: &AuthInfo,
        kubeconfig: Option<String>,
        user: Option<String>,
        cluster: Option<String>,
    ) -> Credentials {
        let kind = if auth.client_certificate_data.is_some() || auth.client_certificate.is_some() {
            let pem = client_certificate_pem(auth);
            let validity = pem.as_deref().and_then(certificate_validity);
            CredentialKind::ClientCertificate {
                not_before: validity.map(|v| v.0),
                not_after: validity.map(|v| v.1),
            }
        } else if auth.token.is_some() || auth.token_file.is_some() {
            CredentialKind::Token
        } else if auth.exec.is_some() || auth.auth_provider.is_some() {
            CredentialKind::Plugin
        } else if auth.username.is_some() {
            CredentialKind::Basic
        } else {
            CredentialKind::None
        };
        Credentials {
            kubeconfig,
            user,
            cluster,
            kind,
        }
    }

    /// ` user "dave" in kubeconfig /home/me/.kube/config`
    pub(crate) fn user_in_file(&self) -> String {
        let mut s = String::new();
        if let Some(user) = &self.user {
            s.push_str(&format!(" of user \"{user}\""));
        }
        if let Some(file) = &self.kubeconfig {
            s.push_str(&format!(" in kubeconfig {file}"));
        }
        s
    }

    /// Why the API server answered 401, as far as the client can tell at
    /// `now`, and what to do.
    pub(crate) fn why_rejected(&self, now: Timestamp) -> String {
        let whose = self.user_in_file();
        match &self.kind {
            CredentialKind::ClientCertificate {
                not_after: Some(until),
                not_before,
            } => {
                if *until <= now {
                    format!(
                        "the client certificate{whose} expired at {until}; get a new one (log in again)"
                    )
                } else if not_before.is_some_and(|from| from > now) {
                    format!(
                        "the client certificate{whose} is not valid before {}; check this machine's clock",
                        not_before.map(|t| t.to_string()).unwrap_or_default()
                    )
                } else {
                    format!(
                        "the client certificate{whose} (valid until {until}) is not accepted: it is not signed by a CA this API server trusts, or it was issued for another cluster; check --context or log in again"
                    )
                }
            }
            CredentialKind::ClientCertificate { .. } => format!(
                "the client certificate{whose} is not accepted (it could not be read here to tell why); log in again or check --kubeconfig/--context"
            ),
            CredentialKind::Token => format!(
                "the token{whose} is not accepted (expired or revoked); log in again or check --kubeconfig/--context"
            ),
            CredentialKind::Plugin => format!(
                "the credential that the exec plugin or auth provider{whose} gave is not accepted; log in again"
            ),
            CredentialKind::Basic => format!(
                "the user name and password{whose} are not accepted; check --kubeconfig/--context"
            ),
            CredentialKind::None => {
                format!("no credentials{whose} were sent; check --kubeconfig, --context and --user")
            }
        }
    }
}

/// The user's client certificate, PEM, from `client-certificate-data` or
/// the file `client-certificate` names.
fn client_certificate_pem(auth: &AuthInfo) -> Option<Vec<u8>> {
    if let Some(data) = &auth.client_certificate_data {
        return base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .ok();
    }
    std::fs::read(auth.client_certificate.as_ref()?).ok()
}

/// (notBefore, notAfter) of the first certificate in `pem`.
pub(crate) fn certificate_validity(pem: &[u8]) -> Option<(Timestamp, Timestamp)> {
    let block = pem::parse_many(pem)
        .ok()?
        .into_iter()
        .find(|b| b.tag() == "CERTIFICATE")?;
    validity_of_der(block.contents())
}

/// One DER element: (tag, contents, what follows).
fn element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, mut rest) = rest.split_first()?;
    let len = if first < 0x80 {
        usize::from(first)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let (bytes, after) = rest.split_at(n);
        rest = after;
        bytes
            .iter()
            .fold(0usize, |acc, b| (acc << 8) | usize::from(*b))
    };
    if rest.len() < len {
        return None;
    }
    let (contents, after) = rest.split_at(len);
    Some((tag, contents, after))
}

/// Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version
/// OPTIONAL, serialNumber, signature, issuer, validity SEQUENCE { notBefore,
/// notAfter }, ... }, ... } (RFC 5280, 4.1).
fn validity_of_der(der: &[u8]) -> Option<(Timestamp, Timestamp)> {
    const SEQUENCE: u8 = 0x30;
    let (tag, certificate, _) = element(der)?;
    (tag == SEQUENCE).then_some(())?;
    let (tag, tbs, _) = element(certificate)?;
    (tag == SEQUENCE).then_some(())?;
    let mut rest = tbs;
    let (tag, _, after) = element(rest)?;
    if tag == 0xa0 {
        rest = after; // the explicit version
    }
    // serialNumber, signature, issuer
    for _ in 0..3 {
        rest = element(rest)?.2;
    }
    let (tag, validity, _) = element(rest)?;
    (tag == SEQUENCE).then_some(())?;
    let (t1, not_before, after) = element(validity)?;
    let (t2, not_after, _) = element(after)?;
    Some((asn1_time(t1, not_before)?, asn1_time(t2, not_after)?))
}

/// UTCTime (`YYMMDDHHMMSSZ`, years 1950..2049) or GeneralizedTime
/// (`YYYYMMDDHHMMSSZ`).
fn asn1_time(tag: u8, text: &[u8]) -> Option<Timestamp> {
    let text = std::str::from_utf8(text).ok()?;
    let digits = text.strip_suffix('Z')?;
    let full = match (tag, digits.len()) {
        (0x17, 12) => {
            let yy: u32 = digits.get(..2)?.parse().ok()?;
            let century = if yy >= 50 { "19" } else { "20" };
            format!("{century}{digits}")
        }
        (0x18, 14) => digits.to_string(),
        _ => return None,
    };
    let f = |r: std::ops::Range<usize>| full.get(r);
    let iso = format!(
        "{}-{}-{}T{}:{}:{}Z",
        f(0..4)?,
        f(4..6)?,
        f(6..8)?,
        f(8..10)?,
        f(10..12)?,
        f(12..14)?
    );
    iso.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn certificate(from: &str, until: &str) -> String {
        let key = rcgen::KeyPair::generate().expect("key");
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("params");
        let time = |s: &str| {
            let t: Timestamp = s.parse().expect("time");
            rcgen::date_time_ymd(
                i32::from(t.to_zoned(jiff::tz::TimeZone::UTC).year()),
                t.to_zoned(jiff::tz::TimeZone::UTC).month() as u8,
                t.to_zoned(jiff::tz::TimeZone::UTC).day() as u8,
            )
        };
        params.not_before = time(from);
        params.not_after = time(until);
        params.self_signed(&key).expect("self-sign").pem()
    }

    #[test]
    fn reads_the_validity_of_a_certificate() {
        // UTCTime before 2050, GeneralizedTime from 2050 (RFC 5280).
        for (from, until) in [
            ("2020-01-02T00:00:00Z", "2021-03-04T00:00:00Z"),
            ("2024-05-06T00:00:00Z", "2051-07-08T00:00:00Z"),
        ] {
            let pem = certificate(from, until);
            let (nb, na) = certificate_validity(pem.as_bytes()).expect("validity");
            assert_eq!(nb.to_string(), from, "{pem}");
            assert_eq!(na.to_string(), until, "{pem}");
        }
        assert_eq!(certificate_validity(b"not a certificate"), None);
        assert_eq!(
            certificate_validity(b"-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n"),
            None
        );
    }

    #[test]
    fn says_why_a_credential_was_rejected() {
        let now: Timestamp = "2026-11-29T10:00:00Z".parse().expect("time");
        let t = |s: &str| Some(s.parse::<Timestamp>().expect("time"));
        let creds = |kind| Credentials {
            kubeconfig: Some("/home/me/.kube/config".into()),
            user: Some("dave".into()),
            cluster: Some("prod".into()),
            kind,
        };
        let cases = [
            (
                CredentialKind::ClientCertificate {
                    not_before: t("2025-01-01T00:00:00Z"),
                    not_after: t("2026-01-01T00:00:00Z"),
                },
                "the client certificate of user \"dave\" in kubeconfig /home/me/.kube/config expired at 2026-01-01T00:00:00Z",
            ),
            (
                CredentialKind::ClientCertificate {
                    not_before: t("2025-01-01T00:00:00Z"),
                    not_after: t("2027-01-01T00:00:00Z"),
                },
                "not signed by a CA this API server trusts",
            ),
            (
                CredentialKind::ClientCertificate {
                    not_before: t("2027-01-01T00:00:00Z"),
                    not_after: t("2028-01-01T00:00:00Z"),
                },
                "is not valid before 2027-01-01T00:00:00Z",
            ),
            (CredentialKind::Token, "the token of user \"dave\""),
        ];
        for (kind, want) in cases {
            let got = creds(kind).why_rejected(now);
            assert!(got.contains(want), "{got}");
        }
    }
}
