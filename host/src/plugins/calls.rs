//! One call per role: instantiate afresh, call, then bound, check and
//! convert what came back. Nothing a plugin returns reaches the rest of the
//! host before it passes through here.

use serde_json::Value;
use wasmtime::{Store, Trap};

use super::bindings::{differ, extractor, extractor_v2, planner, source};
use super::sandbox::Sandbox;
use super::types::{Estimate, ExtractRequest, Extraction, Page, PageKind, PriceMove, RowDiff};
use super::{Limits, Loaded, PluginError, Prepared, MAX_LINKS, MAX_RECORDS};

/// The outer error is wasmtime's (a trap, an interrupt), classified by the
/// caller; the inner one is the plugin's own or a failed check.
pub(crate) type CallResult<R> = wasmtime::Result<Result<R, PluginError>>;

/// Bytes counted for each list entry besides its contents: a guest string
/// is a pointer and a length.
const ENTRY_BYTES: usize = 8;

/// How much of a plugin's error message is kept.
const MAX_MESSAGE_CHARS: usize = 2000;

pub(crate) fn estimate(
    store: &mut Store<Sandbox>,
    plugin: &Loaded,
    limits: &Limits,
    query: &str,
) -> CallResult<Estimate> {
    let Prepared::Planner(pre) = &plugin.prepared else {
        return Ok(Err(PluginError::Unavailable));
    };
    let instance = pre.instantiate(&mut *store)?;
    let out = instance
        .fnhost_plugin_planning()
        .call_estimate(&mut *store, query)?;
    Ok(plugin_result(out, limits).and_then(|e| check_estimate(e, limits)))
}

pub(crate) fn extract(
    store: &mut Store<Sandbox>,
    plugin: &Loaded,
    limits: &Limits,
    page: Page,
    request: &ExtractRequest,
) -> CallResult<Extraction> {
    let page_url = page.url.clone();
    let hints = match &request.hints {
        Value::Null => "{}".to_owned(),
        hints => hints.to_string(),
    };
    let plugin_id = plugin.info.id();
    match &plugin.prepared {
        Prepared::ExtractorV2(pre) => {
            use extractor_v2::exports::fnhost::plugin::extraction::Request;
            use extractor_v2::fnhost::plugin::types::{
                Claim, Page as WitPage, PageKind as WitKind,
            };
            // The page is moved, not copied: bodies run to megabytes.
            let wit_page = WitPage {
                url: page.url,
                status: page.status,
                content_type: page.content_type,
                body: page.body,
            };
            let wit_request = Request {
                entity: request.entity.clone(),
                guidance: request.guidance.clone(),
                hints,
            };
            let instance = pre.instantiate(&mut *store)?;
            let out = instance.fnhost_plugin_extraction().call_extract(
                &mut *store,
                &wit_page,
                &wit_request,
            )?;
            Ok(plugin_result(out, limits).and_then(|out| {
                let kind = match out.kind {
                    WitKind::Product => PageKind::Product,
                    WitKind::Listing => PageKind::Listing,
                    WitKind::Other => PageKind::Other,
                };
                let raw = RawExtraction {
                    records: out.records,
                    complete: matches!(out.claim, Claim::Complete),
                    next_pages: out.next_pages,
                    links: out.links,
                    notes: out.notes,
                };
                check_extraction(raw, Some(kind), limits, &page_url, plugin_id)
            }))
        }
        Prepared::Extractor(pre) => {
            use extractor::exports::fnhost::plugin::extraction::Request;
            use extractor::fnhost::plugin::types::{Claim, Page as WitPage};
            let wit_page = WitPage {
                url: page.url,
                status: page.status,
                content_type: page.content_type,
                body: page.body,
            };
            let wit_request = Request {
                entity: request.entity.clone(),
                guidance: request.guidance.clone(),
                hints,
            };
            let instance = pre.instantiate(&mut *store)?;
            let out = instance.fnhost_plugin_extraction().call_extract(
                &mut *store,
                &wit_page,
                &wit_request,
            )?;
            Ok(plugin_result(out, limits).and_then(|out| {
                let raw = RawExtraction {
                    records: out.records,
                    complete: matches!(out.claim, Claim::Complete),
                    next_pages: Vec::new(),
                    links: out.links,
                    notes: out.notes,
                };
                check_extraction(raw, None, limits, &page_url, plugin_id)
            }))
        }
        _ => Ok(Err(PluginError::Unavailable)),
    }
}

