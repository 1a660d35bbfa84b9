//! Print the visible price candidates of one page (for tuning the scores).
//! usage: prices FILE.html[.gz]
use std::io::Read;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: prices FILE.html[.gz]");
    let bytes = std::fs::read(&path).expect("read");
    let body = if path.ends_with(".gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_end(&mut out)
            .expect("gunzip");
        out
    } else {
        bytes
    };
    let body = String::from_utf8_lossy(&body);
    for (value, raw, score) in fnhost_extractor::debug_price_candidates(&body) {
        println!("{score:>4} {value:>10}  {raw}");
    }
}
