//! robots.txt: the rules that apply to us, parsed once per site and kept
//! for a while by the fetcher (shared by every run of the node).

/// The parts of robots.txt that apply to us.
#[derive(Debug, Default, Clone)]
pub struct Robots {
    /// (allow, path prefix) rules of the group that applies.
    rules: Vec<(bool, String)>,
    pub sitemaps: Vec<String>,
}

/// The user-agent token we obey in robots.txt.
pub const ROBOTS_TOKEN: &str = "fnhost";

impl Robots {
    /// Parse robots.txt: the group for our token if there is one, else `*`.
    pub fn parse(text: &str) -> Robots {
        let mut groups: Vec<(Vec<String>, Vec<(bool, String)>)> = Vec::new();
        let mut sitemaps = Vec::new();
        let mut in_agents = false;
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            let Some((field, value)) = line.split_once(':') else {
                continue;
            };
            let (field, value) = (field.trim().to_ascii_lowercase(), value.trim().to_string());
            match field.as_str() {
                "user-agent" => {
                    if !in_agents || groups.is_empty() {
                        groups.push((Vec::new(), Vec::new()));
                    }
                    groups
                        .last_mut()
                        .unwrap()
                        .0
                        .push(value.to_ascii_lowercase());
                    in_agents = true;
                }
                "allow" | "disallow" => {
                    in_agents = false;
                    if let Some(g) = groups.last_mut() {
                        if !value.is_empty() {
                            g.1.push((field == "allow", value));
                        }
                    }
                }
                "sitemap" => sitemaps.push(value),
                _ => {}
            }
        }
        let ours = groups
            .iter()
            .find(|(agents, _)| agents.iter().any(|a| a == ROBOTS_TOKEN));
        let any = groups
            .iter()
            .find(|(agents, _)| agents.iter().any(|a| a == "*"));
        let rules = ours.or(any).map(|(_, r)| r.clone()).unwrap_or_default();
        Robots { rules, sitemaps }
    }

    /// May we fetch this path (with its query)? The longest matching rule
    /// wins; on a tie, allow wins.
    pub fn allows(&self, path: &str) -> bool {
        let mut best: Option<(usize, bool)> = None;
        for (allow, prefix) in &self.rules {
            if matches(prefix, path) {
                let len = prefix.len();
                if best.is_none_or(|(l, a)| len > l || (len == l && *allow && !a)) {
                    best = Some((len, *allow));
                }
            }
        }
        best.is_none_or(|(_, allow)| allow)
    }
}

/// robots.txt patterns: prefixes with `*` wildcards and an optional `$` end.
fn matches(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let parts: Vec<&str> = pattern.split('*').collect();
    let mut pos = 0;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            if !path.starts_with(part) {
                return false;
            }
            pos = part.len();
        } else if let Some(found) = path[pos..].find(part) {
            pos += found + part.len();
        } else {
            return false;
        }
    }
    !anchored || pos == path.len() || parts.last().is_some_and(|p| p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robots_groups_and_longest_match() {
        let r = Robots::parse(
            "User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\nAllow: /private/ok\n\nUser-agent: other\nDisallow: /\nSitemap: https://s.example/sitemap.xml\n",
        );
        assert!(r.allows("/tents/"));
        assert!(!r.allows("/private/x"));
        assert!(r.allows("/private/ok/1"));
        assert!(!r.allows("/files/a.pdf"));
        assert!(r.allows("/files/a.pdf?x=1"));
        assert_eq!(r.sitemaps, vec!["https://s.example/sitemap.xml"]);
        let ours = Robots::parse("User-agent: fnhost\nDisallow: /\n\nUser-agent: *\nAllow: /\n");
        assert!(!ours.allows("/anything"));
        assert!(Robots::parse("").allows("/x"));
    }
}
