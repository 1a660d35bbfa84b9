//! The plugin authors' kit, as an author runs it: `fnhost plugin check`
//! on good and broken components, and `fnhost extract --plugin --truth` on a
//! folder of pages with its ground truth.

use std::path::PathBuf;
use std::process::Command;

use fnhost_tests::*;

fn component(name: &str) -> PathBuf {
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    let path = target
        .join("wasm32-wasip2/plugin")
        .join(format!("{name}.wasm"));
    assert!(
        path.is_file(),
        "{} is missing: run `cargo xtask plugins`",
        path.display()
    );
    path
}

/// `fnhost plugin check ARGS`: its exit status and JSON report.
fn check(data: &std::path::Path, args: &[&std::ffi::OsStr]) -> (bool, Value) {
    let out = Command::new(binary())
        .arg("--data-dir")
        .arg(data)
        .args(["plugin", "check"])
        .args(args)
        .env("FNHOST_LOG", "error")
        .env(
            "FNHOST_PLUGINS__CACHE_DIR",
            root().join("target/test-plugin-cache"),
        )
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.success(), report)
}

#[test]
fn plugin_check_passes_good_components_and_names_what_is_wrong_with_broken_ones() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (ok, r) = check(d, &[component("fnhost_extractor").as_os_str()]);
    assert!(ok, "{r}");
    assert_eq!(r["role"], "extractor");
    assert_eq!(r["contract"], "fnhost:plugin/extractor@0.2.0");
    assert!(r["smoke"].as_str().unwrap().contains("1 record"), "{r}");
    assert!(r["prepare_ms"].is_u64() && r["call_ms"].is_u64() && r["bytes"].as_u64().unwrap() > 0);
    assert!(
        r["exports"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e.as_str().unwrap().starts_with("fnhost:plugin/extraction")),
        "{r}"
    );

    // With its manifest: read as the host reads it, its role the component's.
    let folder = d.join("fnhost_extractor");
    std::fs::create_dir_all(&folder).unwrap();
    let wasm = folder.join("fnhost_extractor.wasm");
    std::fs::copy(component("fnhost_extractor"), &wasm).unwrap();
    let manifest = folder.join("plugin.toml");
    std::fs::write(
        &manifest,
        "name = \"acme\"\nversion = \"1.0.0\"\nrole = \"extractor\"\ndomains = [\"Acme.example\"]\n",
    )
    .unwrap();
    let (ok, r) = check(
        d,
        &[
            wasm.as_os_str(),
            "--manifest".as_ref(),
            manifest.as_os_str(),
        ],
    );
    assert!(ok, "{r}");
    assert_eq!(r["manifest"]["name"], "acme", "{r}");
    assert_eq!(r["manifest"]["domains"], json!(["acme.example"]), "{r}");
    assert_eq!(r["warnings"], json!([]), "{r}");
    std::fs::write(
        &manifest,
        "name = \"acme\"\nversion = \"1.0.0\"\nrole = \"differ\"\n",
    )
    .unwrap();
    let (ok, r) = check(
        d,
        &[
            wasm.as_os_str(),
            "--manifest".as_ref(),
            manifest.as_os_str(),
        ],
    );
    assert!(
        !ok && r["problems"].to_string().contains("the manifest's role"),
        "{r}"
    );
    std::fs::write(&manifest, "name = \"acme\"\nrole = \"extractor\"\n").unwrap();
    let (ok, r) = check(
        d,
        &[
            wasm.as_os_str(),
            "--manifest".as_ref(),
            manifest.as_os_str(),
        ],
    );
    assert!(!ok && r["problems"].to_string().contains("version"), "{r}");

    // The three example plugins, one per language, pass.
    for (name, contract) in [
        ("rust_extractor", "fnhost:plugin/extractor@0.1.0"),
        ("python_extractor", "fnhost:plugin/extractor@0.1.0"),
        ("js_extractor", "fnhost:plugin/extractor@0.2.0"),
    ] {
        let (ok, r) = check(
            d,
            &[
                component(name).as_os_str(),
                "--role".as_ref(),
                "extractor".as_ref(),
            ],
        );
        assert!(ok, "{name}: {r}");
        assert_eq!(r["contract"], contract, "{name}: {r}");
    }

    let broken: [(&str, &[&str], &str); 3] = [
        (
            "fnhost_test_wrong_world",
            &["--role", "extractor"],
            "not the extractor world",
        ),
        ("fnhost_test_forbidden_import", &[], "does not grant"),
        ("fnhost_test_guest_panic", &[], "trapped"),
    ];
    for (name, extra, says) in broken {
        let file = component(name);
        let mut args: Vec<&std::ffi::OsStr> = vec![file.as_os_str()];
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        let (ok, r) = check(d, &args);
        assert!(!ok, "{name}: {r}");
        assert_eq!(r["ok"], false);
        assert!(r["problems"].to_string().contains(says), "{name}: {r}");
    }
    let text = d.join("notes.wasm");
    std::fs::write(&text, "hello").unwrap();
    let (ok, r) = check(d, &[text.as_os_str()]);
    assert!(
        !ok && r["problems"].to_string().contains("not a WebAssembly file"),
        "{r}"
    );
    let big = d.join("big.wasm");
    let mut bytes = b"\0asm".to_vec();
    bytes.resize(51 * 1024 * 1024, 0);
    std::fs::write(&big, bytes).unwrap();
    let (ok, r) = check(d, &[big.as_os_str()]);
    assert!(
        !ok && r["problems"].to_string().contains("more than"),
        "{r}"
    );
}

