//! What a plugin instance holds: an empty WASI context and a memory limiter.
//!
//! The host grants every WASI interface a language's standard library links
//! against, so that ordinary components load, but each one is empty: no
//! arguments, no environment, no preopened directories, stdin closed, stdout
//! and stderr discarded, every socket address and name lookup denied. The
//! only capability a plugin has is to compute on the data of its call.

use std::time::Duration;

use tokio::time::Instant;
use wasmtime::component::{Component, InstancePre, Linker, Resource, ResourceTable};
use wasmtime::{Engine, ResourceLimiter, StoreContextMut};
use wasmtime_wasi::p2::{DynPollable, Pollable};
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

/// Table elements a plugin may grow its tables to (a table element is a
/// pointer; tables do not grow in ordinary components).
const MAX_TABLE_ELEMENTS: usize = 100_000;

/// The store data of one call's instance.
pub(crate) struct Sandbox {
    wasi: WasiCtx,
    table: ResourceTable,
    pub(crate) limiter: MemoryLimiter,
    /// When the instance was created: the zero of its monotonic clock.
    started: Instant,
    /// When the call's time is up: no sleep lasts past it.
    deadline: Instant,
    /// Set when the plugin asked to sleep past the deadline: the call has
    /// then run out of time even if the plugin returns after waking.
    pub(crate) overslept: bool,
}

impl Sandbox {
    /// A fresh, empty sandbox whose linear memories may each grow to
    /// `memory_limit` bytes and whose call may last `timeout`.
    pub(crate) fn new(memory_limit: usize, timeout: Duration) -> Self {
        let started = Instant::now();
        Sandbox {
            wasi: empty_wasi(),
            table: ResourceTable::new(),
            limiter: MemoryLimiter::new(memory_limit),
            started,
            deadline: started
                .checked_add(timeout)
                .unwrap_or(started + Duration::from_secs(86400)),
            overslept: false,
        }
    }

    /// A pollable that is ready after `duration`, or at the call's deadline
    /// if that comes first.
    fn sleep(&mut self, duration: Duration) -> wasmtime::Result<Resource<DynPollable>> {
        let until = match Instant::now().checked_add(duration) {
            Some(until) if until <= self.deadline => until,
            _ => {
                self.overslept = true;
                self.deadline
            }
        };
        let sleep = self.table.push(Sleep(until))?;
        wasmtime_wasi::p2::subscribe(&mut self.table, sleep)
    }
}

/// A clamped sleep (see [`bound_sleeps`]).
struct Sleep(Instant);

#[wasmtime_wasi::async_trait]
impl Pollable for Sleep {
    async fn ready(&mut self) {
        tokio::time::sleep_until(self.0).await;
    }
}

impl WasiView for Sandbox {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// A WASI context that grants nothing. Most of this is the builder's
/// default; the network is closed explicitly so that a change of defaults
/// cannot open it.
fn empty_wasi() -> WasiCtx {
    WasiCtxBuilder::new()
        .allow_tcp(false)
        .allow_udp(false)
        .allow_ip_name_lookup(false)
        .socket_addr_check(|_, _| Box::pin(async { false }))
        .build()
}

/// Refuses memory growth past the limit and remembers that it did, so that
/// the trap that usually follows (an allocator's abort) is reported as
/// running out of memory rather than as a bare trap.
pub(crate) struct MemoryLimiter {
    limit: usize,
    /// Set when a memory could not grow.
    pub(crate) exhausted: bool,
}

impl MemoryLimiter {
    fn new(limit: usize) -> Self {
        MemoryLimiter {
            limit,
            exhausted: false,
        }
    }
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.limit || maximum.is_some_and(|max| desired > max) {
            self.exhausted = true;
            return Ok(false);
        }
        Ok(true)
    }

    fn memory_grow_failed(&mut self, _error: wasmtime::Error) -> wasmtime::Result<()> {
        self.exhausted = true;
        Ok(())
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS && maximum.is_none_or(|max| desired <= max))
    }
}

/// The linker every plugin is instantiated with: WASI (empty, see above)
/// and nothing else.
pub(crate) fn linker(engine: &Engine) -> anyhow::Result<Linker<Sandbox>> {
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
    bound_sleeps(&mut linker)?;
    // The contract's shared types: a component whose exports use them
    // imports the interface, which holds no functions.
    for types in CONTRACT_TYPES {
        linker.instance(types)?;
    }
    Ok(linker)
}

/// The contract's types-only interface of each released version: the one
/// non-WASI import allowed.
const CONTRACT_TYPES: &[&str] = &["fnhost:plugin/types@0.1.0", "fnhost:plugin/types@0.2.0"];

/// The monotonic clock's version in the WASI that wasmtime-wasi provides.
/// Components built against any older 0.2 release link to it too.
const MONOTONIC_CLOCK: &str = "wasi:clocks/monotonic-clock@0.2.12";

/// Replaces the monotonic clock's sleeps with ones that end at the call's
/// deadline. The epoch deadline interrupts wasm code only; a plugin that
/// sleeps waits in the host, where only this bound stops it. Once it wakes
/// past the deadline, its next instructions trap with the timeout.
fn bound_sleeps(linker: &mut Linker<Sandbox>) -> anyhow::Result<()> {
    linker.allow_shadowing(true);
    let mut clock = linker.instance(MONOTONIC_CLOCK)?;
    clock.func_wrap("now", |store: StoreContextMut<'_, Sandbox>, (): ()| {
        Ok((nanos(store.data().started.elapsed()),))
    })?;
    clock.func_wrap(
        "subscribe-duration",
        |mut store: StoreContextMut<'_, Sandbox>, (duration,): (u64,)| {
            Ok((store.data_mut().sleep(Duration::from_nanos(duration))?,))
        },
    )?;
    clock.func_wrap(
        "subscribe-instant",
        |mut store: StoreContextMut<'_, Sandbox>, (when,): (u64,)| {
            let sandbox = store.data_mut();
            let now = nanos(sandbox.started.elapsed());
            Ok((sandbox.sleep(Duration::from_nanos(when.saturating_sub(now)))?,))
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

/// Checks a component's imports against what the host grants and prepares
/// it for fast instantiation. A component that imports anything besides
/// WASI and the contract's shared types (for example `fnhost:evil/spend`)
/// is refused here, at load time, with the import named.
pub(crate) fn prepare(
    engine: &Engine,
    linker: &Linker<Sandbox>,
    component: &Component,
) -> anyhow::Result<InstancePre<Sandbox>> {
    let ty = component.component_type();
    let ungranted: Vec<String> = ty
        .imports(engine)
        .map(|(name, _)| name)
        .filter(|name| !name.starts_with("wasi:") && !CONTRACT_TYPES.contains(name))
        .map(|name| format!("`{name}`"))
        .collect();
    if !ungranted.is_empty() {
        anyhow::bail!(
            "the component imports {}, which the host does not grant (a plugin may import only WASI interfaces, and those are empty)",
            ungranted.join(", ")
        );
    }
    linker.instantiate_pre(component).map_err(|e| {
        anyhow::anyhow!("the component imports something the host does not provide: {e:#}")
    })
}
