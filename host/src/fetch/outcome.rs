//! Page outcomes: what became of each page a run wanted. Every page ends in
//! exactly one; only `ok` pages that yield records are billed. The signals
//! are general (status, headers, final URL, markup), never a site's name;
//! docs/FETCHING.md lists them.

use serde::{Deserialize, Serialize};

use super::Fetched;

/// The outcome of one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PageOutcome {
    /// Read; its records (if any) are rows.
    Ok,
    /// An anti-bot challenge, a CAPTCHA or a WAF block.
    Blocked,
    /// HTTP 401, a redirect to a sign-in page, or a sign-in form.
    LoginRequired,
    /// 404/410, a page that says it does not exist, or a product URL
    /// redirected to the home page.
    NotFound,
    /// 429/503 after the retries Retry-After allows.
    RateLimited,
    /// robots.txt disallows it: never fetched.
    RobotsDisallowed,
    /// A shell whose content only script produces.
    NeedsRendering,
    /// A page of another kind where products were wanted.
    NotACatalog,
    /// DNS, TLS, connect, timeout, too large, refused by the target wall,
    /// another HTTP error.
    FetchFailed,
}

impl PageOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            PageOutcome::Ok => "ok",
            PageOutcome::Blocked => "blocked",
            PageOutcome::LoginRequired => "login_required",
            PageOutcome::NotFound => "not_found",
            PageOutcome::RateLimited => "rate_limited",
            PageOutcome::RobotsDisallowed => "robots_disallowed",
            PageOutcome::NeedsRendering => "needs_rendering",
            PageOutcome::NotACatalog => "not_a_catalog",
            PageOutcome::FetchFailed => "fetch_failed",
        }
    }
}

/// An outcome and the signal that decided it (shown in the page's event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub outcome: PageOutcome,
    pub signal: String,
}

fn verdict(outcome: PageOutcome, signal: impl Into<String>) -> Option<Verdict> {
    Some(Verdict {
        outcome,
        signal: signal.into(),
    })
}

/// What the response alone says, before any extraction: `None` when the
/// page is to be read.
pub fn of_response(requested: &str, page: &Fetched) -> Option<Verdict> {
    let status = page.status;
    if let Some(signal) = challenge(page) {
        return verdict(PageOutcome::Blocked, signal);
    }
    match status {
        401 | 407 => return verdict(PageOutcome::LoginRequired, format!("HTTP {status}")),
        403 | 451 => return verdict(PageOutcome::Blocked, format!("HTTP {status}")),
        404 | 410 => return verdict(PageOutcome::NotFound, format!("HTTP {status}")),
        429 | 503 => return verdict(PageOutcome::RateLimited, format!("HTTP {status}")),
        s if s >= 400 => return verdict(PageOutcome::FetchFailed, format!("HTTP {s}")),
        _ => {}
    }
    if let Some(ct) = page.content_type.as_deref() {
        let ct = ct.to_ascii_lowercase();
        if [
            "image/",
            "audio/",
            "video/",
            "font/",
            "application/pdf",
            "application/zip",
            "application/octet-stream",
        ]
        .iter()
        .any(|t| ct.starts_with(t))
        {
            return verdict(PageOutcome::NotACatalog, format!("content-type {ct}"));
        }
    }
    let (from, to) = (path_of(requested), path_of(&page.url));
    if from != to {
        if is_login_path(&to) && !is_login_path(&from) {
            return verdict(PageOutcome::LoginRequired, format!("redirected to {to}"));
        }
        if to == "/" && from != "/" && !from.is_empty() {
            return verdict(PageOutcome::NotFound, "redirected to the home page");
        }
    }
    let head = Markup::of(&page.body);
    if let Some(phrase) = head.says_not_found() {
        return verdict(PageOutcome::NotFound, format!("the page says \"{phrase}\""));
    }
    None
}

