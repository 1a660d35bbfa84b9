//! Reading the Accept header: whether a create answers with the run's event
//! stream (server-sent events) or with its JSON object.

use axum::http::HeaderMap;

/// Whether the request asks for `text/event-stream` at least as much as for
/// JSON. Media types are compared without regard to case and weighed by
/// their `q`; a range that names the stream with `q=0` refuses it. Only the
/// stream named outright counts (`*/*` and `text/*` are JSON's), and a tie
/// goes to the stream (`application/json, text/event-stream` streams).
pub fn wants_event_stream(headers: &HeaderMap) -> bool {
    let (mut stream, mut json) = (0.0f32, 0.0f32);
    for value in headers.get_all(axum::http::header::ACCEPT) {
        let Ok(value) = value.to_str() else { continue };
        for range in value.split(',') {
            let mut parts = range.split(';');
            let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let Some(q) = weight(parts) else { continue };
            match media.as_str() {
                "text/event-stream" => stream = stream.max(q),
                "application/json" | "application/*" | "*/*" => json = json.max(q),
                _ => {}
            }
        }
    }
    stream > 0.0 && stream >= json
}

/// The `q` of a media range's parameters: 1 when absent, `None` when it is
/// not a number from 0 to 1 (the range is then ignored).
fn weight<'a>(params: impl Iterator<Item = &'a str>) -> Option<f32> {
    for param in params {
        let Some((name, value)) = param.split_once('=') else {
            continue;
        };
        if name.trim().eq_ignore_ascii_case("q") {
            let q: f32 = value.trim().parse().ok()?;
            return (0.0..=1.0).contains(&q).then_some(q);
        }
    }
    Some(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asks(accept: &str) -> bool {
        let mut headers = HeaderMap::new();
        headers.insert("accept", accept.parse().unwrap());
        wants_event_stream(&headers)
    }

    #[test]
    fn the_stream_when_it_is_named_and_weighs_at_least_as_much_as_json() {
        assert!(asks("text/event-stream"));
        assert!(asks("TEXT/EVENT-STREAM"));
        assert!(asks("text/event-stream; charset=utf-8"));
        assert!(asks("application/json, text/event-stream"));
        assert!(asks("application/json;q=0.9, text/event-stream"));
        assert!(asks("text/event-stream;Q=1, */*;q=0.1"));
        assert!(!asks("text/event-stream;q=0.5, application/json"));
        assert!(!asks("text/event-stream;q=0"));
        assert!(!asks("text/event-stream;q=2"));
        assert!(!asks("*/*"));
        assert!(!asks("text/*"));
        assert!(!asks("application/json"));
        assert!(!wants_event_stream(&HeaderMap::new()));
    }
}
