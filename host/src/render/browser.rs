//! The node's one headless Chromium: started on first use, watched, and
//! started again after it dies or is killed for hanging.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::StreamExt;

use super::RenderError;

/// Chromium's settings (without their leading "--"). The network settings
/// are the wall's second line:
/// a request the protocol could not pause resolves no name and reaches no
/// proxy (loopback included), so it fails.
const ARGS: &[&str] = &[
    "proxy-server=http://0.0.0.0:9",
    "proxy-bypass-list=<-loopback>",
    "host-resolver-rules=MAP * ~NOTFOUND",
    "force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "webrtc-ip-handling-policy=disable_non_proxied_udp",
    "disable-features=ServiceWorker,NetworkPrediction,PrefetchPrivacyChanges,MediaRouter",
    "disable-background-networking",
    "disable-component-update",
    "disable-sync",
    "disable-domain-reliability",
    "no-pings",
    "deny-permission-prompts",
    "disable-notifications",
    "disable-gpu",
    "disable-dev-shm-usage",
    "mute-audio",
];

/// The usual names of a Chromium binary on PATH.
const NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
];

pub fn find(configured: &str) -> Option<PathBuf> {
    if !configured.trim().is_empty() {
        let p = PathBuf::from(configured.trim());
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| NAMES.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

impl Drop for Browser {
    fn drop(&mut self) {
        sweep(&self.profile_dir);
    }
}

struct Live {
    browser: Arc<chromiumoxide::Browser>,
    /// Ends when the browser's connection does (it died or was killed).
    handler: tokio::task::JoinHandle<()>,
}

pub struct Browser {
    executable: PathBuf,
    profile_dir: PathBuf,
    heap_mb: u32,
    live: tokio::sync::Mutex<Option<Live>>,
}

impl Browser {
    pub fn new(executable: PathBuf, profile_dir: PathBuf, heap_mb: u32) -> Browser {
        Browser {
            executable,
            profile_dir,
            heap_mb,
            live: tokio::sync::Mutex::new(None),
        }
    }

    /// The running browser, started (again) when there is none.
    pub async fn get(&self) -> Result<Arc<chromiumoxide::Browser>, RenderError> {
        let mut live = self.live.lock().await;
        if let Some(l) = live.as_ref() {
            if !l.handler.is_finished() {
                return Ok(l.browser.clone());
            }
            tracing::warn!("render: the browser went away; starting a new one");
        }
        let started = launch(&self.executable, &self.profile_dir, self.heap_mb).await?;
        let browser = started.browser.clone();
        *live = Some(started);
        Ok(browser)
    }

    /// Kill the browser (it failed or hung); the next render starts anew.
    pub async fn restart(&self) {
        if let Some(l) = self.live.lock().await.take() {
            l.handler.abort();
            if let Ok(mut b) = Arc::try_unwrap(l.browser) {
                let _ = b.kill().await;
            }
        }
        // Its helper processes, and the browser itself when a render still
        // holds a handle to it.
        sweep(&self.profile_dir);
    }
}

/// Started through this script, the browser ends when fnhost does, however
/// fnhost ends (even killed): a watcher checks fnhost's process each
/// second. `exec` keeps the browser's process the one fnhost started.
const LAUNCHER: &str = r#"#!/bin/sh
parent=$PPID
(
  while kill -0 "$parent" 2>/dev/null && kill -0 $$ 2>/dev/null; do sleep 1; done
  kill -0 "$parent" 2>/dev/null || kill -9 $$ 2>/dev/null
) >/dev/null 2>&1 </dev/null &
exec "$FNHOST_BROWSER" "$@"
"#;

fn launcher(profile_dir: &Path) -> Result<PathBuf, RenderError> {
    use std::os::unix::fs::PermissionsExt;
    let path = profile_dir.with_file_name("browser-launcher.sh");
    let io = |e: std::io::Error| RenderError::Launch(format!("{}: {e}", path.display()));
    std::fs::write(&path, LAUNCHER).map_err(io)?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).map_err(io)?;
    Ok(path)
}

/// Kill every process of a browser started on `profile_dir` (one left by
/// an earlier fnhost on this data directory, or one that hangs).
fn sweep(profile_dir: &Path) {
    let mark = format!("--user-data-dir={}", profile_dir.display());
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return;
    };
    for p in procs.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let cmdline = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
        let has_mark = cmdline.split(|b| *b == 0).any(|arg| arg == mark.as_bytes());
        if has_mark && pid != std::process::id() as i32 {
            // SAFETY: kill(2) with a pid read from /proc; no memory involved.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

async fn launch(executable: &Path, profile_dir: &Path, heap_mb: u32) -> Result<Live, RenderError> {
    // No browser of an earlier start survives, and the profile is fresh.
    sweep(profile_dir);
    let _ = std::fs::remove_dir_all(profile_dir);
    std::fs::create_dir_all(profile_dir).map_err(|e| RenderError::Launch(e.to_string()))?;
    let config = chromiumoxide::BrowserConfig::builder()
        .chrome_executable(launcher(profile_dir)?)
        .env("FNHOST_BROWSER", executable.display().to_string())
        .user_data_dir(profile_dir)
        .no_sandbox()
        .args(ARGS.iter().copied())
        .arg(format!("js-flags=--max-old-space-size={heap_mb}"))
        .launch_timeout(std::time::Duration::from_secs(30));
    let config = config.build().map_err(RenderError::Launch)?;
    let (browser, mut handler) = chromiumoxide::Browser::launch(config)
        .await
        .map_err(|e| RenderError::Launch(e.to_string()))?;
    let handler = tokio::spawn(async move {
        while let Some(event) = handler.next().await {
            if let Err(e) = event {
                tracing::debug!("render: browser connection: {e}");
                break;
            }
        }
    });
    tracing::info!(browser = %executable.display(), "render: browser started");
    Ok(Live {
        browser: Arc::new(browser),
        handler,
    })
}
