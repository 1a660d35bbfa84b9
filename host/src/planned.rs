//! The planned surfaces: specified, not served yet. Each answers 501
//! not_implemented with `surface` on any method (SPEC §1), never 404.
//!
//! This is the one table of them: a preview switch opens a surface by
//! removing its rows here and routing the real handlers instead.

use axum::routing::{any, MethodRouter};
use utoipa_axum::router::OpenApiRouter;

use crate::http::ApiError;
use crate::state::AppState;

/// A planned route: its path under /v1, the methods that are planned (None:
/// every method), and the surface it belongs to.
pub struct Planned {
    pub path: &'static str,
    pub methods: Option<&'static [&'static str]>,
    pub surface: &'static str,
}

pub const PLANNED: &[Planned] = &[
    Planned {
        path: "/extractions",
        methods: None,
        surface: "extractions",
    },
    Planned {
        path: "/extractions/{id}",
        methods: None,
        surface: "extractions",
    },
    Planned {
        path: "/extractions/{id}/result",
        methods: None,
        surface: "extractions",
    },
    Planned {
        path: "/extractions/{id}/events",
        methods: None,
        surface: "extractions",
    },
    Planned {
        path: "/extractions/{id}/refresh",
        methods: None,
        surface: "extraction refresh",
    },
    Planned {
        path: "/discover",
        methods: None,
        surface: "discover",
    },
    Planned {
        path: "/monitors",
        methods: None,
        surface: "monitors",
    },
    Planned {
        path: "/monitors/{id}",
        methods: None,
        surface: "monitors",
    },
    Planned {
        path: "/receipts/{id}",
        methods: None,
        surface: "receipts lookup",
    },
    Planned {
        path: "/sessions/{id}",
        methods: Some(&["DELETE"]),
        surface: "session redaction",
    },
    Planned {
        path: "/sessions/{id}/refresh",
        methods: None,
        surface: "session refresh",
    },
    Planned {
        path: "/webhooks/{id}/test",
        methods: None,
        surface: "webhook test",
    },
    Planned {
        path: "/webhooks/{id}/attempts/{msg}/redeliver",
        methods: None,
        surface: "webhook redeliver",
    },
    Planned {
        path: "/mcp",
        methods: None,
        surface: "tool-protocol server",
    },
    Planned {
        path: "/mcp/{*rest}",
        methods: None,
        surface: "tool-protocol server",
    },
];

/// A handler answering 501 for `surface`.
pub fn handler(surface: &'static str) -> MethodRouter<AppState> {
    any(move || async move { ApiError::NotImplemented { surface } })
}

/// Routes every planned path whose every method is planned. Paths where only
/// some methods are planned are merged by the live routes (see `app`). The
/// OpenAPI document describes them from this same table.
pub fn routes() -> OpenApiRouter<AppState> {
    PLANNED
        .iter()
        .filter(|p| p.methods.is_none())
        .fold(OpenApiRouter::new(), |r, p| {
            r.route(p.path, handler(p.surface))
        })
}

/// A handler answering 501 for `surface` on one method only: the other
/// methods of the path are live or 404.
pub fn method_handler(method: &str, surface: &'static str) -> MethodRouter<AppState> {
    let filter = axum::routing::MethodFilter::try_from(
        axum::http::Method::from_bytes(method.as_bytes()).expect("a method name"),
    )
    .expect("a routable method");
    axum::routing::on(filter, move || async move {
        ApiError::NotImplemented { surface }
    })
}

/// The surface of a method that is planned on a path that is otherwise live.
pub fn partial(path: &str, method: &str) -> Option<&'static str> {
    PLANNED
        .iter()
        .find(|p| p.path == path && p.methods.is_some_and(|m| m.contains(&method)))
        .map(|p| p.surface)
}
