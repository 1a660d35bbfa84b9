//! The project's own commands: `cargo xtask <command>`.
//!
//! - `serve [ARGS...]`  build the plugins and the host, then start the server
//! - `test`             build everything the tests need, then run every test
//! - `plugins`          build the plugin components (wasm32-wasip2), the
//!                      Python example's too
//! - `f1`               score the extractor on the product pages and every
//!                      listing set
//! - `bench`            run the benchmarks and print their figures;
//!                      `bench extraction` the extraction figures only

mod figures;

use figures::extraction_figures;
use std::path::{Path, PathBuf};
use std::process::{exit, Command};

/// The components built for wasm32-wasip2 with the `plugin` profile: the
/// built-in plugins and the test components.
const COMPONENTS: &[&str] = &[
    "fnhost-planner",
    "fnhost-extractor",
    "fnhost-differ",
    "fnhost-replay",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    std::env::set_current_dir(&root).expect("enter the workspace root");
    match args.first().map(String::as_str) {
        Some("serve") => {
            build_plugins();
            let mut cmd = cargo(&["run", "--release", "--package", "fnhost", "--", "serve"]);
            cmd.args(&args[1..]);
            run(cmd);
        }
        Some("test") => {
            build_plugins();
            build_python_example();
            build_js_example();
            ensure_browser();
            let python = ensure_python_tools();
            let mut cmd = cargo(&["test", "--workspace", "--no-fail-fast"]);
            cmd.env("TEST_FNHOST_PYTHON", &python);
            run(cmd);
            // The black-box suites once more, every server they start on
            // PostgreSQL (a real server the test library starts) instead of
            // redb. The whole workspace again, so that the build is the one
            // above (a single package would resolve other features and
            // rebuild); the other tests take seconds.
            println!("xtask: the black-box suites again, on PostgreSQL");
            let mut cmd = cargo(&["test", "--workspace", "--no-fail-fast"]);
            cmd.env("TEST_FNHOST_PYTHON", &python)
                .env("TEST_FNHOST_STORAGE", "postgres");
            run(cmd);
        }
        Some("plugins") => {
            build_plugins();
            build_python_example();
            build_js_example();
        }
        Some("f1") => f1(&root),
        Some("bench") => {
            let only_extraction = args.get(1).map(String::as_str) == Some("extraction");
            // `bench extraction` with BENCH_FNHOST_BIN=BINARY times that
            // fnhost binary as it is (no build): another build's figures.
            let given = std::env::var_os("BENCH_FNHOST_BIN")
                .filter(|_| only_extraction)
                .map(PathBuf::from);
            if given.is_none() {
                build_plugins();
                // The server under load is the release build; the black-box
                // benches start it through TEST_FNHOST_BIN (the tests keep
                // the debug build).
                run(cargo(&[
                    "build",
                    "--release",
                    "--package",
                    "fnhost",
                    "--bin",
                    "fnhost",
                ]));
            }
            let server = root.join("target/release/fnhost");
            let server = std::env::var_os("CARGO_TARGET_DIR")
                .map_or(server, |t| PathBuf::from(t).join("release/fnhost"));
            let server = given.unwrap_or(server);
            println!("xtask: commit {}", commit());
            extraction_figures(&root, &server);
            if only_extraction {
                // The extraction figures only: the component against the
                // same extractor compiled natively, and stop there.
                run(cargo(&[
                    "bench",
                    "--package",
                    "fnhost",
                    "--bench",
                    "plugin_runtime",
                    "--",
                    "extraction",
                ]));
                println!("xtask: figures above measured at commit {}", commit());
                return;
            }
            // Figures, not assertions: each prints what it measured.
            run(cargo(&[
                "bench",
                "--package",
                "fnhost",
                "--bench",
                "plugin_runtime",
            ]));
            run(cargo(&[
                "test",
                "--release",
                "--package",
                "fnhost",
                "--test",
                "ledger_bench",
                "--",
                "--ignored",
                "--nocapture",
            ]));
            for test in ["bench", "webhooks"] {
                let mut cmd = cargo(&[
                    "test",
                    "--package",
                    "fnhost-tests",
                    "--test",
                    test,
                    "--",
                    "--ignored",
                    "--nocapture",
                    "--test-threads=1",
                ]);
                cmd.env("TEST_FNHOST_BIN", &server)
                    .env("TEST_FNHOST_PG_FSYNC", "on");
                run(cmd);
            }
            println!("xtask: figures above measured at commit {}", commit());
        }
        _ => {
            eprintln!(
                "usage: cargo xtask serve [ARGS...] | test | plugins | f1 | bench [extraction]"
            );
            exit(2);
        }
    }
}

/// Build every component for wasm32-wasip2, installing the target if needed.
fn build_plugins() {
    ensure_wasm_target();
    let mut cmd = cargo(&["build", "--profile", "plugin", "--target", "wasm32-wasip2"]);
    for name in COMPONENTS.iter().copied().chain(extra_components()) {
        cmd.args(["--package", name]);
    }
    run(cmd);
}

