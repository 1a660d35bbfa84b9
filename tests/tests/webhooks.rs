//! Webhooks against the real binary: endpoints and their secrets, signed
//! deliveries to a real https receiver on loopback, the retry schedule, the
//! attempts log, crash safety and the target wall.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use fnhost_tests::*;
use http_body_util::BodyExt;
use serde_json::Value;

const ANSWERED: &str = "tents under $200 from outdoor-gear.example";

// ---------------------------------------------------------------------------
// A real https receiver with a self-signed certificate.

struct Tls {
    pem_path: PathBuf,
    cert_der: Vec<u8>,
    key_der: Vec<u8>,
}

/// One certificate for the whole test binary, valid for 127.0.0.1,
/// localhost and hooks.example, written as PEM for the server to trust.
fn tls() -> &'static Tls {
    static TLS: OnceLock<Tls> = OnceLock::new();
    TLS.get_or_init(|| {
        let ck = rcgen::generate_simple_self_signed(vec![
            "127.0.0.1".to_string(),
            "localhost".to_string(),
            "hooks.example".to_string(),
        ])
        .expect("generate a certificate");
        let dir = std::env::temp_dir().join(format!("fnhost-webhooks-cert-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pem_path = dir.join("receiver.pem");
        std::fs::write(&pem_path, ck.cert.pem()).unwrap();
        Tls {
            pem_path,
            cert_der: ck.cert.der().to_vec(),
            key_der: ck.key_pair.serialize_der(),
        }
    })
}

#[derive(Clone, Debug)]
struct Delivery {
    at: Instant,
    wall: SystemTime,
    path: String,
    headers: hyper::HeaderMap,
    body: Vec<u8>,
}

impl Delivery {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("the body is JSON")
    }

    fn header(&self, name: &str) -> String {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    }

    /// Verify with the independent Standard Webhooks implementation; return the envelope.
    fn verify(&self, secret: &str) -> Value {
        standardwebhooks::Webhook::new(secret)
            .unwrap()
            .verify(&self.body, &self.headers)
            .unwrap_or_else(|e| {
                panic!(
                    "signature does not verify ({e:?}): {}",
                    self.header("webhook-signature")
                )
            });
        let v = self.json();
        assert_eq!(
            v["id"].as_str().unwrap(),
            self.header("webhook-id"),
            "envelope id = webhook-id"
        );
        assert_eq!(self.header("content-type"), "application/json");
        v
    }
}

struct Receiver {
    port: u16,
    got: Arc<Mutex<Vec<Delivery>>>,
    /// Statuses to answer, in order; then `default`.
    script: Arc<Mutex<VecDeque<u16>>>,
    default: Arc<AtomicU16>,
    rt: Option<tokio::runtime::Runtime>,
}

impl Receiver {
    fn start() -> Receiver {
        Receiver::on_port(0)
    }

    fn on_port(port: u16) -> Receiver {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let listener = rt
            .block_on(tokio::net::TcpListener::bind(("127.0.0.1", port)))
            .expect("bind the receiver");
        let port = listener.local_addr().unwrap().port();
        let got: Arc<Mutex<Vec<Delivery>>> = Default::default();
        let script: Arc<Mutex<VecDeque<u16>>> = Default::default();
        let default = Arc::new(AtomicU16::new(200));
        let t = tls();
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![rustls::pki_types::CertificateDer::from(t.cert_der.clone())],
            rustls::pki_types::PrivateKeyDer::Pkcs8(t.key_der.clone().into()),
        )
        .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let (g, s, d) = (got.clone(), script.clone(), default.clone());
        rt.spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    continue;
                };
                let (acceptor, got, script, default) =
                    (acceptor.clone(), g.clone(), s.clone(), d.clone());
                tokio::spawn(async move {
                    let Ok(stream) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let svc = hyper::service::service_fn(
                        move |req: hyper::Request<hyper::body::Incoming>| {
                            let (got, script, default) =
                                (got.clone(), script.clone(), default.clone());
                            async move {
                                let (at, wall) = (Instant::now(), SystemTime::now());
                                let (parts, body) = req.into_parts();
                                let body = body
                                    .collect()
                                    .await
                                    .map(|c| c.to_bytes().to_vec())
                                    .unwrap_or_default();
                                let status = script
                                    .lock()
                                    .unwrap()
                                    .pop_front()
                                    .unwrap_or_else(|| default.load(Ordering::SeqCst));
                                got.lock().unwrap().push(Delivery {
                                    at,
                                    wall,
                                    path: parts.uri.path().to_string(),
                                    headers: parts.headers,
                                    body,
                                });
                                let mut resp = hyper::Response::new(http_body_util::Full::new(
                                    hyper::body::Bytes::from_static(b"ok"),
                                ));
                                *resp.status_mut() = hyper::StatusCode::from_u16(status).unwrap();
                                if (300..400).contains(&status) {
                                    resp.headers_mut().insert(
                                        "location",
                                        hyper::header::HeaderValue::from_static("/elsewhere"),
                                    );
                                }
                                Ok::<_, std::convert::Infallible>(resp)
                            }
                        },
                    );
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                        .await;
                });
            }
        });
        Receiver {
            port,
            got,
            script,
            default,
            rt: Some(rt),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.port)
    }

    fn fail_next(&self, statuses: &[u16]) {
        self.script.lock().unwrap().extend(statuses.iter().copied());
    }

    fn always(&self, status: u16) {
        self.default.store(status, Ordering::SeqCst);
    }

    fn all(&self) -> Vec<Delivery> {
        self.got.lock().unwrap().clone()
    }

    fn on(&self, path: &str) -> Vec<Delivery> {
        self.all().into_iter().filter(|d| d.path == path).collect()
    }

    /// Wait until `path` has received at least `n` requests.
    fn wait(&self, path: &str, n: usize, secs: u64) -> Vec<Delivery> {
        wait_for(secs, || {
            let got = self.on(path);
            (got.len() >= n).then_some(got)
        })
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

// ---------------------------------------------------------------------------
// Helpers.

/// A server that may deliver to the loopback receiver, trusting its
/// certificate, with a "minute" of `minute_ms`.
fn hook_server(minute_ms: u64) -> Server {
    Server::builder()
        .arg("--allow-private-targets")
        .env(
            "FNHOST_WEBHOOKS__SCHEDULE_MINUTE_MS",
            &minute_ms.to_string(),
        )
        .env(
            "FNHOST_WEBHOOKS__EXTRA_ROOT_CERT",
            tls().pem_path.to_str().unwrap(),
        )
        .start()
}

/// A new account. Retried briefly: right after start the server may hold the
/// database before its admin socket answers.
fn account(s: &Server) -> Account {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.account("10"))) {
            Ok(a) => return a,
            Err(e) if Instant::now() > deadline => std::panic::resume_unwind(e),
            Err(_) => std::thread::sleep(Duration::from_millis(200)),
        }
    }
}

