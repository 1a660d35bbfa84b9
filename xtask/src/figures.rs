//! `cargo xtask bench extraction`: the extraction's figures beside
//! extruct's, and the large pages'.

use std::path::{Path, PathBuf};
use std::process::{exit, Command};

use crate::{cargo, run};

/// `fnhost extract` (the plugin in the host's runtime) beside extruct
/// (PyPI, one process, in the bench's own venv) over the same folders of
/// saved pages, in the same run, both pinned to one core (`taskset -c 0`,
/// where taskset exists): pages/s and MB/s of each and how many times
/// extruct's pages/s `fnhost extract` reaches, per folder and over all.
/// Then the large pages: the time per page of the pages of 1 MB or more
/// (natively, the extractor's `large` example) and a synthetic 10 MB
/// listing page's time and peak memory, natively and through `fnhost
/// extract`.
pub fn extraction_figures(root: &Path, server: &Path) {
    // The shared product pages and listing sets (when present beside the
    // repository) and the repository's own listing sets.
    let mut folders: Vec<PathBuf> = vec![root.join("../shared/datasets/product-pages")];
    for parent in [root.join("datasets"), root.join("../shared/datasets")] {
        let mut sets: Vec<PathBuf> = std::fs::read_dir(&parent)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        sets.retain(|d| {
            d.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("listing-pages"))
        });
        sets.sort();
        folders.extend(sets);
    }
    folders.retain(|d| d.join("urls.json").exists() && d.join("pages").is_dir());
    if folders.is_empty() {
        println!("xtask: no saved page folders; extraction figures skipped");
        return;
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let venv = target.join("bench-py");
    let mut python = venv.join("bin/python");
    if !python.exists() {
        python = crate::python_env(&venv, &["extruct"]);
    }
    let pin = Command::new("taskset")
        .args(["-c", "0", "true"])
        .status()
        .is_ok_and(|s| s.success());
    println!(
        "xtask: extraction figures {}",
        if pin {
            "pinned to one core (taskset -c 0), fnhost and extruct alike"
        } else {
            "NOT pinned (no taskset here)"
        }
    );
    // `program args...`, under `taskset -c 0` when pinning.
    let pinned = |program: &Path| -> Command {
        if pin {
            let mut cmd = Command::new("taskset");
            cmd.args(["-c", "0"]).arg(program);
            cmd
        } else {
            Command::new(program)
        }
    };
    let data = target.join("bench-extract-data");
    let out = target.join("bench-extract.json");
    let extract = |folder: &Path| -> Command {
        let mut cmd = pinned(server);
        cmd.arg("--data-dir")
            .arg(&data)
            .args(["extract", "--list", "--dir"])
            .arg(folder)
            .arg("--out")
            .arg(&out);
        cmd
    };
    // (folder, pages, bytes, seconds) of fnhost extract.
    let mut ours: Vec<(PathBuf, usize, u64, f64)> = Vec::new();
    for folder in &folders {
        let (count, size) = page_files(folder);
        // One warm-up (compiles the plugin into the cache), then the best
        // of three timed runs (the process's whole wall time: start, plugin
        // load, reading and gunzipping the pages, writing the output).
        run(extract(folder).stdout(std::process::Stdio::null()));
        let mut took = f64::MAX;
        for _ in 0..3 {
            let started = std::time::Instant::now();
            run(extract(folder).stdout(std::process::Stdio::null()));
            took = took.min(started.elapsed().as_secs_f64());
        }
        println!(
            "fnhost extract {}: {count} pages, {:.1} MB, {took:.2} s, {:.1} pages/s, {:.2} MB/s",
            folder.display(),
            size as f64 / 1e6,
            count as f64 / took,
            size as f64 / 1e6 / took
        );
        ours.push((folder.clone(), count, size, took));
    }
    let (pages, bytes, secs) = ours
        .iter()
        .fold((0, 0, 0.0), |(p, b, s), o| (p + o.1, b + o.2, s + o.3));
    println!(
        "fnhost extract all: {pages} pages, {:.1} MB, {secs:.2} s, {:.1} pages/s, {:.2} MB/s",
        bytes as f64 / 1e6,
        pages as f64 / secs,
        bytes as f64 / 1e6 / secs
    );
    let mut extruct = pinned(&python);
    extruct
        .arg(root.join("xtask/extruct_bench.py"))
        .args(&folders);
    let output = extruct.output().unwrap_or_else(|e| {
        eprintln!("xtask: cannot start extruct: {e}");
        exit(1)
    });
    let text = String::from_utf8_lossy(&output.stdout);
    print!("{text}");
    // "extruct FOLDER: N pages, X MB, S s, P pages/s, M MB/s"
    let theirs = |label: &str| -> Option<f64> {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("extruct {label}: ")))?;
        let secs = line.split(", ").nth(2)?.strip_suffix(" s")?;
        secs.parse().ok()
    };
    for (folder, count, _, took) in &ours {
        if let Some(s) = theirs(&folder.display().to_string()) {
            println!(
                "fnhost extract vs extruct, {}: {:.1}x pages/s",
                folder.display(),
                s / took,
            );
            let _ = count;
        }
    }
    // The listing sets together, as one figure (a set of one or two pages
    // is mostly the process's start).
    let is_listing = |f: &Path| {
        f.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("listing-pages"))
    };
    let (mut ours_listing, mut theirs_listing, mut listing_pages) = (0.0, 0.0, 0);
    for (folder, count, _, took) in ours.iter().filter(|o| is_listing(&o.0)) {
        if let Some(s) = theirs(&folder.display().to_string()) {
            ours_listing += took;
            theirs_listing += s;
            listing_pages += count;
        }
    }
    if ours_listing > 0.0 {
        println!(
            "fnhost extract vs extruct, the listing sets together ({listing_pages} pages): \
             {ours_listing:.2} s against {theirs_listing:.2} s, {:.1}x pages/s",
            theirs_listing / ours_listing
        );
    }
    if let Some(s) = theirs("all") {
        println!("fnhost extract vs extruct, all: {:.1}x pages/s", s / secs);
    }
    large_page_figures(root, &target, server, &folders, &pinned);
}

