//! fnhost: the host that serves the catalog extraction API, keeps the ledger
//! and runs the sandboxed plugins.

pub mod accounts;
pub mod admin;
pub mod app;
pub mod auth;
pub mod config;
pub mod dashboard;
pub mod discover;
pub mod extract_cmd;
pub mod extractions;
pub mod fetch;
pub mod http;
pub mod idempotency;
pub mod ids;
pub mod keys;
pub mod ledger;
pub mod limits;
pub mod mcp;
pub mod money;
pub mod monitors;
pub mod nodes;
pub mod openapi;
pub mod planned;
pub mod platform;
pub mod plugins;
pub mod receipts;
pub mod record;
pub mod server;
pub mod sessions;
pub mod state;
pub mod store;
pub mod supervise;
pub mod targets;
pub mod time;
pub mod webhooks;
pub mod wire;
