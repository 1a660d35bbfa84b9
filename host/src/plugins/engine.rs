//! The wasmtime engine, narrowed to what plugins need: fast instantiation
//! from a pool, copy-on-write memory images, and deadlines as epochs.

use std::time::{Duration, Instant};

use wasmtime::{Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

/// How often the epoch advances. Deadlines are whole ticks, so a call may
/// overrun its time limit by at most about one tick.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Per-component maxima for the pool. A Rust component built for
/// wasm32-wasip2 has a handful of core instances (the program and a few
/// adapter shims), one or two memories and tables; these leave room for
/// components built by other toolchains.
const CORE_INSTANCES_PER_COMPONENT: u32 = 16;
const MEMORIES_PER_COMPONENT: u32 = 4;
const TABLES_PER_COMPONENT: u32 = 16;

/// Linear memory a pool slot keeps resident between calls (see `build`).
const LINEAR_MEMORY_KEEP_RESIDENT: usize = 16 << 20;

/// The wasm stack a call may use. Unbounded recursion hits this and traps.
const MAX_WASM_STACK: usize = 1 << 20;

/// Builds the engine. `max_instances` bounds the component instances alive
/// at once (the caller holds a semaphore of the same size, so a burst of
/// calls waits instead of exhausting the pool); `memory_limit` bounds each
/// linear memory.
pub(crate) fn build(max_instances: u32, memory_limit: usize) -> anyhow::Result<Engine> {
    let max_instances = max_instances.max(1);

    let mut pool = PoolingAllocationConfig::new();
    pool
        // Slots are reserved up front, sized for the worst case of every
        // instance being the largest component we accept.
        .total_component_instances(max_instances)
        .total_core_instances(max_instances * CORE_INSTANCES_PER_COMPONENT)
        .total_memories(max_instances * MEMORIES_PER_COMPONENT)
        .total_tables(max_instances * TABLES_PER_COMPONENT)
        // Stacks for asynchronous calls, which plugins do not make; left at
        // its default (1000) the pool set up a guard page for each at every
        // start, most of a short `fnhost extract`'s start-up.
        .total_stacks(max_instances)
        .max_core_instances_per_component(CORE_INSTANCES_PER_COMPONENT)
        .max_memories_per_component(MEMORIES_PER_COMPONENT)
        .max_tables_per_component(TABLES_PER_COMPONENT)
        // Tables hold function references; large programs (a regex engine,
        // an HTML parser) have some thousands.
        .table_elements(100_000)
        // The memory limit is enforced by the pool itself, besides the
        // store's limiter that reports it.
        .max_memory_size(memory_limit)
        // Every call gets a fresh instance, so every call's slot is reset
        // when it returns. With the PAGEMAP_SCAN ioctl (Linux 6.7+; without
        // it the setting does nothing) only the pages the call dirtied are
        // reset: by memset up to `linear_memory_keep_resident`, the rest by
        // madvise. Without it the whole kept region is memset on every
        // return, which was most of a small call's cost (65 µs of a differ
        // call, 17 µs with the scan).
        .pagemap_scan(Enabled::Auto)
        // Dirty pages up to this much are reset in place and stay resident
        // for the slot's next call, instead of being released and faulted
        // in again (page by page) on the next call. An extraction touches
        // 3-11 MiB of linear memory; a slot keeps at most this much resident
        // between calls.
        .linear_memory_keep_resident(LINEAR_MEMORY_KEEP_RESIDENT)
        .table_keep_resident(1 << 16);

    let mut config = Config::new();
    config
        .wasm_component_model(true)
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool))
        // Initialize memories from a copy-on-write image of the data
        // segments, so instantiation does not copy them.
        .memory_init_cow(true)
        // Calls are interrupted at epoch deadlines (see `start_ticker`);
        // cheaper than fuel, and the limit is wall-clock time anyway.
        .epoch_interruption(true)
        .max_wasm_stack(MAX_WASM_STACK)
        .cranelift_opt_level(wasmtime::OptLevel::Speed)
        .parallel_compilation(true);
    Engine::new(&config).map_err(|e| anyhow::anyhow!("failed to create the plugin engine: {e:#}"))
}

/// Advances the engine's epoch every [`EPOCH_TICK`] on one background
/// thread, for as long as the engine is alive. Ticks are counted from the
/// start, so a late wake-up catches up instead of stretching deadlines.
pub(crate) fn start_ticker(engine: &Engine) -> anyhow::Result<()> {
    let weak = engine.weak();
    let started = Instant::now();
    std::thread::Builder::new()
        .name("fnhost-plugin-epoch".into())
        .spawn(move || {
            let mut ticks: u128 = 0;
            loop {
                std::thread::sleep(EPOCH_TICK);
                let Some(engine) = weak.upgrade() else { break };
                let due = started.elapsed().as_nanos() / EPOCH_TICK.as_nanos();
                while ticks < due {
                    engine.increment_epoch();
                    ticks += 1;
                }
            }
        })
        .map_err(|e| anyhow::anyhow!("failed to start the plugin epoch thread: {e}"))?;
    Ok(())
}

/// The number of ticks that covers `timeout`, plus one because the first
/// tick may come at any moment after the deadline is set.
pub(crate) fn deadline_ticks(timeout: Duration) -> u64 {
    let tick = EPOCH_TICK.as_nanos();
    let ticks = timeout.as_nanos().div_ceil(tick);
    u64::try_from(ticks).unwrap_or(u64::MAX - 1).max(1) + 1
}