/// Why a page that was read yielded no record: a sign-in form, a page that
/// says the item is gone, a script shell, or simply not a catalog page.
pub fn of_empty(page: &Fetched) -> Verdict {
    let m = Markup::of(&page.body);
    let v = |outcome, signal: String| Verdict { outcome, signal };
    // A sign-in form under a sign-in heading, or all but alone on its page
    // ("Email Password (Forgot Password?) Sign In").
    if m.has_password_field
        && (m.heading_has(LOGIN_WORDS).is_some()
            || (m.visible_text < 600 && m.text_has(LOGIN_WORDS).is_some()))
    {
        return v(PageOutcome::LoginRequired, "a sign-in form".into());
    }
    if let Some(phrase) = m.text_has(GONE_PHRASES) {
        return v(PageOutcome::NotFound, format!("the page says \"{phrase}\""));
    }
    if let Some(signal) = script_shell(&page.body, &m) {
        return v(PageOutcome::NeedsRendering, signal);
    }
    v(
        PageOutcome::NotACatalog,
        "no records of the entity on the page".into(),
    )
}

/// The path of a URL ("" when it does not parse).
fn path_of(url: &str) -> String {
    url::Url::parse(url)
        .map(|u| u.path().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Paths of sign-in pages.
fn is_login_path(path: &str) -> bool {
    path.split(['/', '.', '?']).any(|seg| {
        matches!(
            seg,
            "login"
                | "log-in"
                | "log_in"
                | "signin"
                | "sign-in"
                | "sign_in"
                | "logon"
                | "auth"
                | "sso"
                | "authenticate"
                | "anmelden"
                | "connexion"
                | "iniciar-sesion"
        )
    }) || path.contains("/account/login")
        || path.contains("/session/new")
}

/// Headers and markup of the bot-protection services' challenge and block
/// pages, and CAPTCHA pages. Body markers alone count only on a page with
/// little visible text (a product page may carry a CAPTCHA widget).
fn challenge(page: &Fetched) -> Option<String> {
    let header = |name: &str| {
        page.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.to_ascii_lowercase())
    };
    if header("cf-mitigated").is_some_and(|v| v.contains("challenge")) {
        return Some("cf-mitigated: challenge".into());
    }
    if header("x-amzn-waf-action")
        .is_some_and(|v| v.contains("captcha") || v.contains("challenge") || v.contains("block"))
    {
        return Some("x-amzn-waf-action".into());
    }
    let error =
        page.status == 403 || page.status == 429 || page.status == 503 || page.status == 405;
    if error {
        for name in [
            "x-datadome",
            "x-dd-b",
            "x-sucuri-block",
            "x-iinfo",
            "x-px-block",
            "x-kpsdk-ct",
        ] {
            if header(name).is_some() {
                return Some(format!("HTTP {} with {name}", page.status));
            }
        }
        if header("server").is_some_and(|s| {
            s.contains("cloudflare") || s.contains("akamaighost") || s.contains("sucuri")
        }) && page.status != 503
        {
            return Some(format!(
                "HTTP {} from {}",
                page.status,
                header("server").unwrap_or_default()
            ));
        }
    }
    let body = page
        .body
        .get(..page.body.len().min(200_000))
        .unwrap_or(&page.body);
    let lower = body.to_ascii_lowercase();
    // Markers that only challenge and block pages carry.
    const CHALLENGE_MARKERS: &[&str] = &[
        "cf_chl_opt",
        "cf-browser-verification",
        "<title>just a moment...</title>",
        "attention required! | cloudflare",
        "captcha-delivery.com",
        "_incapsula_resource",
        "incapsula incident id",
        "px-captcha",
        "_pxcaptcha",
        "awswafintegration",
        "sucuri website firewall",
        "sucuri_cloudproxy_js",
        "ddos-shield.appspot.com",
        "rbzns",
        "/_sec/cp_challenge",
        "ak-challenge",
    ];
    if let Some(m) = CHALLENGE_MARKERS.iter().find(|m| lower.contains(*m)) {
        if error || visible_text_len(body) < 3_000 {
            return Some(format!("challenge page ({m})"));
        }
    }
    // A page that says only that it checks its visitor: a title of a
    // security check ("Hepsiburada | Güvenlik", "Pardon Our Interruption")
    // over almost no text.
    if let Some(t) = security_title(&lower) {
        if error || visible_text_len(body) < 200 {
            return Some(format!("a security check page (\"{t}\")"));
        }
    }
    // A CAPTCHA page: a CAPTCHA widget and words asking to prove a human.
    const CAPTCHA_WIDGETS: &[&str] = &["g-recaptcha", "h-captcha", "cf-turnstile", "captcha"];
    const HUMAN_WORDS: &[&str] = &[
        "verify you are human",
        "prove your humanity",
        "prove you're human",
        "prove you are human",
        "you're a real person",
        "you are a real person",
        "verify that you are human",
        "are you a robot",
        "not a robot",
        "are you human",
        "unusual traffic",
        "automated queries",
        "security check",
        "press & hold",
        "press and hold",
        "bot protection",
        "access denied",
        "request blocked",
    ];
    if CAPTCHA_WIDGETS.iter().any(|w| lower.contains(w)) || error {
        if let Some(w) = HUMAN_WORDS.iter().find(|w| lower.contains(*w)) {
            if visible_text_len(body) < 3_000 {
                return Some(format!("a CAPTCHA or block page (\"{w}\")"));
            }
        }
    }
    None
}

/// Titles, or parts of titles between separators, of the pages that check a
/// visitor instead of showing the content.
const SECURITY_TITLES: &[&str] = &[
    "security",
    "security check",
    "security verification",
    "güvenlik",
    "güvenlik doğrulaması",
    "sicherheit",
    "sicherheitsüberprüfung",
    "sécurité",
    "vérification de sécurité",
    "seguridad",
    "verificación de seguridad",
    "verification",
    "bot verification",
    "access denied",
    "checking your browser",
    "one more step",
    "pardon our interruption",
    "are you a robot?",
    "robot check",
    "captcha",
];

/// The part of the page's title (lowercased markup) that names a security
/// check, if one does.
fn security_title(lower: &str) -> Option<&'static str> {
    let title = between(lower, "<title", "</title>")?.split_once('>')?.1;
    let title = if title.is_ascii() {
        title.to_string()
    } else {
        title.to_lowercase()
    };
    title
        .split(['|', '-', '–', '—', ':'])
        .map(str::trim)
        .find_map(|part| SECURITY_TITLES.iter().copied().find(|t| part == *t))
}

