//! Reading the params request bodies: their JSON read into the wire
//! types, then checked once.

use crate::wire::*;

impl ResultParams {
    /// How long to wait, and whether the answer is ndjson.
    pub fn parse(&self) -> Result<(std::time::Duration, bool), crate::http::ApiError> {
        use crate::http::ApiError;
        let wait = match &self.wait {
            None => 0,
            Some(w) => match w.parse::<u64>() {
                Ok(n) if n <= MAX_WAIT_S => n,
                _ => {
                    return Err(ApiError::invalid(
                        "wait",
                        format!("wait must be an integer from 0 to {MAX_WAIT_S} (seconds)"),
                    ))
                }
            },
        };
        let ndjson = match self.format.as_deref() {
            None | Some("json") => false,
            Some("ndjson") => true,
            Some(_) => return Err(ApiError::invalid("format", "format must be json or ndjson")),
        };
        Ok((std::time::Duration::from_secs(wait), ndjson))
    }
}
