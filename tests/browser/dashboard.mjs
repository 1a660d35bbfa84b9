// Drives the dashboard in Debian's headless Chromium.
//
//   node tests/browser/dashboard.mjs <base_url> <key> <outdir>
//
// <base_url> is the server's origin (http://127.0.0.1:PORT), <key> a
// fn_test_ key with every scope whose account has a finished session and a
// second active key. Each step takes a screenshot into <outdir> and checks
// what the page shows; the exit status is 0 only if every check passed.

import { chromium } from "playwright-core";
import { mkdtempSync, mkdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [base, key, outdir] = process.argv.slice(2);
if (!base || !key || !outdir) {
  console.error("usage: node dashboard.mjs <base_url> <key> <outdir>");
  process.exit(2);
}
mkdirSync(outdir, { recursive: true });

const failures = [];
let passed = 0;
function check(cond, what) {
  if (cond) {
    passed += 1;
    console.log(`ok   ${what}`);
  } else {
    failures.push(what);
    console.log(`FAIL ${what}`);
  }
}

// What the API says, to compare with what the pages show.
async function api(path) {
  const r = await fetch(`${base}/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  if (!r.ok) throw new Error(`GET /v1${path}: ${r.status}`);
  return r.json();
}

async function shot(page, name) {
  const file = join(outdir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  const size = statSync(file).size;
  check(size > 8000, `${name}.png was rendered (${size} bytes)`);
}

async function visible(page, text, what) {
  const ok = await page
    .getByText(text, { exact: false })
    .first()
    .isVisible()
    .catch(() => false);
  check(ok, `${what}: "${text}" is visible`);
}

const userDataDir = mkdtempSync(join(tmpdir(), "fnhost-chromium-"));
// A new, empty profile: launchPersistentContext passes it as --user-data-dir.
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1280, height: 900 },
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

try {
  const page = context.pages()[0] || (await context.newPage());
  page.setDefaultTimeout(15000);
  // Confirmation questions are answered yes; any other dialog (an alert
  // from injected markup) is a failure.
  page.on("dialog", async (d) => {
    if (d.type() !== "confirm") failures.push(`unexpected ${d.type()} dialog: ${d.message()}`);
    await d.accept();
  });
  const consoleErrors = [];
  page.on("console", (m) => {
    // The bad-key step is answered 401 on purpose.
    if (m.type() === "error" && !m.text().includes("status of 401")) consoleErrors.push(m.text());
  });
  // Nothing may be requested outside the server.
  const outside = [];
  page.on("request", (r) => {
    if (!r.url().startsWith(base)) outside.push(r.url());
  });

  // 1. A bad key is refused on the sign-in page.
  await page.goto(`${base}/dashboard/login`);
  await page.fill("#key", "fn_test_" + "x".repeat(32));
  await page.click("#sign-in");
  await page.waitForLoadState();
  check(page.url().endsWith("/dashboard/login"), "a bad key stays on the sign-in page");
  await visible(page, "That API key is not valid", "bad key");
  await shot(page, "01-login-bad-key");

  // 2. Sign in with the real key: the balance page.
  await page.fill("#key", key);
  await page.click("#sign-in");
  await page.waitForURL(/\/dashboard\/balance$/);
  await visible(page, "Open reserves", "balance page");
  await visible(page, "TEST MODE", "test-mode banner");
  const cookies = await context.cookies();
  const sessionCookie = cookies.find((c) => c.name === "fnhost_dash");
  check(!!sessionCookie && sessionCookie.httpOnly && sessionCookie.sameSite === "Strict" && sessionCookie.path === "/dashboard", "the session cookie is HttpOnly, SameSite=Strict, Path=/dashboard");
  check(!(await page.evaluate(() => document.cookie)).includes("fnhost_dash"), "the session cookie is not readable by scripts");
  const bars = await page.locator("#spend-chart rect.bar").count();
  check(bars === 30, `the spend chart has a bar per day (${bars})`);
  const usage = await api("/usage");
  const spentDays = usage.by_day.filter((d) => d.spend_usd > 0).length;
  const spent = await page.locator("#spend-chart rect.bar:not([height='0.0'])").count();
  check(spent === spentDays, `the spend chart has a bar for each day with spend (${spent} of ${spentDays})`);
  await shot(page, "02-balance");

  // 3. The sessions list.
  await page.click("nav.tabs >> text=Sessions");
  await page.waitForURL(/\/dashboard\/sessions$/);
  await visible(page, "tents under $200 from outdoor-gear.example", "sessions list");
  const sessionLinks = page.locator("#sessions tbody a");
  check((await sessionLinks.count()) >= 1, "the sessions list has a session");
  await shot(page, "03-sessions");

  // 4. One session's rows.
  await sessionLinks.first().click();
  await page.waitForURL(/\/dashboard\/sessions\/ses_[A-Za-z0-9]+$/);
  await visible(page, "answered", "session status");
  const sessionId = page.url().split("/").pop();
  const session = await api(`/sessions/${sessionId}`);
  const rows = await page.locator("#rows tbody tr").count();
  check(rows === Math.min(session.records, 50), `the session's rows are listed (${rows} of ${session.records})`);
  if (session.records === 0) await visible(page, "This session has no rows", "empty rows");
  await shot(page, "04-session-rows");

  // 5. Its events and receipts.
  await page.click("nav.subtabs >> text=Events");
  await page.waitForURL(/\/events$/);
  const events = await page.locator("#event-rows tr").count();
  check(events >= 3, `the event log is shown (${events} events)`);
  await visible(page, "answered", "terminal event");
  await shot(page, "05-session-events");
  await page.click("nav.subtabs >> text=Receipts");
  await page.waitForURL(/\/receipts$/);
  const receipts = await page.locator("#receipts tbody tr").count();
  check(receipts === session.receipts_signed, `the receipts are listed (${receipts} of ${session.receipts_signed})`);
  await shot(page, "06-session-receipts");

  // 6. Rotate the default webhook secret.
  await page.click("nav.tabs >> text=Webhook secret");
  await page.waitForURL(/\/dashboard\/webhook-secret$/);
  await page.click("#reveal");
  await page.waitForSelector("#secret-value");
  const before = (await page.textContent("#secret-value")).trim();
  check(before.startsWith("whsec_"), "the secret is revealed");
  await shot(page, "07-secret-revealed");
  await page.click("#rotate");
  await page.waitForURL(/\/dashboard\/webhook-secret\?done=rotated$/);
  await visible(page, "The secret was rotated", "rotation");
  await visible(page, "still signs alongside", "rotation overlap");
  await page.click("#reveal");
  await page.waitForSelector("#secret-value");
  const after = (await page.textContent("#secret-value")).trim();
  check(after.startsWith("whsec_") && after !== before, "rotation made a new secret");
  await shot(page, "08-secret-rotated");

  // 7. Webhooks.
  await page.click("nav.tabs >> text=Webhooks");
  await page.waitForURL(/\/dashboard\/webhooks$/);
  await visible(page, "Endpoints receive signed events", "webhooks page");
  await shot(page, "09-webhooks");

  // 8. Revoke a key other than the one signed in.
  await page.click("nav.tabs >> text=Keys");
  await page.waitForURL(/\/dashboard\/keys$/);
  const other = page.locator("#keys tbody tr:not(.this-key)").filter({ has: page.locator("form.revoke") }).first();
  const otherId = await other.getAttribute("data-key-id");
  check(!!otherId, "there is another active key to revoke");
  await shot(page, "10-keys");
  await other.locator("form.revoke button").click();
  await page.waitForURL(/\/dashboard\/keys\?done=revoked$/);
  await visible(page, "The key was revoked", "revocation");
  const row = page.locator(`#keys tr[data-key-id="${otherId}"]`);
  check((await row.locator(".pill", { hasText: "revoked" }).count()) === 1, "the key shows as revoked");
  check((await row.locator("form.revoke").count()) === 0, "a revoked key has no revoke button");
  await shot(page, "11-key-revoked");

  // 9. Sign out.
  await page.click("#sign-out");
  await page.waitForURL(/\/dashboard\/login\?m=signed_out$/);
  await visible(page, "You are signed out", "sign-out");
  await page.goto(`${base}/dashboard/balance`);
  check(page.url().includes("/dashboard/login"), "after sign-out the dashboard asks to sign in");
  await shot(page, "12-signed-out");

  check(outside.length === 0, `no request left the server (${outside.join(", ")})`);
  check(consoleErrors.length === 0, `no console errors (${consoleErrors.join(" | ")})`);
} catch (e) {
  failures.push(`error: ${e && e.stack ? e.stack : e}`);
  console.log(`FAIL ${e}`);
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}

console.log(`${passed} passed, ${failures.length} failed`);
for (const f of failures) console.log(`  - ${f}`);
process.exit(failures.length === 0 ? 0 : 1);
