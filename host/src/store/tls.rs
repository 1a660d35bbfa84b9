//! TLS to PostgreSQL, on rustls: libpq's `sslmode` and `sslrootcert`
//! settings, read from the connection string (the configuration's
//! `postgres_sslmode` and `postgres_ca_file` are added to it, and win).
//!
//! | sslmode | encrypted | certificate checked |
//! |---|---|---|
//! | `disable` | no | — |
//! | `prefer` (the default) | if the server offers it | no |
//! | `require` | yes, or no connection | no |
//! | `verify-ca` | yes | chains to the CA |
//! | `verify-full` | yes | chains to the CA and names the host |
//!
//! `sslrootcert` is a PEM file of CA certificates, or `system` for the
//! operating system's store (also what the verifying modes use without it).

use std::sync::Arc;

use anyhow::Context;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio_postgres_rustls::MakeRustlsConnect;

/// How a connection uses TLS (libpq's `sslmode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    pub fn parse(text: &str) -> anyhow::Result<SslMode> {
        Ok(match text {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            other => anyhow::bail!(
                "sslmode {other:?} is not one of disable, prefer, require, verify-ca, verify-full"
            ),
        })
    }

    /// What tokio-postgres is told: whether TLS is tried, and required.
    pub fn driver_mode(self) -> tokio_postgres::config::SslMode {
        match self {
            SslMode::Disable => tokio_postgres::config::SslMode::Disable,
            SslMode::Prefer => tokio_postgres::config::SslMode::Prefer,
            _ => tokio_postgres::config::SslMode::Require,
        }
    }
}

/// The TLS settings of a connection string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tls {
    pub mode: SslMode,
    /// `sslrootcert`: a PEM file's path, or `system`.
    pub root_cert: Option<String>,
}

/// The settings that tokio-postgres does not read, taken out of a
/// connection string (URL or key=value form); the last of each wins.
pub fn split(conn: &str) -> anyhow::Result<(String, Tls)> {
    let mut tls = Tls {
        mode: SslMode::Prefer,
        root_cert: None,
    };
    let mut take = |key: &str, value: &str| -> anyhow::Result<bool> {
        match key {
            "sslmode" => tls.mode = SslMode::parse(value)?,
            "sslrootcert" => tls.root_cert = Some(value.to_string()),
            _ => return Ok(false),
        }
        Ok(true)
    };
    let rest = if is_url(conn) {
        let Some((base, query)) = conn.split_once('?') else {
            return Ok((conn.to_string(), tls));
        };
        let mut kept = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
            if !take(&k, &v)? {
                kept.append_pair(&k, &v);
            }
        }
        let kept = kept.finish();
        if kept.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{kept}")
        }
    } else {
        let mut kept = Vec::new();
        for (k, v, raw) in key_values(conn)? {
            if !take(&k, &v)? {
                kept.push(raw);
            }
        }
        kept.join(" ")
    };
    Ok((rest, tls))
}

/// The connection string with the configuration's TLS settings added
/// (after the string's own, so that they win).
pub fn with_settings(conn: &str, mode: Option<&str>, root_cert: Option<&str>) -> String {
    let pairs: Vec<(&str, &str)> = [("sslmode", mode), ("sslrootcert", root_cert)]
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?)))
        .collect();
    if pairs.is_empty() {
        return conn.to_string();
    }
    if is_url(conn) {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &pairs {
            query.append_pair(k, v);
        }
        let sep = if conn.contains('?') { '&' } else { '?' };
        format!("{conn}{sep}{}", query.finish())
    } else {
        let quoted: Vec<String> = pairs
            .iter()
            .map(|(k, v)| format!("{k}='{}'", v.replace('\\', "\\\\").replace('\'', "\\'")))
            .collect();
        format!("{conn} {}", quoted.join(" ")).trim().to_string()
    }
}

fn is_url(conn: &str) -> bool {
    conn.starts_with("postgres://") || conn.starts_with("postgresql://")
}

