//! The node's writer threads: the redb writer with its group commit, and
//! the PostgreSQL writer lanes, one transaction per queued write.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use super::tx::Tx;
use super::{postgres, Counters, Scope};

/// The most writes one batch takes.
const MAX_BATCH: usize = 256;

/// A queued write: its closure, whether its caller waits for the fsync,
/// and what it locks.
pub(super) struct Job {
    pub(super) durable: bool,
    pub(super) scope: Scope,
    pub(super) run: Box<dyn FnOnce(&Tx) -> Done + Send>,
}

/// PostgreSQL writer lanes per node: writes of different scopes commit at
/// once, each lane on a connection of its own; one scope always takes the
/// same lane, so its writes keep their queue order.
pub(super) const POSTGRES_LANES: usize = 4;

/// The lane of a scope among `lanes`.
pub(super) fn lane_of(scope: &Scope, lanes: usize) -> usize {
    use std::hash::{Hash, Hasher};
    match scope {
        Scope::All => 0,
        other => {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            other.hash(&mut h);
            (h.finish() % lanes as u64) as usize
        }
    }
}

/// A write's closure has run: commit or roll back, then answer with the
/// outcome of the commit (and, for a durable write, of the fsync).
pub(super) struct Done {
    pub(super) commit: bool,
    pub(super) answer: Answer,
}

/// Tells a write's caller how its commit went.
pub(super) type Answer = Box<dyn FnOnce(Result<(), String>) + Send>;

/// What a caller gets when the writer dropped its write unanswered.
pub(super) fn dropped_write<E: From<anyhow::Error>>() -> E {
    E::from(anyhow::anyhow!(
        "database write failed: the writer dropped it (the write panicked, or the database could not be reached)"
    ))
}

/// The redb writer thread: batches of queued writes, one fsync per batch.
pub(super) fn redb_writer(
    db: &redb::Database,
    node: &str,
    keys_generation: &AtomicU64,
    stats: &Counters,
    jobs: mpsc::Receiver<Job>,
) {
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let last_durable = batch.iter().rposition(|j| j.durable);
        // Committed durable writes waiting for the batch's fsync.
        let mut waiting: Vec<Answer> = Vec::new();
        for (i, job) in batch.into_iter().enumerate() {
            let flush = Some(i) == last_durable;
            let mut wtx = match db.begin_write() {
                Ok(tx) => tx,
                Err(e) => {
                    // Dropping the job drops its reply: the caller sees an error.
                    tracing::error!(error = %e, "cannot begin a write transaction");
                    drop(job);
                    continue;
                }
            };
            let durability = if flush {
                redb::Durability::Immediate
            } else {
                redb::Durability::None
            };
            if let Err(e) = wtx.set_durability(durability) {
                tracing::error!(error = %e, "cannot set a write's durability");
                continue;
            }
            let run = job.run;
            let ran = {
                let tx = Tx::new(&wtx, true, node);
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&tx)))
                    .map(|done| (done, tx.touched_keys()))
            };
            let (done, touched) = match ran {
                Ok(x) => x,
                Err(_) => {
                    // The write panicked: roll it back; its caller sees an error.
                    let _ = wtx.abort();
                    continue;
                }
            };
            if !done.commit {
                // The closure refused: roll back this write alone.
                let _ = wtx.abort();
                (done.answer)(Ok(()));
                continue;
            }
            let committed = wtx.commit().map_err(|e| e.to_string());
            if committed.is_ok() {
                stats.commits.fetch_add(1, Ordering::Relaxed);
                if flush {
                    stats.flushes.fetch_add(1, Ordering::Relaxed);
                }
                if touched {
                    keys_generation.fetch_add(1, Ordering::SeqCst);
                }
            }
            match (committed, job.durable, flush) {
                (Err(e), _, _) => {
                    (done.answer)(Err(e.clone()));
                    if flush {
                        answer_all(&mut waiting, Err(e));
                    }
                }
                (Ok(()), false, _) => (done.answer)(Ok(())),
                (Ok(()), true, false) => waiting.push(done.answer),
                (Ok(()), true, true) => {
                    waiting.push(done.answer);
                    answer_all(&mut waiting, Ok(()));
                }
            }
        }
        // The last durable write did not commit: flush the earlier ones.
        if !waiting.is_empty() {
            let flushed = empty_durable_commit(db);
            if flushed.is_ok() {
                stats.flushes.fetch_add(1, Ordering::Relaxed);
            }
            answer_all(&mut waiting, flushed);
        }
    }
}

/// The PostgreSQL writer thread: each queued write in a transaction of its
/// own, in queue order, on a connection of its own (opened again if lost).
pub(super) fn postgres_writer(
    pg: &postgres::Pg,
    node: &str,
    keys_generation: &AtomicU64,
    stats: &Counters,
    jobs: mpsc::Receiver<Job>,
) {
    let mut conn: Option<postgres::Conn> = None;
    while let Ok(job) = jobs.recv() {
        if conn.as_ref().is_none_or(|c| c.is_closed()) {
            conn = match pg.connect() {
                Ok(c) => Some(c),
                Err(e) => {
                    tracing::error!(error = ?e, "cannot connect the database writer; the write fails");
                    continue;
                }
            };
        }
        let c = conn.as_ref().expect("connected");
        let durable = job.durable;
        let scope = job.scope;
        let run = job.run;
        // The caller's answer, kept here once the closure has run, so that a
        // failed commit is answered with its error.
        let mut answer: Option<Answer> = None;
        let written = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            postgres::write_on(c, node, durable, &scope, |tx| {
                let done = run(tx);
                let commit = done.commit;
                answer = Some(done.answer);
                (commit, tx.touched_keys())
            })
        }));
        match written {
            Err(_) => {
                // The write panicked: its transaction is rolled back with the
                // connection, and its caller sees an error.
                conn = None;
            }
            Ok(Err(e)) => {
                tracing::error!(error = ?e, "a database write failed");
                if let Some(answer) = answer {
                    answer(Err(format!("database write failed: {e:#}")));
                }
            }
            Ok(Ok(w)) => {
                let touched = w.out;
                if w.committed {
                    stats.commits.fetch_add(1, Ordering::Relaxed);
                    if durable {
                        stats.flushes.fetch_add(1, Ordering::Relaxed);
                    }
                    if touched {
                        keys_generation.fetch_add(1, Ordering::SeqCst);
                    }
                }
                if let Some(answer) = answer {
                    answer(Ok(()));
                }
            }
        }
    }
}

fn answer_all(waiting: &mut Vec<Answer>, outcome: Result<(), String>) {
    for answer in waiting.drain(..) {
        answer(outcome.clone());
    }
}

/// Flush the batch's earlier commits when its last durable write did not commit.
fn empty_durable_commit(db: &redb::Database) -> Result<(), String> {
    let tx = db.begin_write().map_err(|e| e.to_string())?;
    tx.commit().map_err(|e| e.to_string())
}
