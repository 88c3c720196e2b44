// The dashboard's weight and its time to interactive: the size of the built bundle (as sent,
// and gzipped as a compressing proxy would send it), and how long /ui takes in headless
// Chromium from navigation until a logged-in user can work: the Sources page shown with its
// list and the code editor ready. Each sample opens a fresh browser context (an empty cache),
// against Sluice started as `npm start` runs it, on loopback.
//   node dist/bench/dashboard.js      (BENCH_DASHBOARD_SAMPLES=20 for more; SLUICE_CHROMIUM for another browser)
import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { call, createAccount } from "./lib/api.js";
import { ascending, percentile } from "./lib/percentile.js";
import { compiledRoot } from "./lib/paths.js";
import { BENCH_ADMIN_TOKEN, startSluiceServer } from "./lib/processes.js";
import { runDirectly } from "./lib/run-directly.js";

export interface DashboardReport {
  node: string;
  chromium: string;
  bundle: { files: Record<string, { bytes: number; gzipBytes: number }>; totalBytes: number; totalGzipBytes: number };
  /** Milliseconds from navigation start: DOMContentLoaded, and interactive (Sources page and editor ready). */
  domContentLoadedMs: { p50: number; p90: number };
  interactiveMs: { p50: number; p90: number; samples: number[] };
  /** Main-thread busy time until interactive (Chromium's TaskDuration and ScriptDuration): less swayed by a busy machine than wall time. */
  mainThreadMs: { taskP50: number; scriptP50: number };
  /** The machine's 1-minute load average when the bench ran, and its CPU count. */
  load: { average1m: number; cpus: number };
}

const FILES = ["app.js", "app.css", "index.html"];

function bundleSizes(): DashboardReport["bundle"] {
  const files: DashboardReport["bundle"]["files"] = {};
  for (const file of FILES) {
    const body = readFileSync(join(compiledRoot(), "ui", file));
    files[file] = { bytes: body.length, gzipBytes: gzipSync(body).length };
  }
  const values = Object.values(files);
  return {
    files,
    totalBytes: values.reduce((sum, f) => sum + f.bytes, 0),
    totalGzipBytes: values.reduce((sum, f) => sum + f.gzipBytes, 0),
  };
}

const round = (n: number) => Math.round(n);

export async function runDashboardBench(samples = Number(process.env.BENCH_DASHBOARD_SAMPLES ?? 10)): Promise<DashboardReport> {
  const bundle = bundleSizes();
  const server = await startSluiceServer();
  const browser = await chromium.launch({
    executablePath: process.env.SLUICE_CHROMIUM ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"],
  });
  try {
    const key = await createAccount(server.url, BENCH_ADMIN_TOKEN, "dashboard-bench");
    // A page with something on it: a few sources in the list.
    for (let i = 0; i < 5; i++)
      await call(server.url, "POST", "/sources", {
        key,
        json: {
          name: `bench source ${i}`,
          component_code: `export default { props: { http: "$.interface.http" }, run(e) { this.$emit(e.body); } };`,
        },
      });
    const interactive: number[] = [];
    const loaded: number[] = [];
    const tasks: number[] = [];
    const scripts: number[] = [];
    // One warm-up visit (Chromium's own start-up work), not counted.
    for (let i = 0; i <= samples; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      // The key a logged-in tab holds; the bench sets it before the page's own script runs.
      await context.addInitScript((apiKey) => sessionStorage.setItem("sluice.apiKey", apiKey), key);
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send("Performance.enable");
      await page.goto(`${server.url}/ui#/sources`, { waitUntil: "commit" });
      const at = await page.waitForFunction(
        () => {
          const heading = Array.from(document.querySelectorAll("h2")).some((h) => h.textContent === "Sources");
          const editor = document.querySelector(".editor")?.shadowRoot?.querySelector(".cm-content");
          const rows = document.querySelectorAll("tbody tr").length;
          return heading && editor && rows >= 5 ? performance.now() : false;
        },
        undefined,
        { polling: "raf", timeout: 30_000 },
      );
      const tti = (await at.jsonValue()) as number;
      const dcl = await page.evaluate(
        () => (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).domContentLoadedEventEnd,
      );
      const { metrics } = await cdp.send("Performance.getMetrics");
      const metric = (name: string) => (metrics.find((m) => m.name === name)?.value ?? NaN) * 1000;
      if (i > 0) {
        interactive.push(tti);
        loaded.push(dcl);
        tasks.push(metric("TaskDuration"));
        scripts.push(metric("ScriptDuration"));
      }
      await context.close();
    }
    const sorted = ascending(interactive);
    const dclSorted = ascending(loaded);
    return {
      node: process.version,
      chromium: browser.version(),
      bundle,
      domContentLoadedMs: { p50: round(percentile(dclSorted, 50)), p90: round(percentile(dclSorted, 90)) },
      interactiveMs: { p50: round(percentile(sorted, 50)), p90: round(percentile(sorted, 90)), samples: interactive.map(round) },
      mainThreadMs: { taskP50: round(percentile(ascending(tasks), 50)), scriptP50: round(percentile(ascending(scripts), 50)) },
      load: { average1m: Number(loadavg()[0]!.toFixed(1)), cpus: availableParallelism() },
    };
  } finally {
    await browser.close();
    await server.stop();
  }
}

runDirectly(import.meta.url, () => runDashboardBench());
