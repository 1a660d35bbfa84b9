#!/usr/bin/env python3
"""An agent's session with fnhost's MCP server, end to end.

    FNHOST_KEY=fn_test_... python3 agent.py [MCP_URL]

Needs the `mcp` package (the official MCP Python SDK, 2.x). Lists the tools,
prices a query, starts a session with a spending cap, reads its rows with
their receipt ids, and reads the session's result and one receipt as MCP
resources. Prints one JSON line per step.
"""
import asyncio
import json
import os
import sys

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

URL = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080/v1/mcp"
QUERY = os.environ.get("FNHOST_QUERY", "tents under $200 from outdoor-gear.example")


def say(step, **fields):
    print(json.dumps({"step": step, **fields}, sort_keys=True), flush=True)


async def main():
    headers = {"Authorization": f"Bearer {os.environ['FNHOST_KEY']}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0)) as http:
        async with streamable_http_client(URL, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                say("tools", names=sorted(t.name for t in tools.tools))

                estimate = await session.call_tool("estimate", {"query": QUERY})
                say("estimate", error=bool(estimate.is_error), result=estimate.structured_content)

                started = await session.call_tool("start_session", {"query": QUERY, "max_spend_usd": 0.5})
                say("start_session", error=bool(started.is_error), result=started.structured_content)
                if started.is_error:
                    sys.exit("start_session failed")
                session_id = started.structured_content["id"]

                result = await session.call_tool("session_result", {"session_id": session_id, "wait_s": 60, "limit": 100})
                say("session_result", error=bool(result.is_error), result=result.structured_content)

                status = await session.call_tool("session_status", {"session_id": session_id})
                say("session_status", error=bool(status.is_error), result=status.structured_content)

                # A page size the API does not take: the same error as over REST.
                too_many = await session.call_tool("session_result", {"session_id": session_id, "limit": 101})
                say("too_many", error=bool(too_many.is_error), result=too_many.structured_content)

                resource = await session.read_resource(f"fnhost://sessions/{session_id}/result")
                say("resource_result", result=json.loads(resource.contents[0].text))

                rows = result.structured_content["rows"]
                receipt_id = next(r["source"]["receipt_id"] for r in rows)
                receipt = await session.read_resource(f"fnhost://receipts/{receipt_id}")
                say("resource_receipt", result=json.loads(receipt.contents[0].text))

                # An extraction, read a page of two rows at a time.
                tools_named = {t.name for t in tools.tools}
                if "extract_url" in tools_named:
                    made = await session.call_tool("extract_url", {"url": "https://outdoor-gear.example/tents/", "entity": "tent", "max_spend_usd": 0.05})
                    say("extract_url", error=bool(made.is_error), result=made.structured_content)
                    first = await session.call_tool("extraction_result", {"extraction_id": made.structured_content["id"], "wait_s": 60, "limit": 2})
                    say("extraction_page_1", error=bool(first.is_error), result=first.structured_content)
                    after = first.structured_content.get("next_starting_after")
                    second = await session.call_tool("extraction_result", {"extraction_id": made.structured_content["id"], "limit": 2, "starting_after": after})
                    say("extraction_page_2", error=bool(second.is_error), result=second.structured_content)

                # More than the key's session cap: refused by the cap, nothing reserved.
                over = await session.call_tool("start_session", {"query": QUERY, "max_spend_usd": float(os.environ.get("FNHOST_OVER_CAP", "1000"))})
                say("over_cap", error=bool(over.is_error), result=over.structured_content)

                balance = await session.call_tool("balance", {})
                say("balance", error=bool(balance.is_error), result=balance.structured_content)


asyncio.run(main())
