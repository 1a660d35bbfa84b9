//! The replay source: serves recorded pages for fn_test_ keys.

#[cfg(target_arch = "wasm32")]
mod component;

/// A recorded page.
#[derive(Debug, Clone)]
pub struct RecordedPage {
    pub url: String,
    pub status: u16,
    pub content_type: Option<String>,
    pub body: String,
}

/// The recorded page for a URL.
pub fn fetch(_url: &str) -> Option<RecordedPage> {
    None
}
