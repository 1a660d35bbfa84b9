//! The tool-protocol server (preview switch `mcp`), driven by the official
//! MCP Python SDK over Streamable HTTP (installed by `cargo xtask test`).

use std::path::Path;
use std::process::Command;

use fnhost_tests::*;

/// Runs the example agent with `key`; its JSON lines by step.
fn agent(s: &Server, key: &str) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/mcp/agent.py");
    let out = Command::new(python())
        .arg(script)
        .arg(s.url("/mcp"))
        .env("FNHOST_KEY", key)
        .output()
        .expect("run the agent");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "the agent failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn step<'a>(lines: &'a [Value], name: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["step"] == name)
        .unwrap_or_else(|| panic!("no {name} step in {lines:?}"))
}

#[test]
fn an_agent_prices_starts_and_reads_a_session_within_its_caps() {
    let s = Server::builder()
        .env("FNHOST_PREVIEW", "mcp,extractions")
        .start();
    let a = s.account("10");
    // The agent's key may reserve at most $1 per session.
    let k = s.admin(&[
        "create-key",
        "--account",
        &a.id,
        "--mode",
        "test",
        "--name",
        "agent",
        "--session-cap-usd",
        "1",
    ]);
    let lines = agent(&s, k["key"].as_str().unwrap());
    let tools: Vec<&str> = step(&lines, "tools")["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    for t in [
        "estimate",
        "start_session",
        "session_status",
        "session_result",
        "stop_session",
        "balance",
        "extract_url",
        "extraction_result",
    ] {
        assert!(tools.contains(&t), "{t} missing from {tools:?}");
    }
    // Closed surfaces add no tools.
    assert!(
        !tools.contains(&"create_monitor") && !tools.contains(&"discover"),
        "{tools:?}"
    );
    let estimate = step(&lines, "estimate");
    assert_eq!(estimate["error"], false, "{estimate}");
    assert!(
        estimate["result"]["estimated_usd"].is_number(),
        "{estimate}"
    );
    let started = &step(&lines, "start_session")["result"];
    assert_eq!(started["reserved_usd"], json!(0.5), "{started}");
    let result = step(&lines, "session_result");
    assert_eq!(result["result"]["status"], "answered", "{result}");
    let rows = result["result"]["rows"].as_array().unwrap();
    assert!(rows.len() >= 4, "{result}");
    assert!(rows.iter().all(|r| r["source"]["receipt_id"]
        .as_str()
        .is_some_and(|id| id.starts_with("rcpt_"))));
    // Results sized for agents: a bounded page, its receipts and the cost.
    assert!(rows.len() <= 100, "{result}");
    assert_eq!(result["result"]["cost_usd"], json!(0), "{result}");
    assert!(result["result"]["spend_usd"].is_number(), "{result}");
    let receipts = result["result"]["receipt_ids"].as_array().unwrap();
    assert!(rows
        .iter()
        .all(|r| receipts.contains(&r["source"]["receipt_id"])));
    // Every tool result states its cost and the receipts behind it.
    for l in lines.iter().filter(|l| l["error"] == false) {
        assert!(
            l["result"]["cost_usd"].is_number() && l["result"]["receipt_ids"].is_array(),
            "{l}"
        );
    }
    let status = &step(&lines, "session_status")["result"];
    assert_eq!(status["cost_usd"], json!(0), "{status}");
    let behind = status["receipt_ids"].as_array().unwrap();
    assert!(
        !behind.is_empty() && receipts.iter().all(|r| behind.contains(r)),
        "{status}"
    );
    // The REST bounds of a page hold for the tools too.
    let too_many = step(&lines, "too_many");
    assert_eq!(too_many["error"], true, "{too_many}");
    assert_eq!(too_many["result"]["error"]["param"], "limit", "{too_many}");
    // An extraction's rows come a bounded page at a time, with a cursor.
    let p1 = &step(&lines, "extraction_page_1")["result"];
    assert_eq!(p1["rows"].as_array().unwrap().len(), 2, "{p1}");
    assert_eq!(p1["has_more"], true, "{p1}");
    assert_eq!(p1["next_starting_after"], p1["rows"][1]["id"], "{p1}");
    assert!(!p1["receipt_ids"].as_array().unwrap().is_empty(), "{p1}");
    assert!(
        p1["spend_usd"].is_number() && p1["cost_usd"] == json!(0),
        "{p1}"
    );
    let p2 = &step(&lines, "extraction_page_2")["result"];
    assert_ne!(p2["rows"][0]["id"], p1["rows"][0]["id"], "{p2}");
    let resource = &step(&lines, "resource_result")["result"];
    assert_eq!(resource["status"], "answered");
    assert_eq!(resource["session_id"], started["id"]);
    assert_eq!(
        step(&lines, "resource_receipt")["result"]["object"],
        "receipt"
    );
    // Over the key's session cap: a tool error naming the cap; nothing reserved.
    let over = step(&lines, "over_cap");
    assert_eq!(over["error"], true, "{over}");
    assert_eq!(
        over["result"]["error"]["code"], "session_cap_exceeded",
        "{over}"
    );
    let balance = &step(&lines, "balance")["result"];
    assert_eq!(micros(&balance["open_reserves_usd"]), 0, "{balance}");
    // The agent's spend is the session's and the extraction's settled
    // receipts, as over REST.
    let c = s.client(&a.test);
    let ses = c
        .get(&format!("/sessions/{}", started["id"].as_str().unwrap()))
        .ok();
    assert_eq!(
        micros(&balance["balance_usd"]),
        10_000_000 - micros(&ses["settled_usd"]) - micros(&p1["spend_usd"])
    );
    s.audit();
}

