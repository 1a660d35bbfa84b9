fn main() {
    for q in std::env::args().skip(1) {
        let p = fnhost_planner::plan(&q);
        println!(
            "{q}\n  would_run={} missing={:?}\n  reason={}\n  parsed={}\n",
            p.would_run, p.missing, p.reason, p.parsed
        );
    }
}