/// A page whose content only script produces: a notice asking for
/// JavaScript, or an empty application root with scripts and almost no
/// text.
fn script_shell(body: &str, m: &Markup) -> Option<String> {
    let lower = body.to_ascii_lowercase();
    const NOTICES: &[&str] = &[
        "enable javascript",
        "javascript is required",
        "requires javascript",
        "javascript must be enabled",
        "turn on javascript",
        "javascript is disabled",
        "need javascript",
        "you need to enable javascript",
        "activate javascript",
        "javascript aktivieren",
        "activer javascript",
        "permit javascript",
        "allow javascript",
        "javascript is not enabled",
        "javascript is turned off",
        "javascript to be enabled",
    ];
    let scripts = lower.matches("<script").count();
    let text = m.visible_text;
    if let Some(n) = NOTICES.iter().find(|n| lower.contains(*n)) {
        if text < 4_000 {
            return Some(format!("a notice: \"{n}\""));
        }
    }
    const ROOTS: &[&str] = &[
        "id=\"root\"></div>",
        "id=\"app\"></div>",
        "id=\"__next\"></div>",
        "id=\"__nuxt\"></div>",
        "id=\"root\"></main>",
        "<app-root></app-root>",
        "id=\"app-root\"></div>",
    ];
    if let Some(r) = ROOTS.iter().find(|r| lower.contains(*r)) {
        if text < 2_000 && scripts > 0 {
            return Some(format!("an empty application root ({r})"));
        }
    }
    if scripts >= 1 && text < 200 {
        return Some("scripts and almost no text".into());
    }
    // Blocks that script fills, still showing their placeholders ("Loading..."
    // for every product of the grid).
    const PLACEHOLDERS: &[&str] = &[
        "loading...",
        "loading…",
        "chargement...",
        "cargando...",
        "caricamento...",
        "carregando...",
        "wird geladen",
        "laden...",
        "загрузка...",
    ];
    if scripts >= 1 {
        if let Some(p) = PLACEHOLDERS
            .iter()
            .find(|p| m.text_start.matches(**p).count() >= 3)
        {
            return Some(format!("placeholders that script fills (\"{p}\")"));
        }
    }
    None
}

