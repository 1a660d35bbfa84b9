//! What a monitor run found changed, item by item, and what a monitor is
//! told about and where (preview: monitors).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One product's change between two runs of a monitor, by the row
/// identity (the differ's rule).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MonitorChange {
    /// added, removed, price_down, price_up, back_in_stock, out_of_stock,
    /// changed (open enum).
    pub kind: String,
    /// The row identity (`url:…`, `sku:…`, …).
    pub identity: String,
    pub name: Option<String>,
    pub url: Option<String>,
    /// The price before and after (decimal strings), in `currency`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_price: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_price: Option<String>,
    /// new − old, a decimal string (negative for a drop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
    /// The change in percent of the old price, rounded to 0.01.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_percent: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    /// `changed`: the fields that differ.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<String>,
    /// Whether the monitor's `notify_on` selects it.
    pub notify: bool,
}

/// What a monitor tells about (`notify_on`). A price move notifies when it
/// reaches every threshold that is set; an unset threshold is no bar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct NotifyOn {
    pub price_down: bool,
    /// The least drop worth telling, in percent of the old price.
    pub price_down_percent: Option<f64>,
    /// The least drop worth telling, in the record's currency.
    pub price_down_amount: Option<f64>,
    pub price_up: bool,
    pub price_up_percent: Option<f64>,
    pub price_up_amount: Option<f64>,
    pub back_in_stock: bool,
    pub out_of_stock: bool,
    pub added: bool,
    pub removed: bool,
    /// Other fields (name, availability text, …).
    pub changed: bool,
}

impl Default for NotifyOn {
    /// What a shopper would pick: drops of 1 % or more, rises of 5 % or
    /// more, stock changes, new and removed products; not every other edit.
    fn default() -> NotifyOn {
        NotifyOn {
            price_down: true,
            price_down_percent: Some(1.0),
            price_down_amount: None,
            price_up: true,
            price_up_percent: Some(5.0),
            price_up_amount: None,
            back_in_stock: true,
            out_of_stock: true,
            added: true,
            removed: true,
            changed: false,
        }
    }
}

/// A chat channel a monitor posts its notifications to, in that service's
/// own message format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MonitorChannel {
    /// slack, discord or teams.
    pub kind: String,
    /// The service's incoming-webhook URL (https, public).
    #[schema(format = "uri", max_length = 2048)]
    pub url: String,
}

/// The changes of one monitor run.
#[derive(Debug, Serialize, ToSchema)]
pub struct MonitorChangeList {
    /// `list`
    #[schema(value_type = String)]
    pub object: &'static str,
    pub run_id: String,
    /// Counts by kind.
    pub counts: std::collections::BTreeMap<String, u64>,
    pub data: Vec<MonitorChange>,
}
