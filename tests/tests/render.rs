//! Rendering: a script application's shop read through headless Chromium,
//! the target wall for everything the browser's page asks for, and a
//! browser killed mid-render. One server for the file (its browser is
//! started once).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fnhost_tests::{wait_for, Client, Server, Site};
use serde_json::{json, Value};

fn browser_present() -> bool {
    std::path::Path::new("/usr/bin/chromium").exists()
}

/// One server (and so one browser) for every scenario, in turn.
#[test]
fn rendering() {
    assert!(
        browser_present(),
        "the renderer tests need /usr/bin/chromium: `cargo xtask test` installs it"
    );
    let s = Server::builder()
        .arg("--allow-private-targets")
        .env("FNHOST_PREVIEW", "extractions")
        .env("FNHOST_FETCH__RENDER_TIMEOUT_S", "20")
        .start();
    let shop = Site::start("script-shop.example");
    a_script_shop_is_read_whole_through_the_browser(&s, &shop);
    nothing_the_page_asks_for_reaches_a_private_address(&s);
    a_browser_killed_mid_render_ends_the_page_fetch_failed_and_the_next_render_works(&s, &shop);
}

/// The extraction once ended, its result and its events.
fn ended(c: &Client, id: &str) -> Value {
    let result = c.get(&format!("/extractions/{id}/result?wait=60"));
    assert_eq!(result.status, 200, "{}", result.text);
    let done = c.get(&format!("/extractions/{id}")).ok();
    let ev = c.get(&format!("/extractions/{id}/events?limit=100")).ok()["data"].clone();
    json!({ "done": done, "result": result.json(), "events": ev })
}

fn extract(s: &Server, body: Value) -> Value {
    let a = s.account("10");
    let c = s.client(&a.live);
    let created = c.post("/extractions", body).ok();
    ended(&c, created["id"].as_str().unwrap())
}

fn names(result: &Value) -> Vec<String> {
    let mut n: Vec<String> = result["records"]
        .as_array()
        .or_else(|| result["rows"].as_array())
        .into_iter()
        .flatten()
        .map(|r| {
            let r = if r["record"].is_object() {
                &r["record"]
            } else {
                r
            };
            r["name"].as_str().unwrap_or_default().to_string()
        })
        .collect();
    n.sort();
    n
}

fn a_script_shop_is_read_whole_through_the_browser(s: &Server, shop: &Site) {
    let url = format!("{}/", shop.origin);
    let x = extract(
        s,
        json!({"url": url, "entity": "product", "max_spend_usd": 1}),
    );
    assert_eq!(x["done"]["status"], "delivered", "{x}");
    // Every product, the two behind "Load more" included.
    assert_eq!(
        names(&x["result"]),
        [
            "Enamel Mug",
            "Folding Cot",
            "Head Lamp 300",
            "Ridge Tent 2P",
            "Storm Lantern",
            "Twin Burner Stove"
        ],
        "{x}"
    );
    // A fetch, a render and six records: 0.002 + 0.003 + 6 × 0.0005.
    assert_eq!(x["done"]["settled_usd"], json!(0.008), "{x}");
    let page = x["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["data"]["receipt_id"].is_string())
        .cloned()
        .unwrap_or_default();
    assert_eq!(page["data"]["rendered"], json!(true), "{x}");

    // Estimates now count a render per page for this shop, and say the
    // worst case for any other.
    let a = s.account("1");
    let c = s.client(&a.live);
    let here = c
        .post(
            "/sessions/estimate",
            json!({"query": format!("camp kit from {url}")}),
        )
        .ok();
    assert!(here["render_usd"].as_f64().unwrap() > 0.0, "{here}");
    assert_eq!(here["render_usd"], here["render_worst_usd"], "{here}");
    let elsewhere = c
        .post(
            "/sessions/estimate",
            json!({"query": "lamps from https://lamps.example.com/"}),
        )
        .ok();
    assert_eq!(elsewhere["render_usd"], json!(0), "{elsewhere}");
    assert!(
        elsewhere["render_worst_usd"].as_f64().unwrap() > 0.0,
        "{elsewhere}"
    );

    // A session reads the shop through the browser too.
    let created = c
        .post(
            "/sessions",
            json!({"query": format!("camp kit from {url}"), "max_spend_usd": 0.5}),
        )
        .ok();
    let id = created["id"].as_str().unwrap();
    let result = c.get(&format!("/sessions/{id}/result?wait=60")).ok();
    let rows = result["rows"].as_array().unwrap();
    assert!(rows.len() >= 6, "{result}");

    // A product page drawn by script: its price and SKU.
    let x = extract(
        s,
        json!({"url": format!("{}/p/tent/", shop.origin), "entity": "product", "max_spend_usd": 1}),
    );
    assert_eq!(x["done"]["status"], "delivered", "{x}");
    let text = x["result"].to_string();
    assert!(text.contains("179.99") && text.contains("SS-TEN-03"), "{x}");

    // The caller turns rendering off: the shell is named and nothing is billed.
    let x = extract(
        s,
        json!({"url": url, "entity": "product", "max_spend_usd": 1, "render": "off"}),
    );
    assert_eq!(x["done"]["status"], "error", "{x}");
    assert_eq!(x["done"]["error"]["code"], "needs_rendering", "{x}");
    assert_eq!(x["done"]["settled_usd"], json!(0), "{x}");

    // A bad value is a clear error.
    let a = s.account("1");
    let c = s.client(&a.live);
    c.post(
        "/extractions",
        json!({"url": url, "entity": "product", "max_spend_usd": 1, "render": "sometimes"}),
    )
    .error(400, "invalid_param");
}

/// A listener (IPv4 and IPv6 loopback) that keeps the first line of every
/// connection made to it.
fn counting_listener() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits: Arc<Mutex<Vec<String>>> = Arc::default();
    let listen = |l: TcpListener, seen: Arc<Mutex<Vec<String>>>| {
        std::thread::spawn(move || {
            for mut s in l.incoming().flatten() {
                s.set_read_timeout(Some(Duration::from_millis(500))).ok();
                let mut buf = [0u8; 256];
                let n = s.read(&mut buf).unwrap_or(0);
                let line = String::from_utf8_lossy(&buf[..n])
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_string();
                seen.lock().unwrap().push(line);
            }
        })
    };
    listen(listener, hits.clone());
    if let Ok(v6) = TcpListener::bind(("::1", port)) {
        listen(v6, hits.clone());
    }
    (port, hits)
}

