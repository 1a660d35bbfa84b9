//! The hard wall on outbound targets (SPEC §8): the one checker that guards
//! page fetches and webhook deliveries alike.
//!
//! - Only public unicast addresses are reachable. Private, loopback,
//!   link-local, CGNAT, multicast, documentation, benchmarking, reserved,
//!   unspecified and metadata ranges are refused, also when spelled as an
//!   IPv4-mapped, IPv4-compatible, NAT64 or 6to4 IPv6 address, and also in the
//!   decimal, octal and hex IPv4 spellings (the URL parser normalizes those to
//!   dotted form before we look).
//! - Names are resolved by `CheckedResolver` at every connection, and the
//!   connection goes to exactly the addresses that were checked, so nothing
//!   can rebind between check and connect.
//! - `allow_private` (the development flag) admits loopback and private
//!   addresses, over plain http too; cloud metadata addresses stay refused.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

/// Why a target was refused.
#[derive(Debug, Clone, thiserror::Error)]
#[error("target refused: {0}")]
pub struct Refused(pub String);

/// What the target is for: pages may be http or https; webhooks https only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Page,
    Webhook,
}

/// The policy shared by every outbound request.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// Development only: loopback and private addresses, and plain http.
    pub allow_private: bool,
    /// Names answered without DNS, like curl's --resolve (for split-horizon
    /// setups and tests). The answers are checked like any other.
    pub resolve_overrides: HashMap<String, Vec<IpAddr>>,
}

/// Cloud metadata endpoints: refused even in development.
fn is_metadata(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            v4 == Ipv4Addr::new(169, 254, 169, 254) || v4 == Ipv4Addr::new(100, 100, 100, 200)
        }
        IpAddr::V6(v6) => v6 == "fd00:ec2::254".parse::<Ipv6Addr>().unwrap(),
    }
}

/// Is this a public unicast IPv4 address?
pub fn is_public_v4(ip: Ipv4Addr) -> bool {
    let o = ip.octets();
    !(o[0] == 0                                   // "this network", unspecified
        || o[0] == 10                             // private
        || (o[0] == 100 && (o[1] & 0xc0) == 64)   // CGNAT 100.64/10
        || o[0] == 127                            // loopback
        || (o[0] == 169 && o[1] == 254)           // link-local, metadata
        || (o[0] == 172 && (o[1] & 0xf0) == 16)   // private 172.16/12
        || (o[0] == 192 && o[1] == 0 && o[2] == 0)   // IETF protocol assignments
        || (o[0] == 192 && o[1] == 0 && o[2] == 2)   // TEST-NET-1
        || (o[0] == 192 && o[1] == 88 && o[2] == 99) // 6to4 relay anycast
        || (o[0] == 192 && o[1] == 168)           // private
        || (o[0] == 198 && (o[1] & 0xfe) == 18)   // benchmarking 198.18/15
        || (o[0] == 198 && o[1] == 51 && o[2] == 100) // TEST-NET-2
        || (o[0] == 203 && o[1] == 0 && o[2] == 113)  // TEST-NET-3
        || o[0] >= 224) // multicast 224/4, reserved 240/4, broadcast
}

