// The fnhost dashboard's only script. Served from the binary; no inline
// scripts are allowed by the page's Content-Security-Policy.
"use strict";

// Forms with data-confirm ask before they are sent.
document.addEventListener("submit", (ev) => {
  const form = ev.target;
  const question = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
  if (question && !window.confirm(question)) {
    ev.preventDefault();
  }
});

// A running session's events: poll the dashboard's events.json and append
// rows. Cells are filled with textContent, never as markup.
function followEvents(tbody) {
  let after = Number(tbody.dataset.after || "0");
  let failures = 0;
  const pill = (text) => {
    const span = document.createElement("span");
    span.className = "pill";
    span.textContent = text;
    return span;
  };
  const tick = async () => {
    let body;
    try {
      const r = await fetch(`${tbody.dataset.poll}?after=${after}`, { credentials: "same-origin", cache: "no-store" });
      if (!r.ok || !(r.headers.get("content-type") || "").includes("application/json")) throw new Error(String(r.status));
      body = await r.json();
      failures = 0;
    } catch (e) {
      failures += 1;
      if (failures < 10) setTimeout(tick, 2000);
      return;
    }
    for (const e of body.events) {
      const tr = document.createElement("tr");
      tr.dataset.seq = String(e.seq);
      const cells = [String(e.seq), null, e.at, null];
      cells.forEach((text, i) => {
        const td = document.createElement("td");
        if (i === 0) td.className = "num";
        if (i === 1) td.appendChild(pill(e.phase));
        else if (i === 3) {
          const code = document.createElement("code");
          code.className = "data";
          code.textContent = e.data;
          td.appendChild(code);
        } else td.textContent = text;
        tr.appendChild(td);
      });
      tbody.appendChild(tr);
      after = e.seq;
    }
    if (body.running) {
      setTimeout(tick, 1000);
    } else {
      // The run ended: reload once for the final summary.
      const live = document.getElementById("live");
      if (live) live.textContent = `The run ended: ${body.status}.`;
      setTimeout(() => window.location.reload(), 800);
    }
  };
  setTimeout(tick, 1000);
}

document.addEventListener("DOMContentLoaded", () => {
  const tbody = document.getElementById("event-rows");
  if (tbody && tbody.dataset.running === "true") followEvents(tbody);
});
