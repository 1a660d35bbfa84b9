//! A page's bytes as text, in the character set the page is written in:
//! the `Content-Type` header's `charset`, else a byte-order mark, else the
//! page's own `<meta charset>` (or `http-equiv` Content-Type) in its first
//! 4 KiB (unless it says UTF-8 of bytes that are not), else UTF-8 when the
//! bytes are UTF-8, else the character set a browser would guess from the
//! bytes and the host's country domain (chardetng, Firefox's detector). Bytes that are not valid in it are
//! replaced, never refused: a shop of the 2010s in windows-1251 or
//! ISO-8859-15 reads as its visitors saw it, saved pages without their
//! headers too.

use encoding_rs::Encoding;

/// How far into a page its `<meta charset>` is looked for.
const META_WINDOW: usize = 4096;

pub fn decode(bytes: &[u8], content_type: Option<&str>) -> String {
    decode_at(bytes.to_vec(), content_type, None)
}

/// `decode`, with the page's host to weigh the guess for undeclared bytes
/// that are not UTF-8 (a `.fr` page is more likely windows-1252).
pub fn decode_at(bytes: Vec<u8>, content_type: Option<&str>, host: Option<&str>) -> String {
    let declared = content_type
        .and_then(charset_of)
        .and_then(|c| Encoding::for_label(c.as_bytes()));
    let encoding = declared
        .or_else(|| Encoding::for_bom(&bytes).map(|(e, _)| e))
        .or_else(|| {
            // A page that calls itself UTF-8 and is not (a server that
            // converted it and said so in its header only) is guessed.
            meta_charset(&bytes[..bytes.len().min(META_WINDOW)])
                .filter(|e| *e != encoding_rs::UTF_8 || std::str::from_utf8(&bytes).is_ok())
                // A page whose head names a legacy character set while its
                // bytes are UTF-8, letters beyond ASCII and all (a page
                // converted, or saved, without its meta tag changed): text
                // in windows-1251 or ISO-8859-x is practically never valid
                // UTF-8 beyond its ASCII, so the bytes decide.
                .map(|e| {
                    if e != encoding_rs::UTF_8
                        && !bytes.is_ascii()
                        && std::str::from_utf8(&bytes).is_ok()
                    {
                        encoding_rs::UTF_8
                    } else {
                        e
                    }
                })
        })
        .unwrap_or_else(|| guess(&bytes, host));
    // A page that says UTF-8 (or nothing) and is valid UTF-8 becomes the
    // text without a copy.
    if encoding == encoding_rs::UTF_8 {
        return String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    }
    encoding.decode(&bytes).0.into_owned()
}

/// The character set of bytes that declare none: UTF-8 when they are
/// UTF-8, else what a browser would guess.
fn guess(bytes: &[u8], host: Option<&str>) -> &'static Encoding {
    if std::str::from_utf8(bytes).is_ok() {
        return encoding_rs::UTF_8;
    }
    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(bytes, true);
    let tld = host.and_then(|h| h.rsplit('.').next()).map(str::as_bytes);
    detector.guess(tld, true)
}

/// The `charset` parameter of a Content-Type value.
fn charset_of(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches(['"', '\'']).to_string())
    })
}

/// The character set a page's head declares: `<meta charset="...">` or
/// `<meta http-equiv="Content-Type" content="text/html; charset=...">`.
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let text = String::from_utf8_lossy(head).to_ascii_lowercase();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("<meta") {
        rest = &rest[at + 5..];
        let tag = &rest[..rest.find('>').unwrap_or(rest.len())];
        if let Some(i) = tag.find("charset") {
            let value = tag[i + 7..].trim_start().strip_prefix('=')?.trim_start();
            let value = value.trim_start_matches(['"', '\'']);
            let end = value
                .find(|c: char| c == '"' || c == '\'' || c == ';' || c == '/' || c.is_whitespace())
                .unwrap_or(value.len());
            return Encoding::for_label(value[..end].as_bytes());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{decode, decode_at};

    #[test]
    fn pages_read_in_the_character_set_they_declare() {
        // "Мотоцикл" in windows-1251.
        let cp1251 = [0xCC, 0xEE, 0xF2, 0xEE, 0xF6, 0xE8, 0xEA, 0xEB];
        let page = |head: &str| {
            let mut b = format!("<html><head>{head}</head><body>").into_bytes();
            b.extend_from_slice(&cp1251);
            b.extend_from_slice(b"</body></html>");
            b
        };
        let meta =
            page(r#"<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">"#);
        assert!(decode(&meta, None).contains("Мотоцикл"));
        let short = page(r#"<meta charset="windows-1251">"#);
        assert!(decode(&short, Some("text/html")).contains("Мотоцикл"));
        // The header wins over the page.
        let header = page(r#"<meta charset="utf-8">"#);
        assert!(decode(&header, Some("text/html; charset=windows-1251")).contains("Мотоцикл"));
        // "Café" in ISO-8859-15, and plain UTF-8 unchanged.
        let latin = b"<meta charset='iso-8859-15'><p>Caf\xE9</p>";
        assert!(decode(latin, None).contains("Café"));
        assert_eq!(decode("déjà vu".as_bytes(), None), "déjà vu");
        // Nothing declared and not UTF-8: read as a browser guesses.
        let undeclared = page("");
        assert!(decode_at(undeclared.to_vec(), None, Some("moto.example.ua")).contains("Мотоцикл"));
        // A page whose head says UTF-8 while its bytes are not.
        let mislabelled = page(r#"<meta charset="utf-8">"#);
        assert!(
            decode_at(mislabelled.to_vec(), None, Some("moto.example.ua")).contains("Мотоцикл")
        );
        // A head that says windows-1251 of bytes that are UTF-8 (a page
        // converted without its meta tag): read as UTF-8.
        let converted = format!(
            r#"<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1251"></head><body>{}</body></html>"#,
            "Молочные продукты, яйцо"
        );
        assert!(decode(converted.as_bytes(), None).contains("Молочные продукты"));
        // A header is not second-guessed.
        assert!(!decode(
            converted.as_bytes(),
            Some("text/html; charset=windows-1251")
        )
        .contains("Молочные"));
    }

    #[test]
    fn undeclared_bytes_that_are_not_utf8_are_read_as_a_browser_guesses() {
        // "Référence : maison à vendre", ISO-8859-1, no charset anywhere.
        let latin1: Vec<u8> = "<html><body><p>R\u{e9}f\u{e9}rence : maison \u{e0} vendre, tr\u{e8}s \u{e9}l\u{e9}gante</p></body></html>"
            .chars()
            .map(|c| c as u32 as u8)
            .collect();
        let text = decode_at(latin1.to_vec(), Some("text/html"), Some("www.example.fr"));
        assert!(text.contains("Référence"), "{text}");
        // Valid UTF-8 stays as it is.
        let utf8 = "<p>Référence</p>".as_bytes();
        assert_eq!(
            decode_at(utf8.to_vec(), None, Some("example.fr")),
            "<p>Référence</p>"
        );
    }
}
