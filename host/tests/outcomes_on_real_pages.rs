//! Page outcomes on real saved pages: every page of the repository's
//! listing sets is a page to read (`ok`), never a block, a sign-in, a
//! "not found" or a script shell, whatever its markup carries (CAPTCHA
//! widgets, "404" in a product name, bot-protection scripts).

use std::io::Read;
use std::path::Path;

use fnhost::fetch::outcome::of_response;
use fnhost::fetch::Fetched;

#[test]
fn real_shop_pages_are_read() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets");
    // The sets kept beside the repository, when they are there.
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/datasets");
    let mut sets: Vec<_> = std::fs::read_dir(&root).unwrap().flatten().collect();
    sets.extend(std::fs::read_dir(&beside).into_iter().flatten().flatten());
    let mut pages = 0;
    for set in sets {
        let urls: std::collections::BTreeMap<String, String> =
            match std::fs::read(set.path().join("urls.json")) {
                Ok(b) => serde_json::from_slice(&b).unwrap(),
                Err(_) => continue,
            };
        // A set whose pages sit beside the repository keeps only its
        // annotation here.
        let Ok(files) = std::fs::read_dir(set.path().join("pages")) else {
            continue;
        };
        for entry in files.flatten() {
            let path = entry.path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let id = name
                .trim_end_matches(".gz")
                .trim_end_matches(".html")
                .to_string();
            let bytes = std::fs::read(&path).unwrap();
            let body = if name.ends_with(".gz") {
                let mut s = Vec::new();
                flate2::read::GzDecoder::new(&bytes[..])
                    .read_to_end(&mut s)
                    .unwrap();
                String::from_utf8_lossy(&s).into_owned()
            } else {
                String::from_utf8_lossy(&bytes).into_owned()
            };
            let url = urls[&id].clone();
            let page = Fetched {
                url: url.clone(),
                status: 200,
                content_type: Some("text/html; charset=utf-8".into()),
                headers: Vec::new(),
                bytes: body.len(),
                sha256: String::new(),
                body,
                fetched_at: String::new(),
            };
            assert_eq!(of_response(&url, &page), None, "{}", path.display());
            pages += 1;
        }
    }
    assert!(pages >= 37, "the listing sets' pages were read ({pages})");
}
