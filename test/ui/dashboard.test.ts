// The dashboard in a real browser against the real server on loopback: log in, create a source,
// see its events arrive live, see markup in an event shown as text (and not run), read an event
// over 1 KB in full, see a failing webhook's delivery with its attempts and resend it, see a
// workflow's error and replay it. (The README's screenshot is made by sources.test.ts.)
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { BROWSER_SKIP, launchBrowser, recordPageProblems } from "../helpers/browser.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";
import { Receiver } from "../delivery/receiver.js";

const TIMEOUT = 20_000;

describe("web dashboard", { skip: BROWSER_SKIP }, () => {
  let app: TestApp;
  let account: Account;
  let browser: Browser;
  let page: Page;
  let receiver: Receiver;
  const requested: string[] = [];
  const problems: string[] = [];
  let sourceId = "";
  let endpoint = "";

  before(async () => {
    receiver = await new Receiver().start();
    app = await startTestApp(DIALECTS[0]!, { allowPrivateEgress: true, webhookRetryScheduleSeconds: [0.05] });
    account = await app.newAccount({ plan: "paid" });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(TIMEOUT);
    page.on("request", (request) => requested.push(request.url()));
    // CSP violations and script errors show up here; a working page has none.
    recordPageProblems(page, problems, { responses: true });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await receiver?.close();
  });

  const post = async (body: unknown) => {
    const res = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  };

  it("logs in with an API key and creates a source from code", async () => {
    await page.goto(`${app.origin}/ui`);
    await page.getByLabel("API key").fill("sk_sluice_not_a_key");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("alert").waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0, "a refused key is not kept");
    assert.deepEqual(problems.splice(0), [`401 ${app.baseUrl}/users/me`]);
    await page.getByLabel("API key").fill(account.apiKey);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Sources" }).waitFor();
    assert.deepEqual(await page.evaluate(() => Object.keys(sessionStorage)), ["sluice.apiKey"]);
    assert.equal(await page.evaluate(() => localStorage.length), 0);
    // The editor is CodeMirror, holding an HTTP source to start from.
    await page.locator(".cm-content").waitFor();
    assert.match(await page.locator(".cm-content").innerText(), /\$\.interface\.http/);
    await page.getByLabel("Name").fill("dashboard demo");
    await page.getByRole("button", { name: "Deploy" }).click();
    await page.waitForURL(/#\/sources\/[^/]+$/);
    sourceId = decodeURIComponent(page.url().split("/").pop()!);
    endpoint = (await page.locator("code.endpoint").innerText()).trim();
    assert.match(endpoint, /^http:\/\/127\.0\.0\.1:\d+\/e\//);
  });

  it("shows an event as it arrives, with its $logs", async () => {
    await page.locator('[data-stream="default"]').locator("xpath=..").getByText("live").waitFor();
    await post({ greeting: "hello from the test" });
    await page.locator('[data-stream="default"] .event', { hasText: "hello from the test" }).waitFor();
    await page.locator('[data-stream="$logs"] .event', { hasText: "received" }).waitFor();
  });

  it("shows markup in an event as text, and never runs it", async () => {
    const img = "<img src=x onerror=\"window.__pwned='img'\">";
    const script = "<script>window.__pwned='script'</script>";
    await post({ img, script });
    const item = page.locator('[data-stream="default"] .event', { hasText: "onerror" });
    await item.waitFor();
    await item.locator("details.json summary").first().click();
    const shown = await item.locator("pre").first().innerText();
    assert.ok(shown.includes(img.replaceAll('"', '\\"')), shown);
    assert.ok(shown.includes(script), shown);
    assert.equal(await page.locator(".events img, .events script").count(), 0);
    assert.equal(await page.evaluate(() => (window as any).__pwned), undefined);
  });

  it("shows an event over 1 KB in full, also after a reload", async () => {
    await post({ big: "x".repeat(2000), tail: "end-of-big-event" });
    // The live tail sends events whole; the recent events read on opening cut them short.
    await page.locator('[data-stream="default"] .event pre', { hasText: "end-of-big-event" }).waitFor({ state: "attached" });
    await page.reload();
    const item = page.locator('[data-stream="default"] .event', { hasText: "$truncated" });
    await item.waitFor();
    await item.getByRole("button", { name: "Load the full event" }).click();
    await item.locator("details.json[open] pre", { hasText: "end-of-big-event" }).waitFor();
  });

  it("shows a failed delivery's attempts and resends it", async () => {
    const url = receiver.on("/failing", () => ({ status: 500, body: "receiver is down" }));
    await page.goto(`${app.origin}/ui#/webhooks`);
    await page.getByLabel("webhook URL").fill(url);
    await page.getByRole("button", { name: "Create" }).click();
    // The list shows the new webhook at once.
    await page.getByRole("row").filter({ hasText: url }).waitFor();
    await page.getByRole("link", { name: "Open the webhook" }).click();
    await page.waitForURL(/#\/webhooks\/[^/]+$/);
    const hookId = decodeURIComponent(page.url().split("/").pop()!);
    await page.getByRole("link", { name: "Subscriptions" }).click();
    // Emitter and listener are picked by name; the options carry the ids.
    await page.getByLabel("Emitter").selectOption(sourceId);
    await page.getByLabel("Listener").selectOption(hookId);
    await page.getByRole("button", { name: "Subscribe" }).click();
    await page.getByRole("cell", { name: hookId }).waitFor();
    await page.goto(`${app.origin}/ui#/webhooks/${hookId}`);

    await post({ order: 42 });
    const delivery = page.locator(".delivery.failed");
    await delivery.waitFor();
    const attemptsBefore = await delivery.locator("tr.attempt").count();
    assert.ok(attemptsBefore >= 2, `attempts shown: ${attemptsBefore}`);
    assert.match(await delivery.locator("tr.attempt").first().innerText(), /500/);
    assert.equal(receiver.at("/failing").length, attemptsBefore);

    await delivery.getByRole("button", { name: "Resend" }).click();
    await waitFor(() => receiver.at("/failing").length > attemptsBefore, TIMEOUT);
    await page.waitForFunction((n) => document.querySelectorAll(".delivery.failed tr.attempt").length > n, attemptsBefore, {
      timeout: TIMEOUT,
    });
  });

  it("shows a workflow's steps and its errors live, and replays one", async () => {
    const steps = [
      {
        name: "always_fails",
        code: `export default { async run() { console.log("about to fail"); throw new TypeError("boom from step"); } };`,
      },
    ];
    const created = await account.api.post("/workflows", { name: "failing flow", steps });
    assert.equal(created.status, 200, created.text);
    const workflow = created.body.data;
    await page.getByRole("link", { name: "Workflows" }).click();
    await page.getByRole("link", { name: "failing flow" }).click();
    await page.getByText("always_fails").waitFor();
    await page.locator('[data-stream="$errors"]').locator("xpath=..").getByText("live").waitFor();
    const res = await fetch(workflow.endpoint_url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const error = page.locator('[data-stream="$errors"] .event', { hasText: "boom from step" });
    await error.waitFor();
    await page.locator('[data-stream="$logs"] .event', { hasText: "about to fail" }).waitFor();
    await error.getByRole("button", { name: "Replay" }).click();
    await error.getByRole("button", { name: "Replay queued" }).waitFor();
    // The replay fails the same way: a second error arrives.
    await page.waitForFunction(() => document.querySelectorAll('[data-stream="$errors"] .event').length >= 2, undefined, {
      timeout: TIMEOUT,
    });
  });

  it("deactivates, activates and deletes a source", async () => {
    await page.goto(`${app.origin}/ui#/sources/${sourceId}`);
    await page.getByText("Code and props", { exact: true }).click();
    await page.locator(".cm-content", { hasText: "$.interface.http" }).waitFor();
    await page.getByRole("button", { name: "Deactivate" }).click();
    await page.locator(".source-state", { hasText: "inactive" }).waitFor();
    await page.getByRole("button", { name: "Activate" }).click();
    await page.locator(".source-state", { hasText: /^active$/ }).waitFor();
    assert.equal((await page.locator("code.endpoint").innerText()).trim(), endpoint, "same endpoint");
    await page.getByRole("heading", { name: "Source dashboard demo" }).waitFor();
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete" }).click();
    await page.waitForURL(/#\/sources$/);
    await page.getByText("No sources yet.").waitFor();
    assert.equal((await account.api.get(`/sources/${sourceId}`)).status, 404);
  });

  it("shows usage and quotas, and never puts the key in a URL", async () => {
    await page.getByRole("link", { name: "Usage" }).click();
    // Human units: "<n> bytes of 1 GB (0 %)".
    await page.getByText(/ of 1 GB \(0 %\)$/).waitFor();
    assert.deepEqual(
      requested.filter((u) => u.includes(account.apiKey)),
      [],
    );
    assert.deepEqual(problems, []);
  });
});