/// The Python example plugin (for `test` and `plugins`) is built by its own
/// script with componentize-py (installed on first use under target/) into
/// the folder of the Rust components, where the tests load it. Skipped while
/// the component is newer than its sources.
fn build_python_example() {
    const DIR: &str = "examples/plugins/python-extractor";
    const SOURCES: &[&str] = &[
        "app.py",
        "test_app.py",
        "build.sh",
        "../../../wit/0.1.0/fnhost-plugin.wit",
    ];
    let Some(out) = stale_component("python_extractor.wasm", DIR, SOURCES) else {
        return;
    };
    let script = format!("{DIR}/build.sh");
    let status = Command::new("bash").arg(script).arg(&out).status();
    if !status.as_ref().is_ok_and(|s| s.success()) {
        let why = status.map_or_else(|e| e.to_string(), |s| s.to_string());
        eprintln!("xtask: building the Python example plugin with {DIR}/build.sh failed ({why})");
        eprintln!("xtask: it needs python3 with venv and pip, and PyPI to install componentize-py");
        exit(1);
    }
}

/// The path of an example's component in the plugins folder of the target
/// directory, when it is older than one of its sources (`None`: up to date).
fn stale_component(file: &str, dir: &str, sources: &[&str]) -> Option<PathBuf> {
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    let out = std::path::absolute(target.join("wasm32-wasip2/plugin").join(file))
        .expect("the current directory exists");
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let built = modified(&out);
    let fresh = sources
        .iter()
        .all(|s| modified(&Path::new(dir).join(s)) < built);
    (!fresh).then_some(out)
}

/// The JavaScript example plugin is built with componentize-js (from npm,
/// `npm ci` on first use) into the folder of the other components. Skipped
/// while the component is newer than its sources.
fn build_js_example() {
    const DIR: &str = "examples/plugins/js-extractor";
    const SOURCES: &[&str] = &[
        "extractor.js",
        "build.mjs",
        "package-lock.json",
        "../../../wit/0.2.0/fnhost-plugin.wit",
    ];
    let Some(out) = stale_component("js_extractor.wasm", DIR, SOURCES) else {
        return;
    };
    let ok = |cmd: &mut Command| cmd.status().is_ok_and(|s| s.success());
    let installed = Path::new(DIR)
        .join("node_modules/@bytecodealliance/componentize-js")
        .exists();
    if !installed
        && !ok(Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(DIR))
    {
        eprintln!("xtask: `npm ci` in {DIR} failed: the JavaScript example needs node, npm and the npm registry");
        exit(1);
    }
    if !ok(Command::new("node")
        .arg("build.mjs")
        .arg(&out)
        .current_dir(DIR))
    {
        eprintln!("xtask: building the JavaScript example plugin with {DIR}/build.mjs failed");
        exit(1);
    }
}

/// Components that live outside `COMPONENTS`: test components and examples,
/// found by their `[package.metadata.fnhost] component = true` marker.
fn extra_components() -> Vec<&'static str> {
    let mut found = Vec::new();
    for dir in ["tests/components", "examples/plugins"] {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let manifest = entry.path().join("Cargo.toml");
            let Ok(text) = std::fs::read_to_string(&manifest) else {
                continue;
            };
            if !text.contains("[package.metadata.fnhost]") {
                continue;
            }
            if let Some(name) = text.lines().find_map(|l| l.strip_prefix("name = \"")) {
                found.push(&*Box::leak(
                    name.trim_end_matches('"').to_string().into_boxed_str(),
                ));
            }
        }
    }
    found
}

/// Install Debian packages (as root, or through sudo).
fn apt_install(packages: &[&str]) {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false);
    let apt = |args: &[&str]| {
        let mut cmd = if root {
            Command::new("apt-get")
        } else {
            Command::new("sudo")
        };
        if !root {
            cmd.args(["DEBIAN_FRONTEND=noninteractive", "apt-get"]);
        }
        cmd.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        cmd
    };
    run(apt(&["update"]));
    let mut install = vec!["install", "-y"];
    install.extend_from_slice(packages);
    run(apt(&install));
}

/// The tests' system packages: Debian's Chromium (the dashboard's browser
/// test) and PostgreSQL (the shared storage engine's tests start a server
/// of their own with it), installed if missing.
fn ensure_system_packages() {
    let mut missing = Vec::new();
    if !Path::new("/usr/bin/chromium").exists() {
        missing.push("chromium");
    }
    let has_postgres = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.flatten().any(|v| v.path().join("bin/initdb").exists()))
        .unwrap_or(false);
    if !has_postgres {
        missing.extend(["postgresql", "postgresql-client"]);
    }
    if !missing.is_empty() {
        apt_install(&missing);
    }
}

/// The dashboard's browser test needs playwright-core (pinned in
/// tests/browser/package-lock.json): install it if missing.
fn ensure_browser() {
    ensure_system_packages();
    let dir = Path::new("tests/browser");
    if !dir.join("node_modules/playwright-core").exists() {
        let verb = if dir.join("package-lock.json").exists() {
            "ci"
        } else {
            "install"
        };
        run(Command::new("npm")
            .args([verb, "--no-audit", "--no-fund"])
            .current_dir(dir));
    }
}