/// `fnhost extract --list --plugin FILE --truth T`: the last line of what it prints.
fn scored(dir: &std::path::Path, set: &std::path::Path, plugin: &std::path::Path) -> String {
    let out = dir.join("predictions.json");
    let run = Command::new(binary())
        .arg("--data-dir")
        .arg(dir)
        .args(["extract", "--list", "--dir"])
        .arg(set)
        .arg("--out")
        .arg(&out)
        .arg("--plugin")
        .arg(plugin)
        .arg("--truth")
        .arg(set.join("ground-truth.json"))
        .env("FNHOST_LOG", "error")
        .env(
            "FNHOST_PLUGINS__CACHE_DIR",
            root().join("target/test-plugin-cache"),
        )
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = String::from_utf8_lossy(&run.stdout).to_string();
    text.lines()
        .find(|l| l.starts_with("overall: "))
        .expect(&text)
        .to_string()
}

#[test]
fn the_three_examples_score_their_page_whole() {
    let dir = tempfile::tempdir().unwrap();
    let set = workspace().join("examples/plugins/pages");
    for name in ["rust_extractor", "python_extractor", "js_extractor"] {
        let overall = scored(dir.path(), &set, &component(name));
        assert_eq!(
            overall,
            "overall: items F1 1.000 (P 1.000 R 1.000), price accuracy 1.000, currency accuracy 1.000, kind 1/1",
            "{name}"
        );
    }
}

#[test]
fn extract_scores_any_extractor_against_a_ground_truth() {
    let dir = tempfile::tempdir().unwrap();
    let set = workspace().join("datasets/listing-pages");
    let overall = scored(dir.path(), &set, &component("fnhost_extractor"));
    let f1: f64 = overall["overall: items F1 ".len()..][..5].parse().unwrap();
    assert!(f1 > 0.9, "{overall}");
    assert!(overall.contains("currency accuracy"), "{overall}");
}

