//! The WebAssembly component face of the differ. Only compiled for wasm32.

wit_bindgen::generate!({ path: "../../wit/0.1.0", world: "differ" });

use exports::fnhost::plugin::diffing::{ChangedRow, Guest, PriceMove, RowDiff};

struct Component;

impl Guest for Component {
    fn diff(before: Vec<String>, after: Vec<String>) -> Result<RowDiff, String> {
        let d = crate::diff(&before, &after)?;
        Ok(RowDiff {
            added: d.added,
            removed: d.removed,
            changed: d
                .changed
                .into_iter()
                .map(|c| ChangedRow {
                    identity: c.identity,
                    fields: c.fields,
                })
                .collect(),
            price_moves: d
                .price_moves
                .into_iter()
                .map(|m| PriceMove {
                    identity: m.identity,
                    before: m.before,
                    after: m.after,
                    currency: m.currency,
                })
                .collect(),
        })
    }
}

export!(Component);
