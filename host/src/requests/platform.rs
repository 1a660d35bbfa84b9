//! Reading the platform request bodies: their JSON read into the wire
//! types, then checked once.

use crate::http::{ApiError, Body};

use crate::wire::*;

impl KeyRename {
    pub fn parse(body: &Body) -> Result<KeyRename, ApiError> {
        let name = body.required_str("name")?;
        if name.chars().count() > 100 {
            return Err(ApiError::invalid(
                "name",
                "name must be at most 100 characters",
            ));
        }
        body.only(&["name"])?;
        Ok(KeyRename { name })
    }
}
