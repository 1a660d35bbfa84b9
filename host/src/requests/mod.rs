//! Request bodies, read: each body's JSON object read into its wire type
//! (`wire::SessionCreate`, …) and checked in one step, its `parse` (SPEC
//! §7.3.1: a body that does not parse, or is over 1 MB, is empty, so the
//! first missing required member is named; an unknown member is refused).
//! The shapes and their limits are stated once, in `wire`; what needs the
//! server's state (the target wall, caps, the session's turn) is checked by
//! the handler after.

mod common;
mod discover;
mod extractions;
mod monitors;
mod params;
mod platform;
mod sessions;
mod webhooks;

pub use common::*;
pub use webhooks::*;
