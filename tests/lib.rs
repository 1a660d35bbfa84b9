//! Helpers shared by the black-box tests: start the real `fnhost` binary on
//! 127.0.0.1 with a free port and a temporary data directory, and speak HTTP.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub use serde_json::{json, Value};

pub mod postgres;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The `fnhost` binary of this build (built on first use if missing), or
/// the one `TEST_FNHOST_BIN` names (the benchmarks use a release build).
/// Not an `FNHOST_*` name: the server reads those as its configuration.
pub fn binary() -> PathBuf {
    static BUILT: std::sync::Once = std::sync::Once::new();
    if let Some(bin) = std::env::var_os("TEST_FNHOST_BIN").filter(|b| !b.is_empty()) {
        return PathBuf::from(bin);
    }
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/<test> → target/<profile>/fnhost
    let path = exe.parent().unwrap().parent().unwrap().join("fnhost");
    BUILT.call_once(|| {
        if !path.exists() {
            let status = Command::new(env!("CARGO"))
                .args(["build", "--package", "fnhost", "--bin", "fnhost"])
                .current_dir(root())
                .status()
                .unwrap();
            assert!(status.success(), "failed to build fnhost");
        }
    });
    path
}

/// A running server with its own data directory.
pub struct Server {
    pub child: Option<Child>,
    pub data: tempfile::TempDir,
    pub base: String,
    pub env: Vec<(String, String)>,
    pub args: Vec<String>,
    /// What the server printed to stdout (demo keys, address).
    pub stdout: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

/// Build a server before it starts.
pub struct ServerBuilder {
    env: Vec<(String, String)>,
    args: Vec<String>,
    data: Option<tempfile::TempDir>,
}

impl Default for ServerBuilder {
    fn default() -> Self {
        ServerBuilder {
            env: vec![
                ("FNHOST_DEMO_ACCOUNT".into(), "false".into()),
                ("FNHOST_LOG".into(), "warn".into()),
                // One compile of each plugin for the whole test run.
                (
                    "FNHOST_PLUGINS__CACHE_DIR".into(),
                    root()
                        .join("target/test-plugin-cache")
                        .display()
                        .to_string(),
                ),
            ],
            args: Vec::new(),
            data: None,
        }
    }
}

impl ServerBuilder {
    pub fn env(mut self, k: &str, v: &str) -> Self {
        self.env.retain(|(name, _)| name != k);
        self.env.push((k.into(), v.into()));
        self
    }

    pub fn arg(mut self, a: &str) -> Self {
        self.args.push(a.into());
        self
    }

    /// Store in this PostgreSQL database (several servers on one URL are
    /// several nodes of one installation).
    pub fn postgres(self, url: &str) -> Self {
        self.env("FNHOST_STORAGE", "postgres")
            .env("FNHOST_POSTGRES_URL", url)
    }

    pub fn data(mut self, dir: tempfile::TempDir) -> Self {
        self.data = Some(dir);
        self
    }

    pub fn start(mut self) -> Server {
        if postgres::selected() && !self.env.iter().any(|(k, _)| k == "FNHOST_STORAGE") {
            self = self.postgres(&postgres::new_database());
        }
        let data = self.data.unwrap_or_else(|| tempfile::tempdir().unwrap());
        let mut server = Server {
            child: None,
            data,
            base: String::new(),
            env: self.env,
            args: self.args,
            stdout: Default::default(),
        };
        server.launch();
        server
    }
}

impl Server {
    pub fn builder() -> ServerBuilder {
        ServerBuilder::default()
    }

    /// A server with default settings.
    pub fn start() -> Server {
        Server::builder().start()
    }