#[test]
fn a_key_without_the_scope_gets_a_tool_error_naming_it() {
    let s = Server::builder().env("FNHOST_PREVIEW", "mcp").start();
    let a = s.account("10");
    let k = s.admin(&[
        "create-key",
        "--account",
        &a.id,
        "--mode",
        "test",
        "--name",
        "read-only",
        "--scopes",
        "account:read,sessions:read",
    ]);
    let read_only = k["key"].as_str().unwrap().to_string();
    let script = r#"
import asyncio, json, os, sys
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
async def main():
    async with httpx2.AsyncClient(headers={"Authorization": "Bearer " + os.environ["FNHOST_KEY"]}) as http:
        async with streamable_http_client(sys.argv[1], http_client=http) as (r, w):
            async with ClientSession(r, w) as s:
                await s.initialize()
                res = await s.call_tool("start_session", {"query": "tents from outdoor-gear.example", "max_spend_usd": 0.1})
                print(json.dumps({"error": bool(res.is_error), "result": res.structured_content}))
asyncio.run(main())
"#;
    let out = Command::new(python())
        .args(["-c", script, &s.url("/mcp")])
        .env("FNHOST_KEY", &read_only)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["error"], true, "{v}");
    assert_eq!(v["result"]["error"]["code"], "missing_scope", "{v}");
    assert_eq!(
        v["result"]["error"]["required_scope"], "sessions:write",
        "{v}"
    );
    assert_eq!(s.client(&a.test).get("/sessions").ok()["data"], json!([]));
}

#[test]
fn the_endpoint_wants_a_key_and_is_501_when_closed() {
    let s = Server::builder().env("FNHOST_PREVIEW", "mcp").start();
    let r = s.anonymous().post(
        "/mcp",
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {} }),
    );
    assert_eq!(r.status, 401, "{}", r.text);
    assert_eq!(r.json()["error"]["code"], "invalid_key");
    // The transport's own refusals, in the envelope with their type's status
    // (invalid_request is 400, SPEC §7.1).
    let a = s.account("1");
    let c = s.client(&a.test);
    let r = c.send(
        c.request("POST", "/mcp")
            .header("accept", "application/json")
            .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {} })),
    );
    assert_eq!(r.error(400, "invalid_param")["param"], "Accept");
    let closed = Server::start();
    let a = closed.account("1");
    for method in ["GET", "POST", "DELETE"] {
        let e = closed
            .client(&a.test)
            .method(method, "/mcp")
            .error(501, "not_implemented");
        assert_eq!(e["surface"], "tool-protocol server");
    }
}
