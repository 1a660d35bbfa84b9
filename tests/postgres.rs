//! A real PostgreSQL server for the tests: Debian's binaries, `initdb` into
//! a temporary directory, listening on a free loopback port, one per test
//! process (started on first use, stopped when the process ends). Every
//! fnhost server of a test gets a database of its own.
//!
//! `TEST_FNHOST_STORAGE=postgres` runs the black-box suites on it: every
//! `Server` the tests start then uses a fresh database instead of redb.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Do the suites run on PostgreSQL?
pub fn selected() -> bool {
    std::env::var("TEST_FNHOST_STORAGE").is_ok_and(|s| s == "postgres")
}

struct Cluster {
    port: u16,
    bin: PathBuf,
    /// The CA that signed the server's certificate (for `localhost` only).
    ca_file: PathBuf,
    /// The server's directory (its data, socket, log and control files).
    dir: PathBuf,
}

/// The test server's TLS files: a CA, and a certificate for `localhost`
/// signed by it, written into the data directory (the key readable by its
/// owner only, as PostgreSQL requires). Returns the CA file's path.
fn make_certificates(dir: &std::path::Path, data: &std::path::Path) -> PathBuf {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "fnhost test CA");
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["localhost".to_string()])
        .unwrap()
        .signed_by(&key, &ca, &ca_key)
        .unwrap();
    std::fs::write(data.join("server.crt"), cert.pem()).unwrap();
    std::fs::write(data.join("server.key"), key.serialize_pem()).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        data.join("server.key"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    if is_root() {
        let ok = Command::new("chown")
            .args(["postgres:postgres"])
            .arg(data.join("server.crt"))
            .arg(data.join("server.key"))
            .status()
            .unwrap();
        assert!(ok.success(), "chown of the server's certificate failed");
    }
    let ca_file = dir.join("ca.pem");
    std::fs::write(&ca_file, ca.pem()).unwrap();
    ca_file
}

/// The PEM file of the CA that signed the test server's certificate (which
/// names `localhost`, not `127.0.0.1`).
pub fn ca_file() -> PathBuf {
    cluster().ca_file.clone()
}

/// Stop the test server fast (every connection cut, as in a crash or a
/// failover) and start it again after `down`; returns once it answers.
pub fn restart(down: Duration) {
    let c = cluster();
    let pid = std::fs::read_to_string(c.dir.join("data/postmaster.pid"))
        .expect("the server's pid file")
        .lines()
        .next()
        .unwrap()
        .trim()
        .to_string();
    std::fs::write(c.dir.join("restart"), format!("{:.1}", down.as_secs_f64())).unwrap();
    let ok = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(ok.success(), "stopping the test server failed");
    let started = Instant::now();
    // Down first (the pid file goes), then up again.
    while c.dir.join("restart").exists() || psql(c.port, "postgres", "SELECT 1").is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(60) + down,
            "PostgreSQL did not come back within 60 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The port the test server listens on (127.0.0.1).
pub fn port() -> u16 {
    cluster().port
}

/// The directory of Debian's PostgreSQL server binaries (the newest version).
fn server_bin() -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect(
            "PostgreSQL is not installed: `cargo xtask test` installs Debian's postgresql package",
        )
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|p| p.join("initdb").exists())
        .collect();
    versions.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    versions
        .pop()
        .expect("no PostgreSQL server binaries under /usr/lib/postgresql")
}