    fn launch(&mut self) {
        let mut cmd = Command::new(binary());
        cmd.arg("--data-dir")
            .arg(self.data.path())
            .arg("serve")
            .arg("--listen")
            .arg("127.0.0.1:0");
        cmd.args(&self.args);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd.stdout(Stdio::piped()).stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("start fnhost");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        let lines = self.stdout.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(addr) = line.strip_prefix("fnhost listening on ") {
                    let _ = tx.send(addr.trim().to_string());
                }
                lines.lock().unwrap().push(line);
            }
        });
        let base = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("fnhost did not start within 60 s");
        self.base = base;
        self.child = Some(child);
    }

    /// Kill the server with SIGKILL (no chance to clean up).
    pub fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stop with SIGTERM and wait for a graceful exit.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let child = self.child.as_mut().expect("running");
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status();
        let status = child.wait().unwrap();
        self.child = None;
        status
    }

    /// Start again on the same data directory (a new port).
    pub fn restart(&mut self) {
        self.kill9();
        self.launch();
    }

    /// The URL of an API path ("/balance" → http://127.0.0.1:PORT/v1/balance).
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// The server's origin (without /v1).
    pub fn origin(&self) -> String {
        self.base.trim_end_matches("/v1").to_string()
    }

    /// Run `fnhost admin ...` against this server's data directory.
    pub fn admin(&self, args: &[&str]) -> Value {
        let storage: Vec<(String, String)> = self
            .env
            .iter()
            .filter(|(k, _)| k == "FNHOST_STORAGE" || k == "FNHOST_POSTGRES_URL")
            .cloned()
            .collect();
        admin_with(self.data.path(), &storage, args)
    }

    /// A new account with `balance` USD in each mode: (account id, live key, test key).
    pub fn account(&self, balance: &str) -> Account {
        let v = self.admin(&["create-account", "--name", "test", "--balance-usd", balance]);
        Account {
            id: v["account_id"].as_str().unwrap().into(),
            live: v["live_key"].as_str().unwrap().into(),
            test: v["test_key"].as_str().unwrap().into(),
        }
    }

    pub fn client(&self, key: &str) -> Client {
        Client {
            base: self.base.clone(),
            key: Some(key.to_string()),
            http: http(),
        }
    }

    pub fn anonymous(&self) -> Client {
        Client {
            base: self.base.clone(),
            key: None,
            http: http(),
        }
    }

    /// The ledger's audit: every invariant re-checked from the entries.
    pub fn audit(&self) -> Value {
        let a = self.admin(&["audit"]);
        assert_eq!(a["problems"], json!([]), "ledger invariants broken: {a}");
        a
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// Run `fnhost --data-dir DIR admin ARGS...` and parse its JSON.
pub fn admin(data: &Path, args: &[&str]) -> Value {
    admin_with(data, &[], args)
}

/// `admin` with extra environment (the storage settings of a server).
pub fn admin_with(data: &Path, env: &[(String, String)], args: &[&str]) -> Value {
    let out = Command::new(binary())
        .arg("--data-dir")
        .arg(data)
        .arg("admin")
        .args(args)
        .env("FNHOST_LOG", "warn")
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .expect("run fnhost admin");
    assert!(
        out.status.success(),
        "fnhost admin {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("admin prints JSON")
}

pub struct Account {
    pub id: String,
    pub live: String,
    pub test: String,
}

fn http() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
}

/// An HTTP client for the API with one key.
#[derive(Clone)]
pub struct Client {
    pub base: String,
    pub key: Option<String>,
    pub http: reqwest::blocking::Client,
}

/// A response, read whole.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Response {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    }

    /// Assert the status and the error envelope's code; return the error object.
    pub fn error(&self, status: u16, code: &str) -> Value {
        assert_eq!(
            self.status, status,
            "expected {status} {code}, got {}: {}",
            self.status, self.text
        );
        let body = self.json();
        let e = body["error"].clone();
        assert_eq!(e["code"], code, "{body}");
        for member in ["type", "code", "message", "doc_url", "request_id"] {
            assert!(e[member].is_string(), "error lacks {member}: {body}");
        }
        assert_eq!(
            self.header("fn-request-id").as_deref(),
            e["request_id"].as_str(),
            "request ids differ"
        );
        e
    }

    /// Assert a 2xx status and return the JSON body.
    pub fn ok(&self) -> Value {
        assert!(
            (200..300).contains(&self.status),
            "expected 2xx, got {}: {}",
            self.status,
            self.text
        );
        self.json()
    }
}

