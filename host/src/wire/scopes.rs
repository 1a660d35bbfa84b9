//! The scopes a key may hold: what each route requires (docs/API.md lists
//! what each allows).

/// One scope. Keys store and show scopes by their names (`as_str`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyScope {
    SessionsRead,
    SessionsWrite,
    AccountRead,
    KeysRead,
    KeysWrite,
    WebhooksRead,
    WebhooksWrite,
}

impl KeyScope {
    /// Every scope, in the order keys list them.
    pub const ALL: [KeyScope; 7] = [
        KeyScope::SessionsRead,
        KeyScope::SessionsWrite,
        KeyScope::AccountRead,
        KeyScope::KeysRead,
        KeyScope::KeysWrite,
        KeyScope::WebhooksRead,
        KeyScope::WebhooksWrite,
    ];

    /// The scopes that change something (what a read-only key lacks).
    pub const WRITES: [KeyScope; 3] = [
        KeyScope::KeysWrite,
        KeyScope::WebhooksWrite,
        KeyScope::SessionsWrite,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            KeyScope::SessionsRead => "sessions:read",
            KeyScope::SessionsWrite => "sessions:write",
            KeyScope::AccountRead => "account:read",
            KeyScope::KeysRead => "keys:read",
            KeyScope::KeysWrite => "keys:write",
            KeyScope::WebhooksRead => "webhooks:read",
            KeyScope::WebhooksWrite => "webhooks:write",
        }
    }

    /// The scope of this name, if it is one.
    pub fn parse(name: &str) -> Option<KeyScope> {
        KeyScope::ALL.into_iter().find(|s| s.as_str() == name)
    }
}