/// Sign-in headings, in the languages shops are read in.
const LOGIN_WORDS: &[&str] = &[
    "sign in",
    "log in",
    "login",
    "sign-in",
    "log-in",
    "anmelden",
    "connexion",
    "se connecter",
    "iniciar sesión",
    "accedi",
    "inloggen",
    "logga in",
    "zaloguj",
    "logowanie",
    "iniciar sessão",
    "přihlášení",
    "prihlásenie",
    "bejelentkezés",
    "giriş yap",
    "kirjaudu",
    "logg inn",
    "log ind",
    "вход",
    "войти",
    "авторизация",
    "аутентификация",
    "вхід",
    "увійти",
    "ログイン",
    "登录",
    "登入",
    "로그인",
];

/// Titles and headings of "not found" pages.
const NOT_FOUND_TITLES: &[&str] = &[
    "page not found",
    "404",
    "not found",
    "page doesn't exist",
    "page does not exist",
    "page cannot be found",
    "page can't be found",
    "page could not be found",
    "no longer exists",
    "seite nicht gefunden",
    "page introuvable",
    "página no encontrada",
    "pagina non trovata",
    "pagina niet gevonden",
    "página não encontrada",
    "page non trouvée",
    "page non trouvee",
    "seite wurde nicht gefunden",
    "nie znaleziono strony",
    "strony nie znaleziono",
    "stránka nenalezena",
    "stránka nebyla nalezena",
    "страница не найдена",
    "sayfa bulunamadı",
    "sivua ei löytynyt",
    "sidan hittades inte",
    "siden blev ikke fundet",
    "siden ble ikke funnet",
    "az oldal nem található",
    "ページが見つかりません",
    "页面不存在",
    "找不到页面",
    "페이지를 찾을 수 없습니다",
];

/// Words beside "404" in a title that make it an error page's ("Error 404",
/// "Błąd 404 - nie znaleziono strony"), not a product's ("Peugeot 404").
const ERROR_PAGE_WORDS: &[&str] = &[
    "error",
    "page",
    "błąd",
    "fehler",
    "seite",
    "erreur",
    "errore",
    "pagina",
    "página",
    "fout",
    "strona",
    "strony",
    "chyba",
    "stránka",
    "hata",
    "sayfa",
    "ошибка",
    "страница",
];

/// What a page with no records may say about an item that is gone.
const GONE_PHRASES: &[&str] = &[
    "no longer exists",
    "no longer available",
    "does not exist",
    "doesn't exist",
    "could not be found",
    "cannot be found",
    "can't be found",
    "was not found",
    "not found",
    "has been removed",
];

/// The few facts of a page's markup the outcomes read: title, first
/// headings, the start of its text, a password field.
struct Markup {
    title: String,
    headings: Vec<String>,
    text_start: String,
    visible_text: usize,
    has_password_field: bool,
}

impl Markup {
    fn of(body: &str) -> Markup {
        let lower = body.to_ascii_lowercase();
        let title = between(&lower, "<title", "</title>")
            .and_then(|t| t.split_once('>').map(|(_, t)| t))
            .map(squash)
            .unwrap_or_default();
        let mut headings = Vec::new();
        for tag in ["<h1", "<h2"] {
            let mut rest = lower.as_str();
            while let Some(i) = rest.find(tag) {
                rest = &rest[i + 3..];
                let close = format!("</{}", &tag[1..]);
                if let Some(end) = rest.find(&close) {
                    headings.push(squash(&strip_tags(&rest[..end])));
                }
                if headings.len() >= 4 {
                    break;
                }
            }
        }
        let text = visible_text(body);
        Markup {
            title,
            headings,
            visible_text: text.chars().count(),
            text_start: squash(&text.chars().take(3_000).collect::<String>().to_lowercase()),
            has_password_field: lower.contains("type=\"password\"")
                || lower.contains("type='password'")
                || lower.contains("type=password"),
        }
    }

