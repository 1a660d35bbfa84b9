//! Background tasks that must not die unnoticed.
//!
//! A supervised task is started again whenever it panics or returns: the
//! failure is logged as an error and the task resumes its work from what is
//! stored (the webhook outbox, the running set), so nothing it was doing is
//! silently dropped.

use std::future::Future;
use std::time::Duration;

/// Pause before a failed task is started again, so a task that fails at
/// once does not spin.
const RESTART_DELAY: Duration = Duration::from_secs(1);

/// Run `start()`'s task forever, starting it again whenever it ends.
pub fn supervise<F, Fut>(name: &'static str, start: F)
where
    F: Fn() -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    tokio::spawn(async move {
        loop {
            match tokio::spawn(start()).await {
                Ok(()) => tracing::error!(task = name, "a background task returned; restarting it"),
                Err(e) if e.is_panic() => {
                    let panic = e.into_panic();
                    tracing::error!(
                        task = name,
                        panic = panic_text(&*panic),
                        "a background task panicked; restarting it"
                    );
                }
                // Cancelled: the runtime is shutting down.
                Err(_) => return,
            }
            tokio::time::sleep(RESTART_DELAY).await;
        }
    });
}

/// The message of a caught panic.
pub fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}
