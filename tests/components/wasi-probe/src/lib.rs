//! An extractor that tries the ambient capabilities a WASI program could
//! use (arguments, environment, files, the network) and returns one record
//! saying what it got. The host grants WASI empty: every probe must come
//! back empty or failed.

#[cfg(target_arch = "wasm32")]
mod component {
    wit_bindgen::generate!({ path: "../../../wit/0.1.0", world: "extractor" });

    use exports::fnhost::plugin::extraction::{ExtractionResult, Guest, Request};
    use fnhost::plugin::types::{Claim, Page};
    use std::net::{TcpStream, ToSocketAddrs};

    struct Component;

    fn outcome<T, E>(result: Result<T, E>) -> &'static str {
        if result.is_ok() {
            "ok"
        } else {
            "denied"
        }
    }

    impl Guest for Component {
        fn extract(_page: Page, _request: Request) -> Result<ExtractionResult, String> {
            let record = format!(
                "{{\"args\":{},\"env\":{},\"read_root\":\"{}\",\"read_file\":\"{}\",\"tcp\":\"{}\",\"dns\":\"{}\"}}",
                std::env::args().count(),
                std::env::vars().count(),
                outcome(std::fs::read_dir("/")),
                outcome(std::fs::read("/etc/passwd")),
                outcome(TcpStream::connect("127.0.0.1:80")),
                outcome("example.com:80".to_socket_addrs()),
            );
            Ok(ExtractionResult {
                records: vec![record],
                claim: Claim::Complete,
                links: vec![],
                notes: vec![],
            })
        }
    }

    export!(Component);
}