/// The `key=value` pairs of a key=value connection string, each with its
/// text as written; values may be single-quoted, with `\` escapes.
fn key_values(conn: &str) -> anyhow::Result<Vec<(String, String, String)>> {
    let mut out = Vec::new();
    let mut chars = conn.char_indices().peekable();
    loop {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let Some(&(start, _)) = chars.peek() else {
            return Ok(out);
        };
        let mut key = String::new();
        while let Some((_, c)) = chars.next_if(|(_, c)| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        anyhow::ensure!(
            chars.next().is_some_and(|(_, c)| c == '='),
            "postgres_url: `{key}` has no value"
        );
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let mut value = String::new();
        if chars.next_if(|(_, c)| *c == '\'').is_some() {
            loop {
                match chars.next() {
                    Some((_, '\\')) => value.extend(chars.next().map(|(_, c)| c)),
                    Some((_, '\'')) => break,
                    Some((_, c)) => value.push(c),
                    None => anyhow::bail!("postgres_url: the value of `{key}` is not closed"),
                }
            }
        } else {
            while let Some((_, c)) = chars.next_if(|(_, c)| !c.is_whitespace()) {
                value.push(c);
            }
        }
        let end = chars.peek().map_or(conn.len(), |(i, _)| *i);
        out.push((key, value, conn[start..end].trim_end().to_string()));
    }
}

/// The rustls connector for `tls`.
pub fn connector(tls: &Tls) -> anyhow::Result<MakeRustlsConnect> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .context("TLS protocol versions")?;
    let config = match tls.mode {
        SslMode::Disable | SslMode::Prefer | SslMode::Require => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unchecked(provider)))
            .with_no_client_auth(),
        SslMode::VerifyFull => builder
            .with_root_certificates(roots(tls.root_cert.as_deref())?)
            .with_no_client_auth(),
        SslMode::VerifyCa => {
            let chain = WebPkiServerVerifier::builder_with_provider(
                Arc::new(roots(tls.root_cert.as_deref())?),
                provider,
            )
            .build()
            .context("the CA certificates cannot verify servers")?;
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(AnyName(chain)))
                .with_no_client_auth()
        }
    };
    Ok(MakeRustlsConnect::new(config))
}

/// The CA certificates of `sslrootcert`.
fn roots(root_cert: Option<&str>) -> anyhow::Result<RootCertStore> {
    let mut roots = RootCertStore::empty();
    match root_cert {
        None | Some("system") => {
            let found = rustls_native_certs::load_native_certs();
            let (added, _) = roots.add_parsable_certificates(found.certs);
            anyhow::ensure!(
                added > 0,
                "no CA certificates in the system's store: set sslrootcert (postgres_ca_file) to a CA file"
            );
        }
        Some(path) => {
            let pem = std::fs::read(path)
                .with_context(|| format!("cannot read the CA file sslrootcert={path}"))?;
            let certs: Vec<CertificateDer<'static>> = rustls_pemfile::certs(&mut pem.as_slice())
                .collect::<Result<_, _>>()
                .with_context(|| format!("{path} is not a PEM file of certificates"))?;
            let (added, _) = roots.add_parsable_certificates(certs);
            anyhow::ensure!(added > 0, "{path} holds no CA certificate");
        }
    }
    Ok(roots)
}

/// `prefer` and `require`: the server's certificate is not checked (as
/// libpq does), only its handshake signatures.
#[derive(Debug)]
struct Unchecked(Arc<CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain is checked, the name it is for is not.
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, name, ocsp, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_settings_leave_the_connection_string_in_both_forms() {
        let (rest, tls) = split(
            "postgres://u@db:5432/x?application_name=a&sslmode=verify-full&sslrootcert=%2Fca.pem",
        )
        .unwrap();
        assert_eq!(rest, "postgres://u@db:5432/x?application_name=a");
        assert_eq!(tls.mode, SslMode::VerifyFull);
        assert_eq!(tls.root_cert.as_deref(), Some("/ca.pem"));
        let (rest, tls) =
            split("host=db user=u sslmode=require sslrootcert='/a b/ca.pem' dbname=x").unwrap();
        assert_eq!(rest, "host=db user=u dbname=x");
        assert_eq!(tls.mode, SslMode::Require);
        assert_eq!(tls.root_cert.as_deref(), Some("/a b/ca.pem"));
        let (rest, tls) = split("postgres://u@db/x").unwrap();
        assert_eq!(
            (rest.as_str(), tls.mode),
            ("postgres://u@db/x", SslMode::Prefer)
        );
        assert!(split("postgres://db/x?sslmode=verify").is_err());
    }

    #[test]
    fn the_configuration_s_settings_win_over_the_string_s() {
        let url = with_settings(
            "postgres://db/x?sslmode=disable",
            Some("verify-full"),
            Some("/c a.pem"),
        );
        let (_, tls) = split(&url).unwrap();
        assert_eq!(tls.mode, SslMode::VerifyFull);
        assert_eq!(tls.root_cert.as_deref(), Some("/c a.pem"));
        let kv = with_settings(
            "host=db sslmode=disable",
            Some("require"),
            Some("/it's.pem"),
        );
        let (rest, tls) = split(&kv).unwrap();
        assert_eq!(rest, "host=db");
        assert_eq!(tls.mode, SslMode::Require);
        assert_eq!(tls.root_cert.as_deref(), Some("/it's.pem"));
        assert_eq!(with_settings("host=db", None, None), "host=db");
    }
}