/// The number of saved pages of a folder and their size on disk.
fn page_files(folder: &Path) -> (usize, u64) {
    let files: Vec<std::fs::Metadata> = std::fs::read_dir(folder.join("pages"))
        .map(|d| d.flatten().filter_map(|e| e.metadata().ok()).collect())
        .unwrap_or_default();
    (files.len(), files.iter().map(|m| m.len()).sum())
}

/// p50/p99 per page of the pages of 1 MB or more, natively; a synthetic
/// 10 MB listing page natively (time, peak memory) and through `fnhost
/// extract` (the process's time and peak resident memory, sampled).
fn large_page_figures(
    root: &Path,
    target: &Path,
    server: &Path,
    folders: &[PathBuf],
    pinned: &dyn Fn(&Path) -> Command,
) {
    run(cargo(&[
        "build",
        "--release",
        "--package",
        "fnhost-extractor",
        "--example",
        "large",
    ]));
    let large = target.join("release/examples/large");
    let mut cmd = pinned(&large);
    cmd.args(["--rounds", "5"]).args(folders);
    run(cmd);
    // The synthetic page, written for the component run (not kept in the
    // repository: it is made here).
    let dir = target.join("bench-synthetic");
    let _ = std::fs::create_dir_all(dir.join("pages"));
    std::fs::write(
        dir.join("urls.json"),
        r#"{"synthetic": "https://shop.example/c/everything?page=1"}"#,
    )
    .expect("write urls.json");
    let mut cmd = pinned(&large);
    cmd.args(["--synthetic-mb", "10", "--write"])
        .arg(dir.join("pages/synthetic.html"));
    run(cmd);
    let _ = root;
    let data = target.join("bench-extract-data");
    let mut cmd = pinned(server);
    cmd.arg("--data-dir")
        .arg(&data)
        .args(["extract", "--list", "--dir"])
        .arg(&dir)
        .arg("--out")
        .arg(target.join("bench-synthetic.json"))
        .stdout(std::process::Stdio::null());
    let errors = target.join("bench-synthetic.err");
    if let Ok(f) = std::fs::File::create(&errors) {
        cmd.stderr(f);
    }
    let started = std::time::Instant::now();
    let mut child = cmd.spawn().unwrap_or_else(|e| {
        eprintln!("xtask: cannot start {}: {e}", server.display());
        exit(1)
    });
    // VmHWM only grows: the last sample before the process ends is within
    // a few milliseconds of its peak.
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib: u64 = 0;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for fnhost") {
            break s;
        }
        if let Ok(s) = std::fs::read_to_string(&status_file) {
            if let Some(kib) = s
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
            {
                peak_kib = peak_kib.max(kib);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let took = started.elapsed().as_secs_f64();
    if !status.success() {
        eprintln!("xtask: fnhost extract on the synthetic page failed ({status})");
        exit(1);
    }
    let peak = if peak_kib == 0 {
        "unknown (no /proc)".to_string()
    } else {
        format!("{:.0} MiB", peak_kib as f64 / 1024.0)
    };
    // A page the plugin could not extract (a time limit, an output bound)
    // is reported by fnhost on stderr, not by its exit status.
    let failed = std::fs::read_to_string(&errors)
        .unwrap_or_default()
        .lines()
        .find(|l| l.contains("extraction failed"))
        .map(str::to_string);
    match failed {
        Some(why) => println!(
            "fnhost extract, synthetic 10 MB page: FAILED after {took:.2} s ({why}), peak RSS {peak} (sampled)"
        ),
        None => println!(
            "fnhost extract, synthetic 10 MB page: {took:.2} s for the whole process, peak RSS {peak} (sampled)"
        ),
    }
}