/// An extraction as either contract version returns it, before checking.
struct RawExtraction {
    records: Vec<String>,
    complete: bool,
    next_pages: Vec<String>,
    links: Vec<String>,
    notes: Vec<String>,
}

pub(crate) fn diff(
    store: &mut Store<Sandbox>,
    plugin: &Loaded,
    limits: &Limits,
    before: &[String],
    after: &[String],
) -> CallResult<RowDiff> {
    let Prepared::Differ(pre) = &plugin.prepared else {
        return Ok(Err(PluginError::Unavailable));
    };
    let instance = pre.instantiate(&mut *store)?;
    let out = instance
        .fnhost_plugin_diffing()
        .call_diff(&mut *store, before, after)?;
    Ok(plugin_result(out, limits).and_then(|d| check_diff(d, limits)))
}

pub(crate) fn replay(
    store: &mut Store<Sandbox>,
    plugin: &Loaded,
    limits: &Limits,
    url: &str,
) -> CallResult<Option<Page>> {
    let Prepared::Source(pre) = &plugin.prepared else {
        return Ok(Err(PluginError::Unavailable));
    };
    let instance = pre.instantiate(&mut *store)?;
    let out = instance
        .fnhost_plugin_source()
        .call_fetch(&mut *store, url)?;
    Ok(check_page(out, limits))
}

/// Classifies a failed call. `exhausted` says whether a memory could not
/// grow during the call: the trap that follows (usually an allocator's
/// abort) is then reported as running out of memory.
pub(crate) fn classify(error: &wasmtime::Error, exhausted: bool) -> PluginError {
    match error.downcast_ref::<Trap>() {
        Some(Trap::Interrupt) => PluginError::Timeout,
        Some(Trap::StackOverflow) => {
            PluginError::Trap("wasm stack overflow (unbounded recursion?)".into())
        }
        _ if exhausted => PluginError::OutOfMemory,
        Some(trap) => PluginError::Trap(trap.to_string()),
        None => PluginError::Trap(truncate(format!("{error:#}"))),
    }
}

/// Bounds and wraps the plugin's own `result<_, string>` error.
fn plugin_result<T>(out: Result<T, String>, limits: &Limits) -> Result<T, PluginError> {
    out.map_err(|message| {
        if message.len() > limits.output {
            PluginError::OutputTooLarge
        } else {
            PluginError::Plugin(truncate(message))
        }
    })
}

fn check_estimate(
    out: planner::exports::fnhost::plugin::planning::Plan,
    limits: &Limits,
) -> Result<Estimate, PluginError> {
    let mut budget = Budget::new(limits);
    budget.take(out.parsed.len())?;
    budget.take(out.reason.len())?;
    budget.strings(&out.missing)?;
    let parsed = match serde_json::from_str::<Value>(&out.parsed) {
        Ok(parsed @ Value::Object(_)) => parsed,
        Ok(_) => return Err(invalid("`parsed` is not a JSON object")),
        Err(e) => return Err(invalid(format!("`parsed` is not JSON: {e}"))),
    };
    super::schemas::check(super::schemas::plan(), &parsed)
        .map_err(|e| invalid(format!("`parsed` does not match plan.schema.json at {e}")))?;
    Ok(Estimate {
        would_run: out.would_run,
        parsed,
        missing: out.missing,
        reason: out.reason,
    })
}