/// `fnhost plugin new` in each language makes a project that builds as
/// generated and passes `plugin check` on its own test page.
#[test]
fn plugin_new_projects_build_and_pass_the_check() {
    if postgres::selected() {
        // Nothing here touches storage: the redb pass of the suite ran it.
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    for lang in ["rust", "python", "js"] {
        let name = format!("acme-{lang}");
        let project = d.join(&name);
        let made = Command::new(binary())
            .args(["--data-dir"])
            .arg(d)
            .args(["plugin", "new", "--lang", lang, &name, "--dir"])
            .arg(&project)
            .output()
            .unwrap();
        assert!(
            made.status.success(),
            "{}",
            String::from_utf8_lossy(&made.stderr)
        );
        assert!(project.join("wit/fnhost-plugin.wit").is_file());
        assert!(project.join("plugin.toml").is_file() && project.join("test/page.html").is_file());
        let mut build = Command::new(project.join("build.sh"));
        let component = match lang {
            "rust" => {
                // Its own target folder, kept between runs: one compile of its dependencies.
                let t = target.join("plugin-new-rust");
                build.env("CARGO_TARGET_DIR", &t);
                t.join("wasm32-wasip2/release/acme_rust.wasm")
            }
            "python" => {
                build.env(
                    "COMPONENTIZE_PY",
                    target.join("componentize-py/bin/componentize-py"),
                );
                project.join("acme_python.wasm")
            }
            _ => {
                // The JavaScript example's componentize-js, installed by `cargo xtask plugins`.
                std::os::unix::fs::symlink(
                    workspace().join("examples/plugins/js-extractor/node_modules"),
                    project.join("node_modules"),
                )
                .unwrap();
                project.join("acme_js.wasm")
            }
        };
        let built = build.current_dir(&project).output().unwrap();
        assert!(
            built.status.success(),
            "{lang}: {}\n{}",
            String::from_utf8_lossy(&built.stdout),
            String::from_utf8_lossy(&built.stderr)
        );
        let page = project.join("test/page.html");
        let (ok, r) = check(
            d,
            &[
                component.as_os_str(),
                "--role".as_ref(),
                "extractor".as_ref(),
                "--page".as_ref(),
                page.as_os_str(),
                "--url".as_ref(),
                "https://example.test/p/amber".as_ref(),
            ],
        );
        assert!(ok, "{lang}: {r}");
        assert_eq!(
            r["contract"], "fnhost:plugin/extractor@0.2.0",
            "{lang}: {r}"
        );
        assert!(
            r["smoke"]
                .as_str()
                .unwrap()
                .contains("kind Product, 1 record"),
            "{lang}: {r}"
        );
    }
}

/// With `plugins.watch`, a plugin copied into the plugins folder of a
/// running server serves the next run, without a restart.
#[test]
fn a_watched_plugins_folder_is_reloaded_when_it_changes() {
    let shop = Scripted::start();
    shop.page(
        "/catalog",
        r#"<html><body><div class="product" data-sku="ES-1001"><a class="name" href="/p/1">Trail Kettle</a><span class="price" data-currency="EUR">24.90</span><span class="stock">In stock</span></div><div class="product" data-sku="ES-1002"><a class="name" href="/p/2">Camp Mug</a><span class="price" data-currency="EUR">7</span></div></body></html>"#,
    );
    let folder = tempfile::tempdir().unwrap();
    let s = Server::builder()
        .arg("--allow-private-targets")
        .env("FNHOST_PLUGINS__DIR", folder.path().to_str().unwrap())
        .env("FNHOST_PLUGINS__WATCH", "true")
        .start();
    let a = s.account("10");
    let c = s.client(&a.live);
    let extractor_of_a_run = || {
        let id = c
            .post("/sessions", json!({ "query": format!("products from {}/catalog", shop.origin), "max_spend_usd": 0.1 }))
            .ok()["id"]
            .as_str()
            .unwrap()
            .to_string();
        result(&c, &id);
        let receipts = c.get(&format!("/sessions/{id}/receipts")).ok();
        receipts["data"][0]["extractor"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        !extractor_of_a_run().starts_with("example-shop-rust"),
        "no plugin installed yet"
    );
    // Install the Rust example for this site, as an author would while developing.
    let dir = folder.path().join("shop");
    std::fs::create_dir_all(&dir).unwrap();
    let manifest =
        std::fs::read_to_string(workspace().join("examples/plugins/rust-extractor/plugin.toml"))
            .unwrap()
            .replace("\"example-shop.test\"", "\"127.0.0.1\"");
    std::fs::copy(component("rust_extractor"), dir.join("rust_extractor.wasm")).unwrap();
    std::fs::write(dir.join("plugin.toml"), manifest).unwrap();
    let used = wait_for(30, || {
        let e = extractor_of_a_run();
        e.starts_with("example-shop-rust").then_some(e)
    });
    assert_eq!(used, "example-shop-rust@0.1.0");
}