/// A small site of its own for the wall and fault tests: `routes` maps a
/// path to (status, extra header, content type, body, delay).
fn serve(
    routes: Vec<(&'static str, u16, String, &'static str, String, u64)>,
) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let slow_started = Arc::new(AtomicUsize::new(0));
    let started = slow_started.clone();
    let routes = Arc::new(routes);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (routes, started) = (routes.clone(), started.clone());
            std::thread::spawn(move || {
                let mut stream = stream;
                let mut buf = [0u8; 8192];
                let n = stream.read(&mut buf).unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).to_string();
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                let Some((_, status, header, ct, body, delay)) =
                    routes.iter().find(|r| r.0 == path)
                else {
                    let _ = stream.write_all(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    );
                    return;
                };
                if *delay > 0 {
                    started.fetch_add(1, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(*delay));
                }
                let response = format!(
                    "HTTP/1.1 {status} X\r\n{header}Content-Type: {ct}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes());
            });
        }
    });
    (origin, slow_started)
}

const OWN_JSON: &str = r#"{"items":[{"name":"Wall Lamp","price":"19.00"},{"name":"Desk Lamp","price":"29.00"},{"name":"Floor Lamp","price":"49.00"}]}"#;

fn nothing_the_page_asks_for_reaches_a_private_address(s: &Server) {
    let (port, hits) = counting_listener();
    let targets: Vec<String> = [
        "127.0.0.1",
        "localhost",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "2130706433",
        "0177.0.0.1",
        "0x7f.0.0.1",
        "0x7f000001",
        "127.1",
    ]
    .iter()
    .map(|h| format!("http://{h}:{port}/x"))
    .collect();
    let list = serde_json::to_string(&targets).unwrap();
    let page = format!(
        r#"<!doctype html><html><head><title>Lamps</title><link rel="prefetch" href="http://127.0.0.1:{port}/prefetch"><link rel="stylesheet" href="http://localhost:{port}/s.css"></head>
<body><div id="app"></div>
<img src="http://127.0.0.1:{port}/img.png"><iframe src="http://127.0.0.1:{port}/frame"></iframe>
<script>
var targets = {list};
targets.forEach(function (t) {{
  fetch(t).catch(function () {{}});
  var x = new XMLHttpRequest(); x.open("GET", t); x.onerror = function () {{}}; x.send();
  try {{ navigator.sendBeacon(t, "b"); }} catch (e) {{}}
}});
try {{ new WebSocket("ws://127.0.0.1:{port}/ws"); }} catch (e) {{}}
try {{ new EventSource("http://127.0.0.1:{port}/events"); }} catch (e) {{}}
fetch("/bounce").catch(function () {{}});
fetch("/metadata").catch(function () {{}});
fetch("http://169.254.169.254/latest/meta-data/").catch(function () {{}});
fetch("http://10.0.0.1/").catch(function () {{}});
fetch("/own.json").then(function (r) {{ return r.json(); }}).then(function (d) {{
  document.getElementById("app").innerHTML = "<h1>Lamps</h1><ul>" + d.items.map(function (p, i) {{
    return "<li class=\"product\"><a href=\"/lamp-" + i + "\">" + p.name + "</a> <span class=\"price\">$" + p.price + "</span></li>";
  }}).join("") + "</ul>";
}});
</script></body></html>"#
    );
    let (origin, _) = serve(vec![
        ("/hostile", 200, String::new(), "text/html", page, 0),
        (
            "/own.json",
            200,
            String::new(),
            "application/json",
            OWN_JSON.into(),
            0,
        ),
        (
            "/bounce",
            302,
            format!("Location: http://127.0.0.1:{port}/bounced\r\n"),
            "text/plain",
            String::new(),
            0,
        ),
        (
            "/metadata",
            302,
            "Location: http://169.254.169.254/latest/meta-data/\r\n".into(),
            "text/plain",
            String::new(),
            0,
        ),
    ]);
    let x = extract(
        s,
        json!({"url": format!("{origin}/hostile"), "entity": "lamp", "max_spend_usd": 1, "render": "always"}),
    );
    // The page's own requests were answered: its scripts drew the lamps.
    assert_eq!(x["done"]["status"], "delivered", "{x}");
    assert_eq!(
        names(&x["result"]),
        ["Desk Lamp", "Floor Lamp", "Wall Lamp"],
        "{x}"
    );
    // Nothing else got through, in any spelling, by any route.
    std::thread::sleep(Duration::from_millis(300));
    let hits = hits.lock().unwrap().clone();
    assert!(hits.is_empty(), "a private address was reached: {hits:?}");
}

