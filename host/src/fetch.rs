//! Page fetches: the host's own capability (plugins have none). Every fetch
//! passes the target wall (`targets`), with a size and a time limit.

use std::time::Duration;

use futures::StreamExt;
use sha2::{Digest, Sha256};
use url::Url;

use crate::targets::{Policy, Purpose};

/// A fetched page.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The final URL after redirects.
    pub url: String,
    pub status: u16,
    pub content_type: Option<String>,
    pub body: String,
    /// Bytes read from the wire (at most the size limit).
    pub bytes: usize,
    /// Hex SHA-256 of the bytes read.
    pub sha256: String,
    pub fetched_at: String,
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error(transparent)]
    Refused(#[from] crate::targets::Refused),
    #[error("fetch failed: {0}")]
    Failed(String),
    #[error("the page is larger than {0} bytes")]
    TooLarge(usize),
}

/// Fetches pages for live runs.
#[derive(Clone)]
pub struct Fetcher {
    policy: Policy,
    client: reqwest::Client,
    max_bytes: usize,
    /// When set, every page fetched is also kept here (`fnhost record`).
    recorder: Option<std::sync::Arc<std::sync::Mutex<Vec<Fetched>>>>,
}

impl Fetcher {
    pub fn new(policy: Policy, timeout: Duration, max_bytes: usize, user_agent: &str) -> Fetcher {
        let client = policy.client(Purpose::Page, timeout, &[], user_agent);
        Fetcher {
            policy,
            client,
            max_bytes,
            recorder: None,
        }
    }

    /// Keep a copy of every page fetched.
    pub fn recording(mut self, into: std::sync::Arc<std::sync::Mutex<Vec<Fetched>>>) -> Fetcher {
        self.recorder = Some(into);
        self
    }

    /// Fetch one page. Refused targets never see a connection attempt.
    pub async fn fetch(&self, url: &str) -> Result<Fetched, FetchError> {
        let parsed =
            Url::parse(url).map_err(|e| FetchError::Failed(format!("bad URL {url}: {e}")))?;
        self.policy.check_url(&parsed, Purpose::Page)?;
        let response = self
            .client
            .get(parsed)
            .send()
            .await
            .map_err(|e| FetchError::Failed(describe(&e)))?;
        let final_url = response.url().to_string();
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if response
            .content_length()
            .is_some_and(|n| n as usize > self.max_bytes)
        {
            return Err(FetchError::TooLarge(self.max_bytes));
        }
        let mut body = Vec::new();
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| FetchError::Failed(describe(&e)))?;
            if body.len() + chunk.len() > self.max_bytes {
                return Err(FetchError::TooLarge(self.max_bytes));
            }
            body.extend_from_slice(&chunk);
        }
        let fetched = Fetched {
            url: final_url,
            status,
            content_type,
            bytes: body.len(),
            sha256: hex::encode(Sha256::digest(&body)),
            body: String::from_utf8_lossy(&body).into_owned(),
            fetched_at: crate::time::now(),
        };
        if let Some(recorder) = &self.recorder {
            recorder
                .lock()
                .expect("recorder lock")
                .push(fetched.clone());
        }
        Ok(fetched)
    }
}

/// reqwest's error with its causes (where a refusal by the resolver shows).
fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// A page served by a recording, in the same shape.
pub fn from_replay(page: crate::plugins::Page) -> Fetched {
    Fetched {
        bytes: page.body.len(),
        sha256: hex::encode(Sha256::digest(page.body.as_bytes())),
        url: page.url,
        status: page.status,
        content_type: page.content_type,
        body: page.body,
        fetched_at: crate::time::now(),
    }
}
