// A monitor's dashboard page in Debian's headless Chromium.
//
//   node tests/browser/monitor.mjs <base_url> <key> <monitor_id> <outdir>
//
// Signs in with <key>, opens the monitors list and the monitor's page, and
// checks its price-history chart, changes and runs; a screenshot of each
// page goes into <outdir>. Exit status 0 only if every check passed.

import { chromium } from "playwright-core";
import { mkdtempSync, mkdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [base, key, monitor, outdir] = process.argv.slice(2);
if (!base || !key || !monitor || !outdir) {
  console.error("usage: node monitor.mjs <base_url> <key> <monitor_id> <outdir>");
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
async function shot(page, name) {
  const file = join(outdir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  const size = statSync(file).size;
  check(size > 8000, `${name}.png was rendered (${size} bytes)`);
}

const userDataDir = mkdtempSync(join(tmpdir(), "fnhost-chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1280, height: 900 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = context.pages()[0] || (await context.newPage());
  page.setDefaultTimeout(15000);
  const outside = [];
  page.on("request", (r) => {
    if (!r.url().startsWith(base)) outside.push(r.url());
  });
  await page.goto(`${base}/dashboard/login`);
  await page.fill("#key", key);
  await page.click("#sign-in");
  await page.waitForURL(/\/dashboard\/balance$/);
  await page.click("nav.tabs >> text=Monitors");
  await page.waitForURL(/\/dashboard\/monitors$/);
  check(await page.locator(`#monitors a[href="/dashboard/monitors/${monitor}"]`).isVisible(), "the monitor is listed");
  await shot(page, "21-monitors");
  await page.click(`#monitors a[href="/dashboard/monitors/${monitor}"]`);
  await page.waitForURL(new RegExp(`/dashboard/monitors/${monitor}$`));
  const charts = await page.locator("#price-history figure.price-chart").count();
  check(charts === 2, `a price chart per product (${charts})`);
  const amber = page.locator("#price-history figure.price-chart", { hasText: "Amber Lamp" });
  const points = await amber.locator("circle.point").count();
  check(points >= 3, `Amber Lamp's chart has a point per run (${points})`);
  const line = await amber.locator("polyline.price").getAttribute("points");
  const ys = line.split(" ").map((p) => Number(p.split(",")[1]));
  check(new Set(ys).size >= 2, `the price line moves (${line})`);
  check(await page.getByText("Amber Lamp rose 10 %").first().isVisible(), "the latest changes are listed");
  const runs = await page.locator("#runs tbody tr").count();
  check(runs >= 3, `the runs are listed (${runs})`);
  await shot(page, "22-monitor-price-history");
  check(outside.length === 0, `no request left the server (${outside.join(", ")})`);
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