fn create_endpoint(c: &Client, url: &str, events: &[&str]) -> Value {
    let r = c.post("/webhooks", json!({ "url": url, "events": events }));
    assert_eq!(r.status, 201, "{}", r.text);
    r.json()
}

/// Start a session and wait for it to end; the final session object.
fn run(c: &Client, body: Value) -> Value {
    let r = c.post("/sessions", body);
    assert_eq!(r.status, 201, "{}", r.text);
    let id = r.json()["id"].as_str().unwrap().to_string();
    wait_for(60, || {
        let s = c.get(&format!("/sessions/{id}")).ok();
        (s["status"] != "running").then_some(s)
    })
}

fn attempts(c: &Client, endpoint: &str) -> Vec<Value> {
    let page = c
        .get(&format!("/webhooks/{endpoint}/attempts?limit=100"))
        .ok();
    assert_eq!(page["object"], "list");
    page["data"].as_array().unwrap().clone()
}

fn wait_attempts(
    c: &Client,
    endpoint: &str,
    secs: u64,
    pred: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    wait_for(secs, || {
        let a = attempts(c, endpoint);
        pred(&a).then_some(a)
    })
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

// ---------------------------------------------------------------------------
// Endpoints.

#[test]
fn endpoint_crud_shows_the_secret_once_and_hides_other_accounts() {
    let s = Server::start();
    let a = account(&s);
    let c = s.client(&a.live);
    let url = "https://93.184.216.34/hooks/fn";

    let created = create_endpoint(
        &c,
        url,
        &["session.answered", "balance.low", "session.answered"],
    );
    let id = created["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("whep_"));
    assert_eq!(created["object"], "webhook_endpoint");
    assert_eq!(created["url"], url);
    assert_eq!(
        created["events"],
        json!(["session.answered", "balance.low"]),
        "duplicates folded"
    );
    assert_eq!(created["fn_version"], "2026-08-26", "the account pin");
    assert_eq!(created["disabled"], false);
    assert_eq!(created["livemode"], true);
    assert_eq!(created["last_delivery"], Value::Null);
    assert!(created["created_at"].is_string());
    let secret = created["secret"].as_str().unwrap();
    use base64::Engine;
    let key = base64::engine::general_purpose::STANDARD
        .decode(secret.strip_prefix("whsec_").expect("whsec_ prefix"))
        .unwrap();
    assert!(key.len() >= 24, "at least 24 random bytes");

    // Never readable again.
    let read = c.get(&format!("/webhooks/{id}")).ok();
    assert!(read.get("secret").is_none(), "{read}");
    assert_eq!(read["id"], json!(id));
    let list = c.get("/webhooks").ok();
    assert_eq!(list["object"], "list");
    assert_eq!(list["has_more"], false);
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert!(!list.to_string().contains(secret));

    // Another account, and the other mode of the same account: 404.
    let b = account(&s);
    s.client(&b.live)
        .get(&format!("/webhooks/{id}"))
        .error(404, "not_found");
    s.client(&b.live)
        .patch(&format!("/webhooks/{id}"), json!({ "disabled": true }))
        .error(404, "not_found");
    s.client(&b.live)
        .delete(&format!("/webhooks/{id}"))
        .error(404, "not_found");
    s.client(&b.live)
        .get(&format!("/webhooks/{id}/attempts"))
        .error(404, "not_found");
    s.client(&a.test)
        .get(&format!("/webhooks/{id}"))
        .error(404, "not_found");
    assert_eq!(s.client(&a.test).get("/webhooks").ok()["data"], json!([]));

    // PATCH: events, disabled, description, the pin; validated like creation.
    let p = c
        .patch(
            &format!("/webhooks/{id}"),
            json!({ "events": ["session.error"], "disabled": true, "description": "ops" }),
        )
        .ok();
    assert_eq!(p["events"], json!(["session.error"]));
    assert_eq!(p["disabled"], true);
    assert_eq!(p["description"], "ops");
    let p = c
        .patch(
            &format!("/webhooks/{id}"),
            json!({ "disabled": false, "fn_version": "2026-08-26" }),
        )
        .ok();
    assert_eq!(p["disabled"], false);
    assert_eq!(p["fn_version"], "2026-08-26");
    let e = c
        .patch(
            &format!("/webhooks/{id}"),
            json!({ "fn_version": "2031-01-01" }),
        )
        .error(400, "invalid_param");
    assert_eq!(e["param"], "fn_version");
    let e = c
        .patch(
            &format!("/webhooks/{id}"),
            json!({ "events": ["session.answered", "session.exploded"] }),
        )
        .error(400, "invalid_param");
    assert_eq!(e["param"], "events");
    let e = c
        .patch(
            &format!("/webhooks/{id}"),
            json!({ "url": "https://127.0.0.1/x" }),
        )
        .error(400, "invalid_param");
    assert_eq!(e["param"], "url");
    let e = c
        .patch(&format!("/webhooks/{id}"), json!({ "secret": "whsec_x" }))
        .error(400, "invalid_param");
    assert_eq!(e["param"], "secret");
    // Nothing to change, or a body that does not parse (treated as empty):
    // 400, and the endpoint stays as it was.
    for nothing in [json!({}), json!({ "url": null, "disabled": null })] {
        let e = c
            .patch(&format!("/webhooks/{id}"), nothing)
            .error(400, "invalid_param");
        assert_eq!(e["param"], "url");
    }
    let broken = c.send(
        c.request("PATCH", &format!("/webhooks/{id}"))
            .header("content-type", "application/json")
            .body("{\"disabled\":tru"),
    );
    assert_eq!(broken.error(400, "invalid_param")["param"], "url");
    assert_eq!(c.get(&format!("/webhooks/{id}")).ok()["disabled"], false);

    // Creation errors.
    let e = c
        .post(
            "/webhooks",
            json!({ "url": url, "events": ["session.answered", "session.exploded"] }),
        )
        .error(400, "invalid_param");
    assert_eq!(e["param"], "events");
    assert!(
        e["message"].as_str().unwrap().contains("session.exploded"),
        "names the bad one: {e}"
    );
    c.post("/webhooks", json!({ "events": ["session.answered"] }))
        .error(400, "invalid_param");
    // Without `events`: every type but the opt-in unchanged-monitor deliveries.
    let all = c.post("/webhooks", json!({ "url": url }));
    assert_eq!(all.status, 201, "{}", all.text);
    let events = all.json()["events"].as_array().unwrap().clone();
    for e in [
        "session.answered",
        "balance.low",
        "extraction.delivered",
        "monitor.changed",
    ] {
        assert!(events.contains(&json!(e)), "{e} in {events:?}");
    }
    assert!(!events.contains(&json!("monitor.unchanged")), "{events:?}");
    // fn-version is echoed and never refused (SPEC §9.2); an unknown one
    // leaves the endpoint on the account's pin.
    let odd = c.send(
        c.request("POST", "/webhooks")
            .header("fn-version", "2031-01-01")
            .json(&json!({ "url": url, "events": ["balance.low"] })),
    );
    assert_eq!(odd.status, 201, "{}", odd.text);
    assert_eq!(odd.header("fn-version").as_deref(), Some("2031-01-01"));
    assert_eq!(odd.json()["fn_version"], "2026-08-26");
    for made in [&all, &odd] {
        c.delete(&format!(
            "/webhooks/{}",
            made.json()["id"].as_str().unwrap()
        ))
        .ok();
    }
    let pinned = c.send(
        c.request("POST", "/webhooks")
            .header("fn-version", "2026-08-26")
            .json(&json!({ "url": url, "events": ["balance.low"] })),
    );
    assert_eq!(pinned.status, 201);
    assert_eq!(pinned.json()["fn_version"], "2026-08-26");

    // Known but not yet emitted types are accepted.
    let planned = create_endpoint(
        &c,
        url,
        &[
            "extraction.delivered",
            "extraction.failed",
            "monitor.changed",
            "monitor.unchanged",
            "monitor.failed",
        ],
    );
    assert_eq!(planned["events"].as_array().unwrap().len(), 5);

    // Idempotent creation.
    let first = c.send(
        c.request("POST", "/webhooks")
            .header("Idempotency-Key", "wh-1")
            .json(&json!({ "url": url, "events": ["balance.low"] })),
    );
    let again = c.send(
        c.request("POST", "/webhooks")
            .header("Idempotency-Key", "wh-1")
            .json(&json!({ "url": url, "events": ["balance.low"] })),
    );
    assert_eq!(first.status, 201);
    assert_eq!(again.status, 201);
    assert_eq!(first.json()["id"], again.json()["id"]);

    // Pagination, newest first.
    let page = c.get("/webhooks?limit=2").ok();
    assert_eq!(page["has_more"], true);
    let ids: Vec<String> = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids[0], first.json()["id"].as_str().unwrap());
    let rest = c
        .get(&format!("/webhooks?limit=100&starting_after={}", ids[1]))
        .ok();
    assert_eq!(rest["has_more"], false);
    assert_eq!(rest["data"].as_array().unwrap().len(), 2);
    assert_eq!(rest["data"][1]["id"], json!(id), "the oldest last");

    // Scopes.
    let ro = s.admin(&[
        "create-key",
        "--account",
        &a.id,
        "--mode",
        "live",
        "--scopes",
        "webhooks:read",
    ]);
    let ro = s.client(ro["key"].as_str().unwrap());
    assert_eq!(ro.get(&format!("/webhooks/{id}")).status, 200);
    assert_eq!(
        ro.post(
            "/webhooks",
            json!({ "url": url, "events": ["balance.low"] })
        )
        .error(403, "missing_scope")["required_scope"],
        "webhooks:write"
    );
    ro.post("/webhook-secret/rotate", json!({}))
        .error(403, "missing_scope");
    let none = s.admin(&[
        "create-key",
        "--account",
        &a.id,
        "--mode",
        "live",
        "--scopes",
        "sessions:read",
    ]);
    let none = s.client(none["key"].as_str().unwrap());
    assert_eq!(
        none.get("/webhooks").error(403, "missing_scope")["required_scope"],
        "webhooks:read"
    );
    none.get("/webhook-secret").error(403, "missing_scope");

    // Delete.
    let d = c.delete(&format!("/webhooks/{id}")).ok();
    assert_eq!(d["deleted"], true);
    c.get(&format!("/webhooks/{id}")).error(404, "not_found");
    c.delete(&format!("/webhooks/{id}")).error(404, "not_found");
    assert!(!c.get("/webhooks?limit=100").text.contains(&id));

    // Test and redeliver stay planned.
    assert_eq!(
        c.post(&format!("/webhooks/{}/test", ids[0]), json!({}))
            .error(501, "not_implemented")["surface"],
        "webhook test"
    );
}

#[test]
fn every_refused_target_class_is_invalid_param_without_the_dev_flag() {
    let s = Server::start();
    let a = account(&s);
    let c = s.client(&a.live);
    for url in [
        "https://127.0.0.1/hook",
        "https://127.8.9.10/hook",
        "https://[::1]/hook",
        "https://10.1.2.3/hook",
        "https://172.16.5.4/hook",
        "https://192.168.0.10/hook",
        "https://100.64.1.1/hook",
        "https://169.254.10.10/hook",
        "https://169.254.169.254/latest/meta-data/",
        "https://[fe80::1]/hook",
        "https://[fc00::5]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://[::ffff:169.254.169.254]/hook",
        "https://[::ffff:10.0.0.1]/hook",
        "https://2130706433/hook",
        "https://017700000001/hook",
        "https://0177.0.0.1/hook",
        "https://0x7f000001/hook",
        "https://0x7f.0.0.1/hook",
        "https://127.1/hook",
        "http://93.184.216.34/hook",
        "ftp://93.184.216.34/hook",
        "https://localhost/hook",
        "https://localhost:8443/hook",
        "https://hooks.localhost/hook",
        "https://0.0.0.0/hook",
        "https://user:pw@93.184.216.34/hook",
        "not a url",
    ] {
        let e = c
            .post(
                "/webhooks",
                json!({ "url": url, "events": ["session.answered"] }),
            )
            .error(400, "invalid_param");
        assert_eq!(e["param"], "url", "{url}: {e}");
        assert!(!e["message"].as_str().unwrap().is_empty());
    }
    assert_eq!(
        c.get("/webhooks").ok()["data"],
        json!([]),
        "nothing was created"
    );
    // A public literal passes.
    create_endpoint(&c, "https://93.184.216.34/hook", &["session.answered"]);
}

// ---------------------------------------------------------------------------
// Deliveries.

#[test]
fn runs_deliver_signed_notifications_for_each_terminal_status() {
    let rx = Receiver::start();
    let s = hook_server(100);
    let a = account(&s);
    let c = s.client(&a.test);
    let all = create_endpoint(
        &c,
        &rx.url("/all"),
        &[
            "session.answered",
            "session.abstained",
            "session.error",
            "session.stopped",
        ],
    );
    let errors = create_endpoint(&c, &rx.url("/errors"), &["session.error"]);
    let secret = all["secret"].as_str().unwrap().to_string();
    assert_eq!(all["livemode"], false);

    let answered = run(&c, json!({ "query": ANSWERED }));
    assert_eq!(answered["status"], "answered", "{answered}");
    let error = run(&c, json!({ "query": "tents FN_TEST_ERROR" }));
    assert_eq!(error["status"], "error");
    let abstained = run(&c, json!({ "query": "tents FN_TEST_DECLINE" }));
    assert_eq!(abstained["status"], "abstained");
    // Ends stopped (spend-budget) once the fixture site costs more than its
    // budget; whatever it ends as, its notification must say so.
    let spend = run(&c, json!({ "query": "tents FN_TEST_SPEND_STOP" }));

    let got = rx.wait("/all", 4, 30);
    let mut by_session: HashMap<String, Value> = HashMap::new();
    let mut ids = HashSet::new();
    for d in &got {
        let v = d.verify(&secret);
        assert!(v["created"].is_string());
        assert!(
            ids.insert(v["id"].as_str().unwrap().to_string()),
            "one message per event"
        );
        assert!(v["id"].as_str().unwrap().starts_with("msg_"));
        let ts: i64 = d.header("webhook-timestamp").parse().unwrap();
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        assert!((now - ts).abs() < 120, "Unix seconds");
        assert!(d.header("webhook-signature").starts_with("v1,"));
        // Summaries and ids, never rows.
        assert!(
            v["data"].get("rows").is_none() && v["data"].get("records_data").is_none(),
            "{v}"
        );
        by_session.insert(v["data"]["session_id"].as_str().unwrap().to_string(), v);
    }
    assert_eq!(got.len(), 4, "exactly one delivery per run");

    let sid = |v: &Value| v["id"].as_str().unwrap().to_string();
    for session in [&answered, &error, &abstained, &spend] {
        let v = &by_session[&sid(session)];
        assert_eq!(
            v["type"],
            format!("session.{}", session["status"].as_str().unwrap())
        );
        assert_eq!(v["data"]["status"], session["status"]);
    }
    let d = &by_session[&sid(&answered)]["data"];
    for k in ["turn", "qualified", "records", "sources", "receipts_signed"] {
        assert!(d[k].is_u64(), "{k} in {d}");
    }
    assert!(d["spend_usd"].is_number());
    assert!(d["result_url"]
        .as_str()
        .unwrap()
        .ends_with(&format!("/v1/sessions/{}/result", sid(&answered))));
    for session in [&error, &abstained, &spend] {
        if session["status"] == "answered" {
            continue;
        }
        let d = &by_session[&sid(session)]["data"];
        assert!(d["reason"].is_string(), "{d}");
        assert!(
            d["settled_usd"].is_number() && d["released_usd"].is_number() && d["records"].is_u64(),
            "{d}"
        );
        if session["status"] == "stopped" {
            assert_eq!(d["stop"], session["stop"], "{d}");
        }
    }

    // The session.error endpoint got only that one, signed with its own secret.
    let e = rx.wait("/errors", 1, 30);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(rx.on("/errors").len(), 1);
    let v = e[0].verify(errors["secret"].as_str().unwrap());
    assert_eq!(v["type"], "session.error");
    assert!(
        standardwebhooks::Webhook::new(&secret)
            .unwrap()
            .verify(&e[0].body, &e[0].headers)
            .is_err(),
        "another endpoint's secret does not verify"
    );

    // The attempts log and last_delivery.
    let id = all["id"].as_str().unwrap();
    let log = wait_attempts(&c, id, 10, |a| a.len() == 4);
    for at in &log {
        assert!(at["id"].as_str().unwrap().starts_with("att_"));
        assert_eq!(at["object"], "webhook_attempt");
        assert_eq!(at["attempt"], 1);
        assert_eq!(at["status"], 200);
        assert_eq!(at["ok"], true);
        assert_eq!(at["next_attempt_at"], Value::Null);
        assert_eq!(at["dead_lettered"], false);
        assert!(at["duration_ms"].is_u64() && at["at"].is_string());
        assert!(ids.contains(at["msg_id"].as_str().unwrap()));
        assert!(at["type"].as_str().unwrap().starts_with("session."));
    }
    let ep = c.get(&format!("/webhooks/{id}")).ok();
    let last = &ep["last_delivery"];
    assert_eq!(last["ok"], true);
    assert_eq!(last["status"], 200);
    assert!(ids.contains(last["msg_id"].as_str().unwrap()));
    // Paginate the log by attempt id.
    let first2 = c.get(&format!("/webhooks/{id}/attempts?limit=2")).ok();
    assert_eq!(first2["has_more"], true);
    let next = c
        .get(&format!(
            "/webhooks/{id}/attempts?limit=2&starting_after={}",
            first2["data"][1]["id"].as_str().unwrap()
        ))
        .ok();
    assert_eq!(next["has_more"], false);
    let seen: HashSet<String> = first2["data"]
        .as_array()
        .unwrap()
        .iter()
        .chain(next["data"].as_array().unwrap())
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(seen.len(), 4);
}

#[test]
fn a_runs_webhook_url_is_signed_with_the_account_default_secret() {
    let rx = Receiver::start();
    let s = hook_server(100);
    let a = account(&s);
    let c = s.client(&a.test);
    let url = rx.url("/run");
    let first = run(
        &c,
        json!({ "query": "tents FN_TEST_DECLINE", "webhook_url": url }),
    );
    let got = rx.wait("/run", 1, 30);
    // The attempt is logged once its answer is read, after the receiver
    // has it: wait for the log, so that the next run's attempt is newer.
    wait_for(10, || {
        let page = c.get("/webhook-secret/attempts").ok();
        (page["data"].as_array().unwrap().len() == 1).then_some(())
    });

    // Created lazily by that first delivery; the same on every read; per mode.
    let secret = c.get("/webhook-secret").ok();
    assert_eq!(secret["object"], "webhook_secret");
    assert!(secret["created_at"].is_string());
    let secret = secret["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("whsec_"));
    assert_eq!(c.get("/webhook-secret").ok()["secret"], json!(secret));
    let live = s.client(&a.live).get("/webhook-secret").ok();
    assert_ne!(live["secret"], json!(secret), "each mode has its own");
    let v = got[0].verify(&secret);
    assert_eq!(v["type"], "session.abstained");
    assert_eq!(v["data"]["session_id"], first["id"]);

    // Rotation: a new secret; deliveries carry both signatures for a while.
    let rotated = c.post("/webhook-secret/rotate", json!({})).ok();
    let new = rotated["secret"].as_str().unwrap().to_string();
    assert_ne!(new, secret);
    assert_eq!(c.get("/webhook-secret").ok()["secret"], json!(new));
    run(
        &c,
        json!({ "query": "tents FN_TEST_DECLINE", "webhook_url": url }),
    );
    let got = rx.wait("/run", 2, 30);
    got[1].verify(&new);
    got[1].verify(&secret);

    // Every attempt to a run's own URL is kept and listed, newest first,
    // per mode; a cursor must be one of these attempts.
    let log = wait_for(10, || {
        let page = c.get("/webhook-secret/attempts").ok();
        (page["data"].as_array().unwrap().len() == 2).then_some(page)
    });
    assert_eq!(log["object"], "list");
    let delivered: Vec<&str> = got
        .iter()
        .rev()
        .map(|d| d.headers["webhook-id"].to_str().unwrap())
        .collect();
    let listed: Vec<&str> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["msg_id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, delivered);
    for at in log["data"].as_array().unwrap() {
        assert_eq!(at["object"], "webhook_attempt");
        assert_eq!(at["type"], "session.abstained");
        assert_eq!(at["ok"], true);
        assert_eq!(at["status"], 200);
    }
    let newest = log["data"][0]["id"].as_str().unwrap();
    let rest = c
        .get(&format!(
            "/webhook-secret/attempts?limit=1&starting_after={newest}"
        ))
        .ok();
    assert_eq!(rest["data"][0]["id"], log["data"][1]["id"]);
    assert_eq!(rest["has_more"], false);
    let e = c
        .get("/webhook-secret/attempts?starting_after=att_nope")
        .error(400, "invalid_param");
    assert_eq!(e["param"], "starting_after");
    let live = s.client(&a.live).get("/webhook-secret/attempts").ok();
    assert_eq!(live["data"], json!([]));

    // A run URL must pass the wall too.
    let strict = Server::start();
    let b = account(&strict);
    let e = strict
        .client(&b.test)
        .post(
            "/sessions",
            json!({ "query": ANSWERED, "webhook_url": url }),
        )
        .error(400, "invalid_param");
    assert_eq!(e["param"], "webhook_url");
}

#[test]
fn failures_retry_on_the_scaled_schedule_without_following_redirects() {
    let rx = Receiver::start();
    // A "minute" of 100 ms: retries after 0.1, 0.5, 1.5 and 6 s.
    let s = hook_server(100);
    let a = account(&s);
    let c = s.client(&a.test);
    let ep = create_endpoint(&c, &rx.url("/flaky"), &["session.abstained"]);
    rx.fail_next(&[500, 302, 503, 404]);
    run(&c, json!({ "query": "tents FN_TEST_DECLINE" }));
    let got = rx.wait("/flaky", 5, 60);
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(
        rx.on("/flaky").len(),
        5,
        "four failures, then one success, then nothing"
    );
    assert!(rx.on("/elsewhere").is_empty(), "redirects are not followed");

    let secret = ep["secret"].as_str().unwrap();
    let ids: HashSet<String> = got
        .iter()
        .map(|d| d.verify(secret)["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 1, "the same message every time");
    assert!(
        got.iter().all(|d| d.body == got[0].body),
        "the same bytes every time"
    );

    let gaps: Vec<f64> = got
        .windows(2)
        .map(|w| (w[1].at - w[0].at).as_secs_f64())
        .collect();
    let expected = [0.1, 0.5, 1.5, 6.0];
    for (g, e) in gaps.iter().zip(expected) {
        assert!(
            *g >= e * 0.8,
            "gap {g:.3} s shorter than the schedule's {e} s: {gaps:?}"
        );
        assert!(
            *g <= e + 3.0,
            "gap {g:.3} s far longer than the schedule's {e} s: {gaps:?}"
        );
    }
    assert!(gaps.windows(2).all(|w| w[0] < w[1]), "gaps grow: {gaps:?}");

    let log = wait_attempts(&c, ep["id"].as_str().unwrap(), 10, |a| a.len() == 5);
    // Newest first.
    let numbers: Vec<u64> = log.iter().map(|a| a["attempt"].as_u64().unwrap()).collect();
    assert_eq!(numbers, vec![5, 4, 3, 2, 1]);
    let statuses: Vec<Value> = log.iter().map(|a| a["status"].clone()).collect();
    assert_eq!(
        statuses,
        vec![json!(200), json!(404), json!(503), json!(302), json!(500)]
    );
    for failed in &log[1..] {
        assert_eq!(failed["ok"], false);
        assert!(failed["next_attempt_at"].is_string(), "{failed}");
        assert_eq!(failed["dead_lettered"], false);
    }
    assert_eq!(log[0]["ok"], true);
    assert_eq!(log[0]["next_attempt_at"], Value::Null);
}

#[test]
fn the_last_failure_is_dead_lettered_and_network_errors_are_logged() {
    let rx = Receiver::start();
    rx.always(500);
    // A "minute" of 5 ms: the whole schedule takes about 9.4 s.
    let s = hook_server(5);
    let a = account(&s);
    let c = s.client(&a.test);
    let failing = create_endpoint(&c, &rx.url("/down"), &["session.abstained"]);
    let closed = create_endpoint(
        &c,
        &format!("https://127.0.0.1:{}/nobody", free_port()),
        &["session.abstained"],
    );
    run(&c, json!({ "query": "tents FN_TEST_DECLINE" }));

    let log = wait_attempts(&c, failing["id"].as_str().unwrap(), 90, |a| {
        a.iter().any(|x| x["dead_lettered"] == true)
    });
    assert_eq!(log.len(), 7, "the first attempt and six retries: {log:#?}");
    assert_eq!(log[0]["attempt"], 7);
    assert_eq!(log[0]["dead_lettered"], true);
    assert_eq!(log[0]["next_attempt_at"], Value::Null);
    assert!(log[1..]
        .iter()
        .all(|x| x["dead_lettered"] == false && x["status"] == 500));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(rx.on("/down").len(), 7, "nothing after the dead-letter");

    let log = wait_attempts(&c, closed["id"].as_str().unwrap(), 90, |a| {
        a.iter().any(|x| x["dead_lettered"] == true)
    });
    assert_eq!(log.len(), 7);
    for x in &log {
        assert_eq!(x["status"], Value::Null);
        assert!(!x["error"].as_str().unwrap().is_empty(), "{x}");
    }
    let ep = c
        .get(&format!("/webhooks/{}", closed["id"].as_str().unwrap()))
        .ok();
    assert_eq!(ep["last_delivery"]["ok"], false);
    assert_eq!(ep["last_delivery"]["status"], Value::Null);
}

#[test]
fn queued_messages_survive_kill9_and_are_delivered_after_restart() {
    let port = free_port();
    let mut s = hook_server(100);
    let a = account(&s);
    let c = s.client(&a.test);
    let ep = create_endpoint(
        &c,
        &format!("https://127.0.0.1:{port}/later"),
        &["session.abstained", "session.answered"],
    );
    let id = ep["id"].as_str().unwrap().to_string();
    let mut sessions = HashSet::new();
    for _ in 0..3 {
        sessions.insert(
            run(&c, json!({ "query": "tents FN_TEST_DECLINE" }))["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    // The receiver is down: every message has failed at least once.
    wait_attempts(&c, &id, 30, |log| {
        log.iter()
            .map(|x| x["msg_id"].as_str().unwrap())
            .collect::<HashSet<_>>()
            .len()
            == 3
    });

    s.kill9();
    let rx = Receiver::on_port(port);
    s.restart();
    let got = rx.wait("/later", 3, 60);
    let secret = ep["secret"].as_str().unwrap();
    let delivered: HashSet<String> = got
        .iter()
        .map(|d| {
            d.verify(secret)["data"]["session_id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(delivered, sessions, "every queued message arrives");

    let c = s.client(&a.test);
    let log = wait_attempts(&c, &id, 10, |log| {
        log.iter().filter(|x| x["ok"] == true).count() == 3
    });
    assert!(
        log.iter().any(|x| x["ok"] == false),
        "the failures before the crash are still logged"
    );
}

#[test]
fn a_name_that_later_resolves_inside_is_refused_at_delivery_without_connecting() {
    let rx = Receiver::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("fnhost.toml");
    std::fs::write(
        &config,
        "[resolve_overrides]\n\"hooks.example\" = [\"93.184.216.34\"]\n",
    )
    .unwrap();
    let mut s = Server::builder()
        .env("FNHOST_CONFIG", config.to_str().unwrap())
        .env("FNHOST_WEBHOOKS__SCHEDULE_MINUTE_MS", "100")
        .env(
            "FNHOST_WEBHOOKS__EXTRA_ROOT_CERT",
            tls().pem_path.to_str().unwrap(),
        )
        .start();
    let a = account(&s);
    let c = s.client(&a.test);
    let url = format!("https://hooks.example:{}/rebound", rx.port);
    let ep = create_endpoint(&c, &url, &["session.abstained"]);
    let id = ep["id"].as_str().unwrap().to_string();

    // The name now answers with a loopback address.
    std::fs::write(
        &config,
        "[resolve_overrides]\n\"hooks.example\" = [\"127.0.0.1\"]\n",
    )
    .unwrap();
    s.restart();
    let c = s.client(&a.test);
    run(&c, json!({ "query": "tents FN_TEST_DECLINE" }));
    let log = wait_attempts(&c, &id, 30, |a| a.len() >= 2);
    for x in &log {
        assert_eq!(x["ok"], false);
        assert_eq!(x["status"], Value::Null);
        let err = x["error"].as_str().unwrap();
        assert!(
            err.contains("127.0.0.1") && err.contains("not a public"),
            "{err}"
        );
        assert!(x["next_attempt_at"].is_string());
    }
    assert!(
        rx.all().is_empty(),
        "the refused target was never connected to"
    );
    // Re-registering the same URL is refused now.
    let e = c
        .patch(&format!("/webhooks/{id}"), json!({ "url": url }))
        .error(400, "invalid_param");
    assert_eq!(e["param"], "url");
}

#[test]
fn balance_low_fires_when_a_reservation_crosses_the_threshold() {
    let rx = Receiver::start();
    let s = hook_server(100);
    let a = account(&s);
    let c = s.client(&a.test);
    let ep = create_endpoint(&c, &rx.url("/balance"), &["balance.low"]);
    // The default threshold is $5: reserving $4 leaves $6 available, no event.
    run(
        &c,
        json!({ "query": "tents FN_TEST_DECLINE", "max_spend_usd": 4 }),
    );
    std::thread::sleep(Duration::from_millis(800));
    assert!(rx.on("/balance").is_empty());
    // Reserving $6 leaves $4: below the threshold, before any 402.
    run(
        &c,
        json!({ "query": "tents FN_TEST_DECLINE", "max_spend_usd": 6 }),
    );
    let got = rx.wait("/balance", 1, 30);
    let v = got[0].verify(ep["secret"].as_str().unwrap());
    assert_eq!(v["type"], "balance.low");
    let d = &v["data"];
    assert_eq!(d["threshold_usd"].as_f64(), Some(5.0));
    assert_eq!(d["open_reserves_usd"].as_f64(), Some(6.0));
    assert_eq!(d["balance_usd"].as_f64(), Some(10.0));
    assert_eq!(d["auto_recharge"]["enabled"], false);
    assert_eq!(d["auto_recharge"]["amount_usd"].as_f64(), Some(0.0));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(rx.on("/balance").len(), 1, "one crossing, one message");
}

#[test]
fn disabling_or_deleting_an_endpoint_drops_its_pending_messages() {
    let s = hook_server(100);
    let a = account(&s);
    let c = s.client(&a.test);
    let closed = format!("https://127.0.0.1:{}/gone", free_port());
    let disabled = create_endpoint(&c, &closed, &["session.abstained"]);
    let deleted = create_endpoint(&c, &closed, &["session.abstained"]);
    let (d1, d2) = (
        disabled["id"].as_str().unwrap().to_string(),
        deleted["id"].as_str().unwrap().to_string(),
    );
    run(&c, json!({ "query": "tents FN_TEST_DECLINE" }));
    wait_attempts(&c, &d1, 30, |a| !a.is_empty());

    c.patch(&format!("/webhooks/{d1}"), json!({ "disabled": true }))
        .ok();
    let log = wait_attempts(&c, &d1, 30, |a| a.iter().any(|x| x["dropped"] == true));
    let dropped = log.iter().find(|x| x["dropped"] == true).unwrap();
    assert!(
        dropped["error"].as_str().unwrap().contains("disabled"),
        "{dropped}"
    );
    assert_eq!(log[0]["dropped"], true, "the drop is the last record");
    let n = log.len();
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(attempts(&c, &d1).len(), n, "no attempt after the drop");

    // Deleted: its queue goes with it; its log stays its owner's to read
    // (every attempt is retained and queryable), nobody else's.
    let before = wait_attempts(&c, &d2, 30, |a| !a.is_empty());
    c.delete(&format!("/webhooks/{d2}")).ok();
    c.get(&format!("/webhooks/{d2}")).error(404, "not_found");
    let after = wait_attempts(&c, &d2, 30, |a| a.iter().any(|x| x["dropped"] == true));
    let first = before.last().unwrap();
    assert!(after.contains(first), "{first} kept in {after:?}");
    let other = account(&s);
    s.client(&other.test)
        .get(&format!("/webhooks/{d2}/attempts"))
        .error(404, "not_found");
    s.client(&a.live)
        .get(&format!("/webhooks/{d2}/attempts"))
        .error(404, "not_found");
    // A new endpoint sees only new messages.
    let rx = Receiver::start();
    let fresh = create_endpoint(&c, &rx.url("/fresh"), &["session.abstained"]);
    run(&c, json!({ "query": "tents FN_TEST_DECLINE" }));
    let got = rx.wait("/fresh", 1, 30);
    got[0].verify(fresh["secret"].as_str().unwrap());
}

// ---------------------------------------------------------------------------
// Benchmark: `cargo test -p fnhost-tests --test webhooks -- --ignored --nocapture`.

/// Unix milliseconds of an RFC 3339 UTC timestamp such as 2026-08-26T10:00:00.123Z.
fn unix_ms(text: &str) -> i64 {
    let (date, time) = text.trim_end_matches('Z').split_once('T').unwrap();
    let d: Vec<i64> = date.split('-').map(|x| x.parse().unwrap()).collect();
    let (y, m, day) = (d[0], d[1], d[2]);
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146097 + doe - 719468;
    let t: Vec<&str> = time.split(':').collect();
    let secs: f64 = t[2].parse().unwrap();
    days * 86_400_000
        + t[0].parse::<i64>().unwrap() * 3_600_000
        + t[1].parse::<i64>().unwrap() * 60_000
        + (secs * 1000.0).round() as i64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

#[test]
#[ignore]
fn bench_delivery_rate_and_latency() {
    const ENDPOINTS: usize = 50;
    const RUNS: usize = 20;
    let rx = Receiver::start();
    let s = hook_server(100);
    let a = account(&s);
    let c = s.client(&a.test);
    let secs = |t: SystemTime| t.duration_since(UNIX_EPOCH).unwrap().as_millis() as f64;

    // Latency on an idle queue: one endpoint, runs one after another.
    create_endpoint(&c, &rx.url("/latency"), &["session.abstained"]);
    let mut latency = Vec::new();
    for i in 0..RUNS {
        run(&c, json!({ "query": "tents FN_TEST_DECLINE" }));
        let d = rx.wait("/latency", i + 1, 30)[i].clone();
        let created = unix_ms(d.json()["created"].as_str().unwrap()) as f64;
        latency.push(secs(d.wall) - created);
    }

    // Rate: every run's end fans out to many endpoints at once.
    for i in 0..ENDPOINTS {
        create_endpoint(&c, &rx.url(&format!("/fan/{i}")), &["session.error"]);
    }
    let before = rx.all().len();
    for _ in 0..RUNS {
        run(&c, json!({ "query": "tents FN_TEST_ERROR" }));
    }
    let fan: Vec<Delivery> = wait_for(300, || {
        let all: Vec<Delivery> = rx.all()[before..]
            .iter()
            .filter(|d| d.path.starts_with("/fan/"))
            .cloned()
            .collect();
        (all.len() >= ENDPOINTS * RUNS).then_some(all)
    });
    let first = fan.iter().map(|d| d.at).min().unwrap();
    let last = fan.iter().map(|d| d.at).max().unwrap();
    let rate = (fan.len() - 1) as f64 / (last - first).as_secs_f64();
    let mut fan_latency = Vec::new();
    for d in &fan {
        let created = unix_ms(d.json()["created"].as_str().unwrap()) as f64;
        fan_latency.push(secs(d.wall) - created);
    }
    println!("webhooks bench (https to a loopback receiver, a fresh TLS connection per delivery, {} concurrent):", 16);
    println!(
        "  run end -> delivery, idle queue, median of {RUNS}: {:.1} ms",
        median(latency)
    );
    println!(
        "  {RUNS} runs x {ENDPOINTS} endpoints = {} deliveries: {:.0} deliveries/s sustained; run end -> delivery median {:.0} ms",
        fan.len(),
        rate,
        median(fan_latency)
    );
}