/// Run a command as the `postgres` user when we are root (initdb refuses root).
fn as_postgres(program: &std::path::Path) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(|| {
        let bin = server_bin();
        let dir = std::env::temp_dir().join(format!("fnhost-pg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        if is_root() {
            let ok = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&dir)
                .status()
                .unwrap();
            assert!(ok.success(), "chown of the PostgreSQL directory failed");
        }
        let data = dir.join("data");
        let out = as_postgres(&bin.join("initdb"))
            .args([
                "--auth=trust",
                "--username=postgres",
                "--encoding=UTF8",
                "--no-sync",
                "-D",
            ])
            .arg(&data)
            .output()
            .expect("run initdb");
        assert!(
            out.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let ca_file = make_certificates(&dir, &data);
        let port = free_port();
        // Tests run without fsync; the benchmarks (TEST_FNHOST_PG_FSYNC=on)
        // with it, as a production server does.
        let fsync = if std::env::var("TEST_FNHOST_PG_FSYNC").is_ok_and(|v| v == "on") {
            "on"
        } else {
            "off"
        };
        // The server goes when this test process goes: a shell watches our
        // pid, then stops it fast. It runs again after a stop while the
        // file `restart` is there (after as many seconds as it says).
        let script = format!(
            "( while [ -d /proc/{me} ]; do sleep 0.5; done; touch {dir}/stop; \
               kill -INT $(head -1 {data}/postmaster.pid) 2>/dev/null ) & \
             while :; do \
               {postgres} -D {data} -p {port} -k {dir} -c listen_addresses=127.0.0.1 -c fsync={fsync} \
                 -c max_connections=400 -c shared_buffers=64MB -c ssl=on >>{dir}/log 2>&1; \
               if [ -f {dir}/restart ] && [ ! -f {dir}/stop ]; then \
                 sleep $(cat {dir}/restart); rm -f {dir}/restart; continue; fi; \
               break; \
             done; rm -rf {dir}",
            postgres = bin.join("postgres").display(),
            data = data.display(),
            dir = dir.display(),
            me = std::process::id(),
            fsync = fsync,
        );
        let mut sh = if is_root() {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--", "sh", "-c", &script]);
            c
        } else {
            let mut c = Command::new("sh");
            c.args(["-c", &script]);
            c
        };
        sh.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        sh.spawn().expect("start postgres");
        let started = Instant::now();
        loop {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
                && psql(port, "postgres", "SELECT 1").is_ok()
            {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "PostgreSQL did not start within 60 s: {}",
                std::fs::read_to_string(dir.join("log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Cluster {
            port,
            bin,
            ca_file,
            dir,
        }
    })
}

fn psql(port: u16, db: &str, sql: &str) -> Result<String, String> {
    let out = Command::new("psql")
        .args([
            "-h",
            "127.0.0.1",
            "-U",
            "postgres",
            "-v",
            "ON_ERROR_STOP=1",
            "-At",
            "-p",
        ])
        .arg(port.to_string())
        .args(["-d", db, "-c", sql])
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).to_string())
    }
}

/// A fresh, empty database on the test cluster: its connection URL.
pub fn new_database() -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let c = cluster();
    let _ = &c.bin;
    let name = format!(
        "fnhost_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    );
    psql(c.port, "postgres", &format!("CREATE DATABASE {name}")).expect("create a database");
    format!("postgres://postgres@127.0.0.1:{}/{name}", c.port)
}

/// Run SQL on a database of the test cluster (by its URL), returning rows as text.
pub fn query(url: &str, sql: &str) -> String {
    let db = url.rsplit('/').next().unwrap();
    psql(cluster().port, db, sql).expect("psql")
}

/// An open transaction on a database of the test cluster, held by a psql
/// process until dropped (then committed).
pub struct Held {
    child: std::process::Child,
}

/// Open a transaction on the database at `url`, run `sql` in it, and keep
/// it open: returns once `sql` has run (a lock it takes is held).
pub fn hold(url: &str, sql: &str) -> Held {
    use std::io::{BufRead, Write};
    let db = url.rsplit('/').next().unwrap();
    let mut child = Command::new("psql")
        .args(["-h", "127.0.0.1", "-U", "postgres", "-At", "-p"])
        .arg(cluster().port.to_string())
        .args(["-d", db])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start psql");
    let stdin = child.stdin.as_mut().unwrap();
    writeln!(stdin, "BEGIN; {sql}; SELECT 'held';").unwrap();
    stdin.flush().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while line.trim() != "held" {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "psql ended before `{sql}` ran"
        );
    }
    Held { child }
}

impl Drop for Held {
    fn drop(&mut self) {
        use std::io::Write;
        if let Some(mut stdin) = self.child.stdin.take() {
            let _ = writeln!(stdin, "COMMIT;");
        }
        let _ = self.child.wait();
    }
}