/// Is this a public unicast IPv6 address? IPv6 forms that embed an IPv4
/// address are judged by the address they embed.
pub fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    // IPv4-compatible ::a.b.c.d (deprecated) and :: and ::1.
    if s[..6] == [0, 0, 0, 0, 0, 0] {
        return false;
    }
    // NAT64 64:ff9b::/96 embeds an IPv4 address in its last 32 bits.
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return is_public_v4(Ipv4Addr::new(
            (s[6] >> 8) as u8,
            s[6] as u8,
            (s[7] >> 8) as u8,
            s[7] as u8,
        ));
    }
    // 6to4 2002::/16 embeds an IPv4 address in bits 16..48.
    if s[0] == 0x2002 {
        return is_public_v4(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    let global_unicast = (s[0] & 0xe000) == 0x2000; // 2000::/3
    global_unicast
        && !(s[0] == 0x2001 && s[1] < 0x0200)       // IETF protocol assignments 2001::/23 (Teredo, ORCHID, ...)
        && !(s[0] == 0x2001 && s[1] == 0x0db8)      // documentation 2001:db8::/32
        && !(s[0] == 0x3fff && s[1] < 0x1000) // documentation 3fff::/20
}

pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

impl Policy {
    /// May a connection go to this address?
    pub fn allows_ip(&self, ip: IpAddr) -> bool {
        if is_metadata(ip) {
            return false;
        }
        self.allow_private || is_public(ip)
    }

    /// Check what can be checked without DNS: scheme, credentials, port,
    /// literal addresses and names that are local by definition.
    pub fn check_url(&self, url: &Url, purpose: Purpose) -> Result<(), Refused> {
        match (url.scheme(), purpose) {
            ("https", _) => {}
            ("http", Purpose::Page) => {}
            ("http", Purpose::Webhook) if self.allow_private => {}
            ("http", Purpose::Webhook) => {
                return Err(Refused("webhook targets must use https".into()))
            }
            (other, _) => return Err(Refused(format!("the scheme {other} is not allowed"))),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(Refused("URLs with credentials are not allowed".into()));
        }
        match url.host() {
            None => Err(Refused("the URL has no host".into())),
            Some(Host::Ipv4(v4)) => self.check_ip(IpAddr::V4(v4)),
            Some(Host::Ipv6(v6)) => self.check_ip(IpAddr::V6(v6)),
            Some(Host::Domain(name)) => {
                let name = name.trim_end_matches('.').to_ascii_lowercase();
                let local = name == "localhost"
                    || name.ends_with(".localhost")
                    || name.ends_with(".internal")
                    || name.ends_with(".local");
                if local && !self.allow_private {
                    return Err(Refused(format!("{name} is a local name")));
                }
                Ok(())
            }
        }
    }

    fn check_ip(&self, ip: IpAddr) -> Result<(), Refused> {
        if self.allows_ip(ip) {
            Ok(())
        } else {
            Err(Refused(format!("{ip} is not a public unicast address")))
        }
    }

    /// Resolve a name and check every address it resolves to. A name with
    /// any refused address is refused as a whole.
    pub async fn resolve(&self, host: &str) -> Result<Vec<IpAddr>, Refused> {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let ips: Vec<IpAddr> = match self.resolve_overrides.get(&host) {
            Some(ips) => ips.clone(),
            None => match host.parse::<IpAddr>() {
                Ok(ip) => vec![ip],
                Err(_) => tokio::net::lookup_host((host.as_str(), 0))
                    .await
                    .map_err(|e| Refused(format!("{host} does not resolve: {e}")))?
                    .map(|a| a.ip())
                    .collect(),
            },
        };
        if ips.is_empty() {
            return Err(Refused(format!("{host} does not resolve")));
        }
        for ip in &ips {
            if !self.allows_ip(*ip) {
                return Err(Refused(format!(
                    "{host} resolves to {ip}, which is not a public unicast address"
                )));
            }
        }
        Ok(ips)
    }

    /// Full check of a URL, resolution included (used when a target is
    /// registered, and before each request as a clear early refusal).
    pub async fn check(&self, url: &Url, purpose: Purpose) -> Result<(), Refused> {
        self.check_url(url, purpose)?;
        if let Some(Host::Domain(name)) = url.host() {
            self.resolve(name).await?;
        }
        Ok(())
    }

    /// An HTTP client whose every connection passes this policy. It follows
    /// no redirect: webhooks never do, and the page fetcher follows a
    /// page's itself (each hop checked against this policy again and
    /// waiting its turn at its host).
    pub fn client(
        &self,
        timeout: Duration,
        extra_roots: &[reqwest::Certificate],
        user_agent: &str,
    ) -> reqwest::Client {
        let mut builder = reqwest::Client::builder()
            .dns_resolver(Arc::new(CheckedResolver(self.clone())))
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .connect_timeout(timeout)
            // A fresh connection per request: every request resolves and
            // checks its target again.
            .pool_max_idle_per_host(0)
            .no_proxy()
            .user_agent(user_agent);
        for cert in extra_roots {
            builder = builder.add_root_certificate(cert.clone());
        }
        builder.build().expect("the HTTP client builds")
    }
}

impl Policy {
    /// A client for a rendered page's requests: every connection passes
    /// this policy, and redirects are not followed but handed back to the
    /// browser, whose next request meets the wall again.
    pub fn render_client(&self, timeout: Duration, user_agent: &str) -> reqwest::Client {
        reqwest::Client::builder()
            .dns_resolver(Arc::new(CheckedResolver(self.clone())))
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .connect_timeout(timeout)
            .pool_max_idle_per_host(0)
            .no_proxy()
            .user_agent(user_agent)
            .build()
            .expect("the HTTP client builds")
    }
}

/// The resolver behind every outbound connection: resolves, checks, and
/// hands the connector exactly the checked addresses.
struct CheckedResolver(Policy);

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.0.clone();
        Box::pin(async move {
            let ips = policy
                .resolve(name.as_str())
                .await
                .map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)?;
            let addrs: Addrs = Box::new(
                ips.into_iter()
                    .map(|ip| SocketAddr::new(ip, 0))
                    .collect::<Vec<_>>()
                    .into_iter(),
            );
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict() -> Policy {
        Policy::default()
    }

    fn refused(url: &str) -> bool {
        strict()
            .check_url(&Url::parse(url).unwrap(), Purpose::Webhook)
            .is_err()
    }

    #[test]
    fn refuses_every_non_public_class() {
        for url in [
            "https://127.0.0.1/",
            "https://10.1.2.3/",
            "https://172.16.0.1/",
            "https://172.31.255.255/",
            "https://192.168.1.1/",
            "https://169.254.169.254/latest/meta-data/",
            "https://169.254.1.1/",
            "https://100.64.0.1/",
            "https://0.0.0.0/",
            "https://224.0.0.1/",
            "https://239.255.255.250/",
            "https://255.255.255.255/",
            "https://240.0.0.1/",
            "https://192.0.2.10/",
            "https://198.51.100.1/",
            "https://203.0.113.9/",
            "https://198.18.0.1/",
            "https://[::1]/",
            "https://[::]/",
            "https://[fe80::1]/",
            "https://[fc00::1]/",
            "https://[fd00:ec2::254]/",
            "https://[ff02::1]/",
            "https://[2001:db8::1]/",
            "https://[::ffff:127.0.0.1]/",
            "https://[::ffff:169.254.169.254]/",
            "https://[::ffff:a9fe:a9fe]/",
            "https://[64:ff9b::7f00:1]/",
            "https://[2002:7f00:1::1]/",
            "https://[::127.0.0.1]/",
            // Decimal, octal, hex and short IPv4 spellings.
            "https://2130706433/",
            "https://0x7f000001/",
            "https://0177.0.0.1/",
            "https://0x7f.0.0.1/",
            "https://127.1/",
            "https://017700000001/",
            "https://2852039166/",
            "https://localhost/",
            "https://api.localhost/",
            "http://93.184.216.34/",
            "ftp://93.184.216.34/",
            "https://user:pw@93.184.216.34/",
        ] {
            assert!(refused(url), "{url} should be refused");
        }
    }

    #[test]
    fn admits_public_unicast() {
        for url in [
            "https://93.184.216.34/",
            "https://8.8.8.8/hook",
            "https://[2606:4700::1111]/",
            "https://example.com/",
        ] {
            assert!(!refused(url), "{url} should be allowed");
        }
        assert!(strict()
            .check_url(&Url::parse("http://93.184.216.34/").unwrap(), Purpose::Page)
            .is_ok());
    }

    #[test]
    fn development_flag_admits_private_but_not_metadata() {
        let dev = Policy {
            allow_private: true,
            ..Policy::default()
        };
        assert!(dev
            .check_url(
                &Url::parse("http://127.0.0.1:8080/").unwrap(),
                Purpose::Webhook
            )
            .is_ok());
        assert!(dev
            .check_url(&Url::parse("http://localhost/").unwrap(), Purpose::Page)
            .is_ok());
        assert!(dev
            .check_url(
                &Url::parse("http://169.254.169.254/").unwrap(),
                Purpose::Page
            )
            .is_err());
    }

    #[tokio::test]
    async fn names_are_checked_after_resolution() {
        let mut p = strict();
        p.resolve_overrides
            .insert("inside.example".into(), vec!["10.0.0.5".parse().unwrap()]);
        p.resolve_overrides.insert(
            "mixed.example".into(),
            vec!["8.8.8.8".parse().unwrap(), "127.0.0.1".parse().unwrap()],
        );
        p.resolve_overrides
            .insert("outside.example".into(), vec!["8.8.4.4".parse().unwrap()]);
        assert!(p.resolve("inside.example").await.is_err());
        assert!(p.resolve("mixed.example").await.is_err());
        assert_eq!(
            p.resolve("outside.example").await.unwrap(),
            vec!["8.8.4.4".parse::<IpAddr>().unwrap()]
        );
        assert!(p
            .check(
                &Url::parse("https://inside.example/x").unwrap(),
                Purpose::Webhook
            )
            .await
            .is_err());
    }
}
