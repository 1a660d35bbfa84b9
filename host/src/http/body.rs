//! Request bodies: JSON objects read up to the 1 MB cap.
//!
//! SPEC §7.3.1: a body that does not parse, or is over the cap, is treated as
//! empty, so the response names the first missing required member. The body
//! is never read past the cap.

use axum::extract::{FromRequest, Request};
use http_body_util::BodyExt;
use serde_json::{Map, Value};

use super::error::ApiError;
use crate::money::Micros;

/// The request body cap.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// A request body as a JSON object (empty when absent, unparsable, too big
/// or not an object), and whether a body was sent that is JSON but no
/// object (`[]`, `"x"`): unparsable and oversized bodies are treated as
/// empty (§7.3.1), as if none had been sent.
#[derive(Debug, Default, Clone)]
pub struct Body(pub Map<String, Value>, pub bool);

impl<S: Send + Sync> FromRequest<S> for Body {
    type Rejection = ApiError;

    async fn from_request(req: Request, _state: &S) -> Result<Body, ApiError> {
        // Read at most the cap (so a client that sends a little more still
        // gets its answer), then stop: nothing past the cap is read.
        let limited = http_body_util::Limited::new(req.into_body(), MAX_BODY_BYTES);
        let bytes = match limited.collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(_) => return Ok(Body(Map::new(), false)),
        };
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(map)) => Ok(Body(map, false)),
            Ok(_) => Ok(Body(Map::new(), true)),
            Err(_) => Ok(Body(Map::new(), false)),
        }
    }
}

impl Body {
    /// Whether the body sent is JSON but no object.
    pub fn not_an_object(&self) -> bool {
        self.1
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name).filter(|v| !v.is_null())
    }

    /// Whether an update body asks for no change: no member, or only nulls
    /// (a null member is an absent one) besides those in `clearable`, where
    /// null clears the field.
    pub fn changes_nothing(&self, clearable: &[&str]) -> bool {
        self.0
            .iter()
            .all(|(name, v)| v.is_null() && !clearable.contains(&name.as_str()))
    }

    /// A required non-empty string.
    pub fn required_str(&self, name: &str) -> Result<String, ApiError> {
        match self.get(name) {
            None => Err(ApiError::missing(name)),
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            Some(Value::String(_)) => {
                Err(ApiError::invalid(name, format!("{name} must not be empty")))
            }
            Some(_) => Err(ApiError::invalid(name, format!("{name} must be a string"))),
        }
    }

    /// An optional string, at most `max` characters.
    pub fn optional_str(&self, name: &str, max: usize) -> Result<Option<String>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) if s.chars().count() <= max => Ok(Some(s.clone())),
            Some(Value::String(_)) => Err(ApiError::invalid(
                name,
                format!("{name} must be at most {max} characters"),
            )),
            Some(_) => Err(ApiError::invalid(name, format!("{name} must be a string"))),
        }
    }

    pub fn optional_bool(&self, name: &str) -> Result<Option<bool>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(ApiError::invalid(name, format!("{name} must be a boolean"))),
        }
    }

    /// An optional positive USD amount with at most six decimals.
    pub fn optional_usd(&self, name: &str) -> Result<Option<Micros>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(v @ Value::Number(_)) => match Micros::from_json(v) {
                Some(m) if m > Micros::ZERO => Ok(Some(m)),
                _ => Err(ApiError::invalid(
                    name,
                    format!("{name} must be a positive USD amount with at most 6 decimals"),
                )),
            },
            Some(_) => Err(ApiError::invalid(
                name,
                format!("{name} must be a number (USD)"),
            )),
        }
    }

    /// An optional array of strings.
    pub fn optional_strings(&self, name: &str) -> Result<Option<Vec<String>>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            // A bad item is named by its place, as the other checks of an
            // item name it.
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_str().map(str::to_string).ok_or_else(|| {
                        let item = format!("{name}[{i}]");
                        ApiError::invalid(&item, format!("{item} must be a string"))
                    })
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(_) => Err(ApiError::invalid(
                name,
                format!("{name} must be an array of strings"),
            )),
        }
    }

    /// Optional metadata: an object of string values (at most 50 keys).
    pub fn optional_metadata(&self, name: &str) -> Result<Option<Map<String, Value>>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Object(m)) if m.len() <= 50 && m.values().all(|v| v.is_string()) => {
                Ok(Some(m.clone()))
            }
            Some(_) => Err(ApiError::invalid(
                name,
                format!("{name} must be an object of at most 50 string values"),
            )),
        }
    }

    /// Refuse members this operation does not know, so typos are not silently ignored.
    pub fn only(&self, allowed: &[&str]) -> Result<(), ApiError> {
        match self.0.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(k) => Err(ApiError::invalid(
                k.clone(),
                format!("unknown member {k}; allowed: {}", allowed.join(", ")),
            )),
            None => Ok(()),
        }
    }
}
