//! Query strings parsed like bodies are: a query that does not parse (a
//! repeated parameter, a value of the wrong shape) is 400 invalid_param in
//! the error envelope, never the framework's plain-text rejection.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::ApiError;

/// The query string as `T`.
pub struct Query<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(q)) => Ok(Query(q)),
            Err(rejection) => {
                let message = rejection.body_text();
                Err(ApiError::invalid(param_of(&message), message))
            }
        }
    }
}

/// The parameter a deserializer's message names (in backticks), else "query".
fn param_of(message: &str) -> String {
    message
        .split('`')
        .nth(1)
        .filter(|p| !p.is_empty())
        .unwrap_or("query")
        .to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_the_parameter_in_the_message() {
        assert_eq!(
            super::param_of("Failed to deserialize query string: duplicate field `limit`"),
            "limit"
        );
        assert_eq!(super::param_of("something else"), "query");
    }
}