    /// The page's title or first heading says it was not found.
    fn says_not_found(&self) -> Option<&'static str> {
        let first_heading = self.headings.first().map(String::as_str).unwrap_or("");
        [self.title.as_str(), first_heading]
            .into_iter()
            // The markup was lowercased as ASCII; other scripts are here.
            .map(|t| -> std::borrow::Cow<'_, str> {
                if t.is_ascii() {
                    t.into()
                } else {
                    t.to_lowercase().into()
                }
            })
            .find_map(|t| {
                let t = t.as_ref();
                NOT_FOUND_TITLES.iter().copied().find(|p| {
                    if *p == "404" {
                        // "404", "Error 404 | Shop"; not "Peugeot 404 parts".
                        let words: Vec<&str> = t
                            .split(|c: char| !c.is_alphanumeric())
                            .filter(|w| !w.is_empty())
                            .collect();
                        words.contains(&"404")
                            && (words.len() <= 3 || ERROR_PAGE_WORDS.iter().any(|w| t.contains(w)))
                    } else {
                        t.contains(p)
                    }
                })
            })
    }

    fn heading_has(&self, words: &[&'static str]) -> Option<&'static str> {
        let mut texts = self
            .headings
            .iter()
            .map(String::as_str)
            .chain([self.title.as_str()]);
        // The markup was lowercased as ASCII; other scripts are here.
        texts.find_map(|t| {
            let t = if t.is_ascii() {
                t.into()
            } else {
                t.to_lowercase()
            };
            words.iter().copied().find(|w| t.contains(w))
        })
    }

    fn text_has(&self, phrases: &[&'static str]) -> Option<&'static str> {
        self.heading_has(phrases).or_else(|| {
            let head: String = self.text_start.chars().take(600).collect();
            phrases.iter().copied().find(|p| head.contains(p))
        })
    }
}

fn between<'a>(s: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let i = s.find(open)?;
    let rest = &s[i + open.len()..];
    rest.find(close).map(|j| &rest[..j])
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                out.push(' ');
            }
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// The text a reader sees: tags, scripts, styles, templates and comments
/// removed.
fn visible_text(body: &str) -> String {
    let lower = body.to_ascii_lowercase();
    let mut out = String::new();
    let mut i = 0;
    let bytes = lower.as_bytes();
    while i < bytes.len() {
        if bytes[i] == b'<' {
            let rest = &lower[i..];
            let skip_to = ["script", "style", "template", "noscript"]
                .iter()
                .find_map(|t| {
                    let open = format!("<{t}");
                    rest.starts_with(&open).then(|| format!("</{t}"))
                });
            let end = if let Some(close) = skip_to {
                rest.find(&close).map(|j| i + j + close.len())
            } else if rest.starts_with("<!--") {
                rest.find("-->").map(|j| i + j + 3)
            } else {
                None
            };
            let end = end.unwrap_or(i);
            let tag_end = lower[end..]
                .find('>')
                .map(|j| end + j + 1)
                .unwrap_or(bytes.len());
            out.push(' ');
            i = tag_end;
        } else {
            let next = lower[i..].find('<').map(|j| i + j).unwrap_or(bytes.len());
            out.push_str(&body[i..next]);
            i = next;
        }
    }
    squash(&out)
}

/// How many characters of visible text a page has.
fn visible_text_len(body: &str) -> usize {
    visible_text(body).chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(status: u16, headers: &[(&str, &str)], body: &str, url: &str) -> Fetched {
        Fetched {
            url: url.into(),
            status,
            content_type: Some("text/html".into()),
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: body.into(),
            bytes: body.len(),
            sha256: String::new(),
            fetched_at: String::new(),
        }
    }

    fn outcome(p: &Fetched, requested: &str) -> Option<PageOutcome> {
        of_response(requested, p).map(|v| v.outcome)
    }

    const URL: &str = "https://shop.example/p/lamp.html";

    #[test]
    fn challenges_and_blocks_are_blocked() {
        let cf = page(
            403,
            &[("cf-mitigated", "challenge"), ("server", "cloudflare")],
            "<html><title>Just a moment...</title></html>",
            URL,
        );
        assert_eq!(outcome(&cf, URL), Some(PageOutcome::Blocked));
        let dd = page(
            403,
            &[("x-datadome", "protected")],
            "<script src='https://ct.captcha-delivery.com/c.js'></script>",
            URL,
        );
        assert_eq!(outcome(&dd, URL), Some(PageOutcome::Blocked));
        let captcha = page(
            200,
            &[],
            "<html><body><h1>Are you a robot?</h1><div class=\"g-recaptcha\"></div></body></html>",
            URL,
        );
        assert_eq!(outcome(&captcha, URL), Some(PageOutcome::Blocked));
        // A 429 whose body is a challenge is a block, not a rate limit.
        let px = page(429, &[], "<div id=\"px-captcha\"></div>Press & Hold", URL);
        assert_eq!(outcome(&px, URL), Some(PageOutcome::Blocked));
        assert_eq!(
            outcome(&page(403, &[], "Forbidden", URL), URL),
            Some(PageOutcome::Blocked)
        );
    }

    #[test]
    fn a_product_page_with_a_captcha_widget_is_read() {
        let long = "A fine lamp with a brass base. ".repeat(150);
        let p = page(200, &[], &format!("<title>Amber Lamp</title><h1>Amber Lamp</h1><p>{long}</p><div class=\"g-recaptcha\"></div> Not a robot? Leave a review."), URL);
        assert_eq!(outcome(&p, URL), None);
    }

    #[test]
    fn statuses_redirects_and_soft_404s() {
        assert_eq!(
            outcome(&page(401, &[], "", URL), URL),
            Some(PageOutcome::LoginRequired)
        );
        assert_eq!(
            outcome(&page(410, &[], "", URL), URL),
            Some(PageOutcome::NotFound)
        );
        assert_eq!(
            outcome(&page(429, &[("retry-after", "5")], "slow down", URL), URL),
            Some(PageOutcome::RateLimited)
        );
        assert_eq!(
            outcome(&page(500, &[], "", URL), URL),
            Some(PageOutcome::FetchFailed)
        );
        let login = page(
            200,
            &[],
            "<form><input type=\"password\"></form>",
            "https://shop.example/account/login?next=/p/lamp.html",
        );
        assert_eq!(outcome(&login, URL), Some(PageOutcome::LoginRequired));
        let home = page(
            200,
            &[],
            "<title>Shop</title><h1>Welcome</h1>",
            "https://shop.example/",
        );
        assert_eq!(outcome(&home, URL), Some(PageOutcome::NotFound));
        let soft = page(
            200,
            &[],
            "<title>Page not found | Shop</title><h1>Oops</h1>",
            URL,
        );
        assert_eq!(outcome(&soft, URL), Some(PageOutcome::NotFound));
        let fine = page(
            200,
            &[],
            "<title>Lamp 4040 | Shop</title><h1>Lamp</h1>",
            URL,
        );
        assert_eq!(outcome(&fine, URL), None);
        let model = page(
            200,
            &[],
            "<title>Peugeot 404 parts and spares | Shop</title>",
            URL,
        );
        assert_eq!(outcome(&model, URL), None);
        let error = page(200, &[], "<title>Error 404 | Shop</title>", URL);
        assert_eq!(outcome(&error, URL), Some(PageOutcome::NotFound));
    }

    #[test]
    fn pages_without_records_say_why() {
        let signin = page(200, &[], "<title>Shop</title><h1>Sign in to continue</h1><form><input type=\"password\" name=\"p\"></form>", URL);
        assert_eq!(of_empty(&signin).outcome, PageOutcome::LoginRequired);
        let gone = page(
            200,
            &[],
            "<title>Shop</title><h1>Sorry</h1><p>This product no longer exists.</p>",
            URL,
        );
        assert_eq!(of_empty(&gone).outcome, PageOutcome::NotFound);
        let shell = page(200, &[], "<html><head><script src=\"/app.js\"></script></head><body><div id=\"root\"></div></body></html>", URL);
        assert_eq!(of_empty(&shell).outcome, PageOutcome::NeedsRendering);
        let notice = page(200, &[], "<noscript>You need to enable JavaScript to run this app.</noscript><div id=\"app\"></div>", URL);
        assert_eq!(of_empty(&notice).outcome, PageOutcome::NeedsRendering);
        let article = page(
            200,
            &[],
            &format!(
                "<title>Our story</title><h1>Our story</h1><p>{}</p>",
                "We make lamps. ".repeat(40)
            ),
            URL,
        );
        assert_eq!(of_empty(&article).outcome, PageOutcome::NotACatalog);
    }
}