impl Client {
    pub fn request(&self, method: &str, path: &str) -> reqwest::blocking::RequestBuilder {
        let url = format!("{}{}", self.base, path);
        let mut rb = self.http.request(method.parse().unwrap(), url);
        if let Some(k) = &self.key {
            rb = rb.bearer_auth(k);
        }
        rb
    }

    pub fn send(&self, rb: reqwest::blocking::RequestBuilder) -> Response {
        let r = rb.send().expect("request failed");
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        let text = r.text().unwrap_or_default();
        Response {
            status,
            headers,
            text,
        }
    }

    pub fn get(&self, path: &str) -> Response {
        self.send(self.request("GET", path))
    }

    pub fn post(&self, path: &str, body: Value) -> Response {
        self.send(self.request("POST", path).json(&body))
    }

    pub fn patch(&self, path: &str, body: Value) -> Response {
        self.send(self.request("PATCH", path).json(&body))
    }

    pub fn delete(&self, path: &str) -> Response {
        self.send(self.request("DELETE", path))
    }

    pub fn method(&self, method: &str, path: &str) -> Response {
        self.send(self.request(method, path))
    }
}

/// Poll `f` until it returns Some, for at most `secs` seconds.
pub fn wait_for<T>(secs: u64, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "condition not met within {secs} s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A fixture site (fixtures/sites/<domain>) served over plain http on
/// loopback, for live runs with --allow-private-targets. It records every
/// request path, and can be slowed down or told to redirect.
pub struct Site {
    pub origin: String,
    pub requests: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    pub delay_ms: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// path → Location: answer 302 to that location.
    pub redirects: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, String>>>,
}

impl Site {
    pub fn start(domain: &'static str) -> Site {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        let site = Site {
            origin: origin.clone(),
            requests: Default::default(),
            delay_ms: Default::default(),
            redirects: Default::default(),
        };
        let (requests, delay, redirects) = (
            site.requests.clone(),
            site.delay_ms.clone(),
            site.redirects.clone(),
        );
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let (requests, delay, redirects, origin) = (
                    requests.clone(),
                    delay.clone(),
                    redirects.clone(),
                    origin.clone(),
                );
                std::thread::spawn(move || {
                    let mut buf = [0u8; 8192];
                    let n = stream.read(&mut buf).unwrap_or(0);
                    let head = String::from_utf8_lossy(&buf[..n]).to_string();
                    let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                    requests.lock().unwrap().push(target.clone());
                    let ms = delay.load(std::sync::atomic::Ordering::SeqCst);
                    if ms > 0 {
                        std::thread::sleep(Duration::from_millis(ms));
                    }
                    let redirect = redirects.lock().unwrap().get(&target).cloned();
                    let response = if let Some(location) = redirect {
                        format!("HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").into_bytes()
                    } else {
                        match fnhost_replay::serve_fixture(domain, &target, &origin) {
                            Some(page) => {
                                let mut r = format!(
                                    "HTTP/1.1 {} OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                                    page.status,
                                    page.content_type.clone().unwrap_or_else(|| "text/html".into()),
                                    page.body.len()
                                )
                                .into_bytes();
                                r.extend_from_slice(page.body.as_bytes());
                                r
                            }
                            None => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
                        }
                    };
                    let _ = stream.write_all(&response);
                });
            }
        });
        site
    }

    pub fn requested(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }

    pub fn slow(&self, ms: u64) {
        self.delay_ms.store(ms, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Wait for a session to leave `running` (long-poll) and return its result body.
pub fn result(c: &Client, id: &str) -> Value {
    for _ in 0..10 {
        let r = c.get(&format!("/sessions/{id}/result?wait=30"));
        if r.status == 200 {
            return r.json();
        }
        assert_eq!(r.status, 202, "{}", r.text);
    }
    panic!("session {id} did not end");
}

/// The session object once it has ended.
pub fn ended(c: &Client, id: &str) -> Value {
    result(c, id);
    c.get(&format!("/sessions/{id}")).ok()
}

/// Every event of a session.
pub fn events(c: &Client, id: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut after = 0;
    loop {
        let page = c
            .get(&format!("/sessions/{id}/events?after={after}&limit=100"))
            .ok();
        let data = page["data"].as_array().unwrap().clone();
        if data.is_empty() {
            return out;
        }
        after = data.last().unwrap()["seq"].as_u64().unwrap();
        out.extend(data);
        if page["has_more"] != json!(true) {
            return out;
        }
    }
}

/// What a session's receipts cost together, in micro-dollars (its first
/// 100 receipts).
pub fn receipts_cost(c: &Client, id: &str) -> i64 {
    let receipts = c.get(&format!("/sessions/{id}/receipts?limit=100")).ok();
    receipts["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| micros(&r["cost_usd"]))
        .sum()
}

/// USD JSON number as micro-dollars (exact for our 6-decimal amounts).
pub fn micros(v: &Value) -> i64 {
    let text = v.to_string();
    let (i, f) = text.split_once('.').unwrap_or((&text, ""));
    let f6: String = f.chars().chain(std::iter::repeat('0')).take(6).collect();
    i.parse::<i64>().unwrap() * 1_000_000 + f6.parse::<i64>().unwrap()
}

/// A plain-http webhook receiver on loopback (for servers started with
/// --allow-private-targets): it answers 200 to every POST and keeps the
/// bodies.
pub struct PlainReceiver {
    pub port: u16,
    pub bodies: std::sync::Arc<std::sync::Mutex<Vec<Value>>>,
    /// The status it answers with, to POSTs and GETs (200 unless changed).
    pub status: std::sync::Arc<std::sync::atomic::AtomicU16>,
    /// What a GET is answered with (an HTML page), changeable while it runs.
    pub page: std::sync::Arc<std::sync::Mutex<String>>,
    /// How long a GET waits before it answers (ms), changeable while it runs.
    pub delay_ms: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl PlainReceiver {
    pub fn start() -> PlainReceiver {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let bodies: std::sync::Arc<std::sync::Mutex<Vec<Value>>> = Default::default();
        let got = bodies.clone();
        let status = std::sync::Arc::new(std::sync::atomic::AtomicU16::new(200));
        let answer = status.clone();
        let page = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let served = page.clone();
        let delay_ms = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let delay = delay_ms.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let got = got.clone();
                let answer = answer.clone();
                let served = served.clone();
                let delay = delay.clone();
                std::thread::spawn(move || {
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 8192];
                    let (head_end, length) = loop {
                        let Ok(n) = stream.read(&mut chunk) else {
                            return;
                        };
                        if n == 0 {
                            return;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                            let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
                            let length = head
                                .lines()
                                .find_map(|l| l.strip_prefix("content-length:"))
                                .and_then(|v| v.trim().parse::<usize>().ok())
                                .unwrap_or(0);
                            break (end + 4, length);
                        }
                    };
                    while buf.len() < head_end + length {
                        let Ok(n) = stream.read(&mut chunk) else {
                            return;
                        };
                        if n == 0 {
                            return;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                    }
                    if buf.starts_with(b"GET ") {
                        let wait = delay.load(std::sync::atomic::Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(wait));
                        let body = served.lock().unwrap().clone();
                        let code = answer.load(std::sync::atomic::Ordering::SeqCst);
                        let _ = stream.write_all(
                            format!(
                                "HTTP/1.1 {code} X\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                                body.len()
                            )
                            .as_bytes(),
                        );
                        return;
                    }
                    if let Ok(v) = serde_json::from_slice(&buf[head_end..head_end + length]) {
                        got.lock().unwrap().push(v);
                    }
                    let code = answer.load(std::sync::atomic::Ordering::SeqCst);
                    let _ = stream.write_all(
                        format!(
                            "HTTP/1.1 {code} X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                        )
                        .as_bytes(),
                    );
                });
            }
        });
        PlainReceiver {
            port,
            delay_ms,
            bodies,
            status,
            page,
        }
    }

    pub fn sessions_notified(&self) -> std::collections::HashSet<String> {
        self.bodies
            .lock()
            .unwrap()
            .iter()
            .filter(|b| {
                b["type"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("session.") && t != "session.proposal")
            })
            .filter_map(|b| b["data"]["session_id"].as_str().map(str::to_string))
            .collect()
    }
}

impl PlainReceiver {
    /// The URL of a path on this receiver.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// The bodies received so far.
    pub fn all(&self) -> Vec<Value> {
        self.bodies.lock().unwrap().clone()
    }
}

/// A shop's listing page of `(name, price)` cards (product links under /p/), for
/// live runs against a loopback site.
pub fn listing(items: &[(&str, &str)]) -> String {
    let cards: String = items
        .iter()
        .map(|(name, price)| {
            let slug = name.to_lowercase().replace(' ', "-");
            format!(
                "<div class=\"card\"><a href=\"/p/{slug}.html\"><img src=\"/i/{slug}.jpg\" alt=\"\"></a>\
                 <h3><a href=\"/p/{slug}.html\">{name}</a></h3><span class=\"price\">${price}</span></div>\n"
            )
        })
        .collect();
    format!("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Lamps</title></head><body><h1>Lamps</h1><div class=\"grid\">{cards}</div></body></html>")
}

/// The workspace root.
pub fn workspace() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The Python with the tests' packages installed (`cargo xtask test`
/// installs them and names it in TEST_FNHOST_PYTHON).
pub fn python() -> std::path::PathBuf {
    let path = std::env::var_os("TEST_FNHOST_PYTHON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/py-tests/bin/python"));
    assert!(
        path.exists(),
        "{} is missing: `cargo xtask test` installs the tests' Python packages",
        path.display()
    );
    path
}

/// A canned answer of a [`Scripted`] site. `{origin}` in its headers and
/// body is replaced by the site's origin.
#[derive(Clone, Debug)]
pub struct Canned {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// One request a [`Scripted`] site received.
#[derive(Clone, Debug)]
pub struct Hit {
    /// Path and query.
    pub target: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub at: std::time::Instant,
}

/// A loopback site that answers each path (with its query) as scripted,
/// and counts what it was asked: requests, their headers and times, and the
/// most connections it held at once. Unknown paths answer 404.
#[derive(Clone)]
pub struct Scripted {
    pub origin: String,
    routes: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Vec<Canned>>>>,
    hits: std::sync::Arc<std::sync::Mutex<Vec<Hit>>>,
    in_flight: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    most_in_flight: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    /// How long each answer is held before it is sent, in ms.
    pub hold_ms: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Scripted {
    pub fn start() -> Scripted {
        use std::io::{Read, Write};
        use std::sync::atomic::Ordering::SeqCst;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let site = Scripted {
            origin: format!("http://{}", listener.local_addr().unwrap()),
            routes: Default::default(),
            hits: Default::default(),
            in_flight: Default::default(),
            most_in_flight: Default::default(),
            hold_ms: Default::default(),
        };
        let s = site.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let s = s.clone();
                std::thread::spawn(move || {
                    let now = s.in_flight.fetch_add(1, SeqCst) + 1;
                    s.most_in_flight.fetch_max(now, SeqCst);
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 4096];
                    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut chunk) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    }
                    let head = String::from_utf8_lossy(&buf).to_string();
                    let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                    let headers = head
                        .lines()
                        .skip(1)
                        .filter_map(|l| l.split_once(':'))
                        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
                        .collect();
                    s.hits.lock().unwrap().push(Hit {
                        target: target.clone(),
                        headers,
                        at: std::time::Instant::now(),
                    });
                    let hold = s.hold_ms.load(SeqCst);
                    if hold > 0 {
                        std::thread::sleep(Duration::from_millis(hold));
                    }
                    let canned = {
                        let mut routes = s.routes.lock().unwrap();
                        match routes.get_mut(&target) {
                            // Scripted answers in turn; the last one repeats.
                            Some(list) if list.len() > 1 => Some(list.remove(0)),
                            Some(list) => list.first().cloned(),
                            None => None,
                        }
                    };
                    let mut canned = canned.unwrap_or(Canned {
                        status: 404,
                        headers: vec![],
                        body: String::new(),
                    });
                    // A conditional request whose validator still holds: 304.
                    let asked = |name: &str| {
                        let hits = s.hits.lock().unwrap();
                        let hit = hits.last().unwrap();
                        hit.headers
                            .iter()
                            .find(|(n, _)| n == name)
                            .map(|(_, v)| v.clone())
                    };
                    let has = |name: &str| {
                        canned
                            .headers
                            .iter()
                            .find(|(n, _)| n.eq_ignore_ascii_case(name))
                            .map(|(_, v)| v.clone())
                    };
                    let fresh = (asked("if-none-match").is_some()
                        && asked("if-none-match") == has("etag"))
                        || (asked("if-modified-since").is_some()
                            && asked("if-modified-since") == has("last-modified"));
                    if canned.status == 200 && fresh {
                        canned = Canned {
                            status: 304,
                            headers: has("etag")
                                .map(|e| vec![("ETag".to_string(), e)])
                                .unwrap_or_default(),
                            body: String::new(),
                        };
                    }
                    let body = canned.body.replace("{origin}", &s.origin);
                    let mut out = format!("HTTP/1.1 {} Scripted\r\n", canned.status);
                    let mut typed = false;
                    for (n, v) in &canned.headers {
                        typed |= n.eq_ignore_ascii_case("content-type");
                        out.push_str(&format!("{n}: {}\r\n", v.replace("{origin}", &s.origin)));
                    }
                    if !typed {
                        out.push_str("Content-Type: text/html; charset=utf-8\r\n");
                    }
                    out.push_str(&format!(
                        "Content-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    ));
                    let _ = stream.write_all(out.as_bytes());
                    let _ = stream.write_all(body.as_bytes());
                    let _ = stream.flush();
                    s.in_flight.fetch_sub(1, SeqCst);
                });
            }
        });
        site
    }

    /// Answer `target` (path and query) with these answers in turn, the
    /// last one from then on.
    pub fn script(&self, target: &str, answers: Vec<Canned>) {
        self.routes
            .lock()
            .unwrap()
            .insert(target.to_string(), answers);
    }

    /// Answer `target` with one status, headers and body.
    pub fn answer(&self, target: &str, status: u16, headers: &[(&str, &str)], body: &str) {
        self.script(
            target,
            vec![Canned {
                status,
                headers: headers
                    .iter()
                    .map(|(n, v)| (n.to_string(), v.to_string()))
                    .collect(),
                body: body.to_string(),
            }],
        );
    }

    /// Answer `target` with a 200 HTML page.
    pub fn page(&self, target: &str, body: &str) {
        self.answer(target, 200, &[], body);
    }

    /// Every request so far.
    pub fn hits(&self) -> Vec<Hit> {
        self.hits.lock().unwrap().clone()
    }

    /// How many requests asked for `target`.
    pub fn count(&self, target: &str) -> usize {
        self.hits().iter().filter(|h| h.target == target).count()
    }

    /// The most requests the site was answering at once.
    pub fn most_in_flight(&self) -> usize {
        self.most_in_flight
            .load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The URL of a path on the site.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin)
    }
}