fn check_extraction(
    out: RawExtraction,
    kind: Option<PageKind>,
    limits: &Limits,
    page_url: &str,
    plugin: String,
) -> Result<Extraction, PluginError> {
    if out.records.len() > MAX_RECORDS
        || out.links.len() > MAX_LINKS
        || out.next_pages.len() > MAX_LINKS
    {
        return Err(PluginError::OutputTooLarge);
    }
    let mut budget = Budget::new(limits);
    budget.strings(&out.records)?;
    budget.strings(&out.links)?;
    budget.strings(&out.next_pages)?;
    budget.strings(&out.notes)?;
    let records = out
        .records
        .iter()
        .enumerate()
        .map(|(i, record)| {
            let value = serde_json::from_str::<Value>(record)
                .map_err(|e| invalid(format!("record {i} is not JSON: {e}")))?;
            super::schemas::check(super::schemas::record(), &value).map_err(|e| {
                invalid(format!(
                    "record {i} does not match record.schema.json at {e}"
                ))
            })?;
            match value {
                Value::Object(map) => Ok(map),
                _ => Err(invalid(format!("record {i} is not a JSON object"))),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Extraction {
        kind: kind.unwrap_or_else(|| PageKind::from_record_count(records.len())),
        next_pages: absolute_links(page_url, out.next_pages),
        records,
        complete: out.complete,
        links: absolute_links(page_url, out.links),
        notes: out.notes,
        plugin,
    })
}

/// Resolves links against the page URL, keeps http(s) only, drops repeats.
fn absolute_links(page_url: &str, links: Vec<String>) -> Vec<String> {
    let base = url::Url::parse(page_url).ok();
    let mut seen = std::collections::HashSet::new();
    links
        .into_iter()
        .filter_map(|link| {
            let url = match &base {
                Some(base) => base.join(link.trim()).ok()?,
                None => url::Url::parse(link.trim()).ok()?,
            };
            matches!(url.scheme(), "http" | "https").then(|| url.to_string())
        })
        .filter(|link| seen.insert(link.clone()))
        .collect()
}

fn check_diff(
    out: differ::exports::fnhost::plugin::diffing::RowDiff,
    limits: &Limits,
) -> Result<RowDiff, PluginError> {
    let mut budget = Budget::new(limits);
    budget.strings(&out.added)?;
    budget.strings(&out.removed)?;
    for changed in &out.changed {
        budget.take(changed.identity.len() + ENTRY_BYTES)?;
        budget.strings(&changed.fields)?;
    }
    for moved in &out.price_moves {
        let currency = moved.currency.as_ref().map_or(0, String::len);
        budget.take(
            moved.identity.len() + moved.before.len() + moved.after.len() + currency + ENTRY_BYTES,
        )?;
    }
    Ok(RowDiff {
        added: out.added,
        removed: out.removed,
        changed: out
            .changed
            .into_iter()
            .map(|c| (c.identity, c.fields))
            .collect(),
        price_moves: out
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

fn check_page(
    out: Option<source::fnhost::plugin::types::Page>,
    limits: &Limits,
) -> Result<Option<Page>, PluginError> {
    let Some(page) = out else { return Ok(None) };
    let mut budget = Budget::new(limits);
    budget.take(
        page.url.len() + page.body.len() + page.content_type.as_ref().map_or(0, String::len),
    )?;
    Ok(Some(Page {
        url: page.url,
        status: page.status,
        content_type: page.content_type,
        body: page.body,
    }))
}

/// The bytes a call may still return.
struct Budget {
    left: usize,
}

impl Budget {
    fn new(limits: &Limits) -> Self {
        Budget {
            left: limits.output,
        }
    }

    fn take(&mut self, bytes: usize) -> Result<(), PluginError> {
        self.left = self
            .left
            .checked_sub(bytes)
            .ok_or(PluginError::OutputTooLarge)?;
        Ok(())
    }

    fn strings(&mut self, items: &[String]) -> Result<(), PluginError> {
        items
            .iter()
            .try_for_each(|s| self.take(s.len() + ENTRY_BYTES))
    }
}

fn invalid(what: impl std::fmt::Display) -> PluginError {
    PluginError::Plugin(format!("invalid output: {what}"))
}

fn truncate(mut message: String) -> String {
    if let Some((at, _)) = message.char_indices().nth(MAX_MESSAGE_CHARS) {
        message.truncate(at);
        message.push('…');
    }
    message
}