fn a_browser_killed_mid_render_ends_the_page_fetch_failed_and_the_next_render_works(
    s: &Server,
    shop: &Site,
) {
    let shell = r#"<!doctype html><html><body><div id="app"></div><script>
fetch("/slow.json").then(function (r) { return r.json(); }).then(function (d) {
  document.getElementById("app").innerHTML = "<ul>" + d.items.map(function (p, i) {
    return "<li class=\"product\"><a href=\"/p-" + i + "\">" + p.name + "</a> <span class=\"price\">$" + p.price + "</span></li>";
  }).join("") + "</ul>";
});
</script></body></html>"#;
    let (origin, slow_started) = serve(vec![
        ("/slow", 200, String::new(), "text/html", shell.into(), 0),
        (
            "/slow.json",
            200,
            String::new(),
            "application/json",
            OWN_JSON.into(),
            15_000,
        ),
    ]);
    let a = s.account("1");
    let c = s.client(&a.live);
    let created = c
        .post(
            "/extractions",
            json!({"url": format!("{origin}/slow"), "entity": "lamp", "max_spend_usd": 1, "render": "always"}),
        )
        .ok();
    let id = created["id"].as_str().unwrap().to_string();
    // Kill every process of this server's browser while its page waits.
    wait_for(30, || {
        (slow_started.load(Ordering::SeqCst) > 0).then_some(())
    });
    let profile = s.data.path().join("browser-profile");
    let killed = std::process::Command::new("pkill")
        .args(["-9", "-f", &format!("user-data-dir={}", profile.display())])
        .status()
        .unwrap();
    assert!(killed.success(), "no browser process was found to kill");
    let x = ended(&c, &id);
    let done = &x["done"];
    assert_eq!(done["status"], "error", "{x}");
    assert_eq!(done["error"]["code"], "fetch_failed", "{x}");
    assert_eq!(done["settled_usd"], json!(0), "{x}");
    assert_eq!(done["released_usd"], json!(1), "{x}");

    // The next render starts a new browser.
    let x = extract(
        s,
        json!({"url": format!("{}/p/mug/", shop.origin), "entity": "product", "max_spend_usd": 1, "render": "always"}),
    );
    assert_eq!(x["done"]["status"], "delivered", "{x}");
    assert!(x["result"].to_string().contains("9.95"), "{x}");
}
