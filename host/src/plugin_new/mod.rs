//! `fnhost plugin new --lang rust|python|js NAME`: a ready extractor
//! project: the contract's WIT copied, the language's bindings set up, a
//! manifest, one test page and a build script. The generated extractor
//! reads a product page's `<h1>` and `.price`; it builds as generated.

use std::path::{Path, PathBuf};

use anyhow::Context;

/// The languages a project can be made in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Rust,
    Python,
    Js,
}

impl std::str::FromStr for Lang {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<Lang> {
        match s {
            "rust" => Ok(Lang::Rust),
            "python" | "py" => Ok(Lang::Python),
            "js" | "javascript" => Ok(Lang::Js),
            other => anyhow::bail!("--lang {other}: a language is rust, python or js"),
        }
    }
}

/// The contract the projects target.
const WIT: &str = include_str!("../../../wit/0.2.0/fnhost-plugin.wit");

/// Files of each language: (path in the project, template, executable).
fn files(lang: Lang) -> Vec<(&'static str, &'static str, bool)> {
    match lang {
        Lang::Rust => vec![
            ("Cargo.toml", include_str!("rust_cargo.toml.txt"), false),
            ("src/lib.rs", include_str!("rust_lib.rs.txt"), false),
            ("build.sh", include_str!("rust_build.sh.txt"), true),
        ],
        Lang::Python => vec![
            ("app.py", include_str!("python_app.py.txt"), false),
            ("build.sh", include_str!("python_build.sh.txt"), true),
        ],
        Lang::Js => vec![
            ("extractor.js", include_str!("js_extractor.js.txt"), false),
            ("build.mjs", include_str!("js_build.mjs.txt"), false),
            ("package.json", include_str!("js_package.json.txt"), false),
        ],
    }
}

/// Where the built component lands, relative to the project.
pub fn component_path(lang: Lang, name: &str) -> PathBuf {
    let file = format!("{}.wasm", name.replace('-', "_"));
    match lang {
        Lang::Rust => Path::new("target/wasm32-wasip2/release").join(file),
        Lang::Python | Lang::Js => PathBuf::from(file),
    }
}

/// A plugin name: lower-case letters, digits and `-`, starting with a letter.
fn check_name(name: &str) -> anyhow::Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    anyhow::ensure!(
        ok,
        "{name:?} is not a plugin name: use lower-case letters, digits and -, starting with a letter (at most 64)"
    );
    Ok(())
}

/// Make the project in `dir` (which must not exist or be empty); returns
/// the files written.
pub fn create(dir: &Path, name: &str, lang: Lang) -> anyhow::Result<Vec<PathBuf>> {
    check_name(name)?;
    if dir.exists()
        && dir
            .read_dir()
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        anyhow::bail!("{} exists and is not empty", dir.display());
    }
    let krate = name.replace('-', "_");
    let fill = |t: &str| t.replace("{{NAME}}", name).replace("{{CRATE}}", &krate);
    let readme = format!(
        "# {name}\n\nAn fnhost extractor plugin ({}), made by `fnhost plugin new`.\n\n\
         1. `./build.sh`{} builds `{}`.\n\
         2. `fnhost plugin check {} --role extractor --page test/page.html --url https://example.test/p/amber`\n\
         3. Put `plugin.toml` and the component in a folder of the server's `plugins.dir` (docs/PLUGINS.md).\n\n\
         `wit/fnhost-plugin.wit` is the contract (0.2.0); `test/page.html` a page the extractor reads.\n",
        match lang {
            Lang::Rust => "Rust",
            Lang::Python => "Python, componentize-py",
            Lang::Js => "JavaScript, componentize-js",
        },
        if lang == Lang::Js { " (after `npm install`; or `node build.mjs`)" } else { "" },
        component_path(lang, name).display(),
        component_path(lang, name).display(),
    );
    let mut all: Vec<(String, String, bool)> = vec![
        ("wit/fnhost-plugin.wit".into(), WIT.into(), false),
        (
            "plugin.toml".into(),
            fill(include_str!("manifest.toml.txt")),
            false,
        ),
        (
            "test/page.html".into(),
            include_str!("test_page.html.txt").into(),
            false,
        ),
        ("README.md".into(), readme, false),
    ];
    if lang == Lang::Js {
        all.push((
            "build.sh".into(),
            "#!/usr/bin/env bash\nset -euo pipefail\ncd \"$(dirname \"$0\")\"\n[ -d node_modules ] || npm install --no-audit --no-fund\nnode build.mjs\n".into(),
            true,
        ));
    }
    for (path, template, exec) in files(lang) {
        all.push((path.into(), fill(template), exec));
    }
    let mut written = Vec::new();
    for (path, text, exec) in all {
        let file = dir.join(&path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("failed to create {}", parent.display()))?;
        }
        std::fs::write(&file, text)
            .with_context(|| format!("failed to write {}", file.display()))?;
        if exec {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755))?;
        }
        written.push(file);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_files() {
        assert!(check_name("acme-lamps2").is_ok());
        for bad in ["", "Acme", "2acme", "acme_lamps", "acme lamps"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        let dir = tempfile::tempdir().unwrap();
        let made = create(&dir.path().join("p"), "acme-lamps", Lang::Rust).unwrap();
        assert!(made.iter().any(|f| f.ends_with("wit/fnhost-plugin.wit")));
        let cargo = std::fs::read_to_string(dir.path().join("p/Cargo.toml")).unwrap();
        assert!(cargo.contains("name = \"acme-lamps\""));
        let manifest = std::fs::read_to_string(dir.path().join("p/plugin.toml")).unwrap();
        assert!(manifest.contains("component = \"acme_lamps.wasm\""));
        assert!(
            create(&dir.path().join("p"), "acme-lamps", Lang::Rust).is_err(),
            "not over a project"
        );
    }
}
