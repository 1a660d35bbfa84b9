//! fnhost: the host that serves the catalog extraction API, keeps the ledger
//! and runs the sandboxed plugins.

pub mod plugins;