/// The Python the tests run the client examples and the API fuzzer with:
/// a virtual environment under target/ holding tests/python/requirements.txt,
/// reinstalled when that file changes.
fn ensure_python_tools() -> PathBuf {
    const REQUIREMENTS: &str = "tests/python/requirements.txt";
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    let venv = std::path::absolute(target.join("py-tests")).expect("the current directory exists");
    let python = venv.join("bin/python");
    let stamp = venv.join("requirements.installed");
    let wanted = std::fs::read_to_string(REQUIREMENTS).expect("tests/python/requirements.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str()) && python.exists() {
        return python;
    }
    eprintln!(
        "xtask: installing the tests' Python packages into {}",
        venv.display()
    );
    python_env(&venv, &["-r", REQUIREMENTS]);
    std::fs::write(&stamp, wanted).expect("write the install stamp");
    python
}

/// A virtual environment at `venv` with `packages` installed from PyPI
/// (pip's arguments: names, or `-r FILE`); its Python.
pub fn python_env(venv: &Path, packages: &[&str]) -> PathBuf {
    let python = venv.join("bin/python");
    run(Command::new("python3").arg("-m").arg("venv").arg(venv));
    run(Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(packages));
    python
}

fn ensure_wasm_target() {
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("wasm32-wasip2"))
        .unwrap_or(false);
    if !installed {
        run(Command::new("rustup").args(["target", "add", "wasm32-wasip2"]));
    }
}

/// Run `fnhost extract` over the product-pages dataset and score it, then
/// every listing set: the repository's own (`datasets/listing-pages*`, each
/// with its scorer) and the shared ones beside the repository that carry
/// `list-f1`. `FNHOST_DATASET` / `FNHOST_SCORER` score one product set only.
fn f1(root: &Path) {
    build_plugins();
    let only_products = std::env::var_os("FNHOST_DATASET").is_some();
    let dataset = std::env::var("FNHOST_DATASET")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join("../shared/datasets/product-pages"));
    let scorer = std::env::var("FNHOST_SCORER")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join("../shared/tools/product-f1"));
    let out = root.join("target/product-predictions.json");
    let mut extract = cargo(&["run", "--quiet", "--package", "fnhost", "--", "extract"]);
    extract.arg("--dir").arg(&dataset).arg("--out").arg(&out);
    run(extract);
    let mut score = Command::new("python3");
    score
        .arg(scorer)
        .arg(dataset.join("ground-truth.json"))
        .arg(&out);
    run(&mut score);
    if only_products {
        return;
    }
    run(cargo(&["build", "--quiet", "--package", "fnhost"]));
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let fnhost = target.join("debug/fnhost");
    let mut sets: Vec<PathBuf> = std::fs::read_dir(root.join("datasets"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    if let Ok(shared) = std::fs::read_dir(root.join("../shared/datasets")) {
        sets.extend(shared.flatten().map(|e| e.path()));
    }
    sets.retain(|d| d.join("ground-truth.json").exists() && d.join("pages").is_dir());
    sets.sort();
    let data = target.join("f1-data");
    for set in sets {
        println!("xtask: {}", set.display());
        if set.join("list-f1").exists() {
            // Listing and product pages, with kinds (it runs fnhost itself).
            run(Command::new("python3")
                .arg(set.join("list-f1"))
                .arg(&fnhost));
        } else if set
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("product-pages-"))
        {
            // Another set of product pages: product-f1, as above.
            let out = target.join("product-predictions-set.json");
            run(Command::new(&fnhost)
                .arg("--data-dir")
                .arg(&data)
                .args(["extract", "--dir"])
                .arg(&set)
                .arg("--out")
                .arg(&out));
            let scorer = root.join("../shared/tools/product-f1");
            run(Command::new("python3")
                .arg(scorer)
                .arg(set.join("ground-truth.json"))
                .arg(&out));
        } else if std::fs::read_to_string(set.join("ground-truth.json"))
            .is_ok_and(|t| t.contains("\"items\""))
        {
            // A listing set: the one scorer, in the binary. (A product-page
            // set is scored by product-f1 above.)
            let out = target.join("listing-predictions.json");
            run(Command::new(&fnhost)
                .arg("--data-dir")
                .arg(&data)
                .args(["extract", "--list", "--dir"])
                .arg(&set)
                .arg("--out")
                .arg(&out)
                .arg("--truth")
                .arg(set.join("ground-truth.json")));
        }
    }
}

/// The commit the figures belong to, marked when the tree has changes.
fn commit() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let head = git(&["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    if dirty {
        format!("{head} (with uncommitted changes)")
    } else {
        head
    }
}

fn cargo(args: &[&str]) -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(args);
    cmd
}

fn run(mut cmd: impl std::borrow::BorrowMut<Command>) {
    let cmd = cmd.borrow_mut();
    let status = cmd.status().unwrap_or_else(|e| {
        eprintln!("xtask: cannot start {:?}: {e}", cmd.get_program());
        exit(1)
    });
    if !status.success() {
        eprintln!("xtask: {:?} failed ({status})", cmd.get_program());
        exit(status.code().unwrap_or(1));
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace")
        .to_path_buf()
}
