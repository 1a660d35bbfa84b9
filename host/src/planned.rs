//! The planned surfaces: specified, not served yet. Each answers 501
//! not_implemented with `surface` on any method (SPEC §1), never 404.
//!
//! This is the one table of them. An operator's preview switch
//! (`preview = ["extractions", ...]` in the configuration) opens a surface
//! ahead of its release: its rows here stop answering 501 and its real
//! handlers are routed instead (see `app`); the OpenAPI document served then
//! describes it.

use axum::routing::{any, MethodRouter};
use utoipa_axum::router::OpenApiRouter;

use crate::http::ApiError;
use crate::state::AppState;

/// A planned route: its path under /v1, the methods that are planned (None:
/// every method), the surface it belongs to, and the preview switch that
/// opens it.
pub struct Planned {
    pub path: &'static str,
    pub methods: Option<&'static [&'static str]>,
    pub surface: &'static str,
    pub switch: &'static str,
}

pub use crate::config::PREVIEW_SWITCHES;

pub const PLANNED: &[Planned] = &[
    Planned {
        path: "/extractions",
        methods: None,
        surface: "extractions",
        switch: "extractions",
    },
    Planned {
        path: "/extractions/{id}",
        methods: None,
        surface: "extractions",
        switch: "extractions",
    },
    Planned {
        path: "/extractions/{id}/result",
        methods: None,
        surface: "extractions",
        switch: "extractions",
    },
    Planned {
        path: "/extractions/{id}/events",
        methods: None,
        surface: "extractions",
        switch: "extractions",
    },
    Planned {
        path: "/extractions/{id}",
        methods: Some(&["DELETE"]),
        surface: "extraction redaction",
        switch: "redaction",
    },
    Planned {
        path: "/extractions/{id}/refresh",
        methods: None,
        surface: "extraction refresh",
        switch: "refresh",
    },
    Planned {
        path: "/discover",
        methods: None,
        surface: "discover",
        switch: "discover",
    },
    Planned {
        path: "/monitors",
        methods: None,
        surface: "monitors",
        switch: "monitors",
    },
    Planned {
        path: "/monitors/{id}",
        methods: None,
        surface: "monitors",
        switch: "monitors",
    },
    Planned {
        path: "/monitors/{id}/runs",
        methods: None,
        surface: "monitors",
        switch: "monitors",
    },
    Planned {
        path: "/monitors/{id}/runs/{run_id}/changes",
        methods: None,
        surface: "monitors",
        switch: "monitors",
    },
    Planned {
        path: "/monitors/{id}/feed",
        methods: None,
        surface: "monitors",
        switch: "monitors",
    },
    Planned {
        path: "/monitors/{id}/feed/revoke",
        methods: None,
        surface: "monitors",
        switch: "monitors",
    },
    Planned {
        path: "/receipts/{id}",
        methods: None,
        surface: "receipts lookup",
        switch: "receipts",
    },
    Planned {
        path: "/sessions/{id}",
        methods: Some(&["DELETE"]),
        surface: "session redaction",
        switch: "redaction",
    },
    Planned {
        path: "/sessions/{id}/refresh",
        methods: None,
        surface: "session refresh",
        switch: "refresh",
    },
    Planned {
        path: "/webhooks/{id}/test",
        methods: None,
        surface: "webhook test",
        switch: "webhook_test",
    },
    Planned {
        path: "/webhooks/{id}/attempts/{msg}/redeliver",
        methods: None,
        surface: "webhook redeliver",
        switch: "webhook_test",
    },
    Planned {
        path: "/mcp",
        methods: None,
        surface: "tool-protocol server",
        switch: "mcp",
    },
    // `/mcp/` itself, which the wildcard below does not match.
    Planned {
        path: "/mcp/",
        methods: None,
        surface: "tool-protocol server",
        switch: "mcp",
    },
    Planned {
        path: "/mcp/{*rest}",
        methods: None,
        surface: "tool-protocol server",
        switch: "mcp",
    },
];

/// A handler answering 501 for `surface`.
pub fn handler(surface: &'static str) -> MethodRouter<AppState> {
    any(move || async move { ApiError::NotImplemented { surface } })
}

/// Routes every planned path whose every method is planned, except those
/// of the surfaces `open` names. Paths where only some methods are planned
/// are merged by the live routes (see `app`). The OpenAPI document
/// describes them from this same table.
pub fn routes(open: &[String]) -> OpenApiRouter<AppState> {
    PLANNED
        .iter()
        .filter(|p| p.methods.is_none() && !is_open(p, open))
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

/// Is a planned route's surface opened by the preview switch?
pub fn is_open(p: &Planned, open: &[String]) -> bool {
    open.iter().any(|o| o == p.switch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_planned_surface_can_be_opened_and_every_switch_opens_one() {
        for p in PLANNED {
            assert!(
                PREVIEW_SWITCHES.contains(&p.switch),
                "{} cannot be opened",
                p.path
            );
        }
        for switch in PREVIEW_SWITCHES {
            assert!(
                PLANNED.iter().any(|p| p.switch == *switch),
                "{switch} opens nothing"
            );
        }
    }
}
