// The dashboard's workflow runs, action steps and trigger choices, driven as a user would: build
// a three-step workflow with a registry action and code steps, run it and read each step's
// result in the run view; resume a paused run with data and cancel another; pick a schedule,
// a source and e-mail as the trigger. These need the runs API (GET /v1/workflows/{id}/runs,
// durable runs, $.flow.suspend), action steps with props, and the `trigger` field of workflows.
import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Locator, Page } from "playwright-core";
import { BROWSER_SKIP, launchBrowser, logIn, typeInEditor } from "../helpers/browser.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";

const DOCS = resolve(dirname(fileURLToPath(import.meta.url)), "../../../docs");
const TIMEOUT = 20_000;

const SHOUT_ACTION = `export default {
  key: "shout-text",
  name: "Shout text",
  version: "0.1.0",
  type: "action",
  description: "Returns the text in capitals, repeated",
  props: {
    text: { type: "string", label: "Text", description: "What to shout" },
    times: { type: "integer", label: "Times", default: 1, optional: true },
  },
  async run({ $ }) {
    $.export("$summary", "shouted " + this.text);
    return this.text.toUpperCase().repeat(this.times ?? 1);
  },
};`;

const READ_BODY = `export default defineComponent({
  async run({ steps }) {
    console.log("body", JSON.stringify(steps.trigger.event.body));
    return steps.trigger.event.body;
  },
});`;
const USE_ACTION = `export default defineComponent({
  async run({ steps, $ }) {
    return steps.shout_text.$return_value + "!" + steps.step_1.$return_value.n;
  },
});`;
const SUSPEND = `export default defineComponent({
  async run({ $ }) {
    const urls = $.flow.suspend(60000);
    $.export("urls", urls);
  },
});`;
const AFTER_RESUME = `export default defineComponent({
  async run({ steps }) {
    return { resumed_with: steps.wait.$resume_data };
  },
});`;

/** Replaces the text of a step's editor by keyboard, as a user would. */
const setCode = (page: Page, card: Locator, code: string) => typeInEditor(page, card.getByRole("textbox", { name: "Step code" }), code);

describe("workflow runs, action steps and triggers in the dashboard", { skip: BROWSER_SKIP }, () => {
  let app: TestApp;
  let account: Account;
  let browser: Browser;
  let page: Page;

  before(async () => {
    const registryDir = await mkdtemp(join(tmpdir(), "sluice-registry-"));
    await writeFile(join(registryDir, "shout-text.mjs"), SHOUT_ACTION);
    app = await startTestApp(DIALECTS[0]!, { runTimeoutSeconds: 10, registryDir });
    account = await app.newAccount({ plan: "paid" });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(TIMEOUT);
    await page.goto(`${app.origin}/ui`);
    await logIn(page, account.apiKey);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  const card = (name: string) => page.getByRole("region", { name, exact: true });
  const post = async (url: string, body: unknown) => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  };
  /** Opens the workflow's runs and refreshes until a run in `status` is listed; answers its link. */
  const runListed = async (workflowId: string, status: string) => {
    await page.goto(`${app.origin}/ui#/workflows/${workflowId}/runs`);
    await page.getByRole("heading", { name: /^Runs of/ }).waitFor();
    const row = page.getByRole("row").filter({ has: page.getByRole("cell", { name: status, exact: true }) });
    await waitFor(
      async () => {
        if ((await row.count()) > 0) return true;
        await page.getByRole("button", { name: "Refresh" }).click();
        return false;
      },
      { timeoutMs: TIMEOUT, what: `a ${status} run` },
    );
    return row.first();
  };

  it("builds a three-step workflow with an action and code steps, runs it, and shows each step's result", async () => {
    await page.goto(`${app.origin}/ui#/workflows/new`);
    await page.getByLabel("Workflow name").fill("shouter");
    await setCode(page, card("step_1"), READ_BODY);
    await page.getByRole("button", { name: "Add an action" }).click();
    await page.getByLabel("Search actions").fill("capitals");
    await page.getByRole("button", { name: "Add Shout text" }).click();
    const action = card("shout_text");
    await action.getByLabel("Text", { exact: true }).fill("hey");
    await action.getByLabel("Times (optional)").fill("2");
    await page.getByRole("button", { name: "Add a code step" }).click();
    await setCode(page, card("step_3"), USE_ACTION);
    await page.getByRole("button", { name: "Create workflow" }).click();
    await page.waitForURL(/#\/workflows\/p_[^/]+$/);
    const id = decodeURIComponent(page.url().split("/").pop()!);
    const saved = (await account.api.get(`/workflows/${id}`)).body.data;
    assert.deepEqual(
      saved.steps.map((s: any) => [s.name, s.type]),
      [
        ["step_1", "code"],
        ["shout_text", "action"],
        ["step_3", "code"],
      ],
    );
    assert.equal(saved.steps[1].action, "shout-text");
    assert.deepEqual(saved.steps[1].props, { text: "hey", times: 2 });

    await post(saved.endpoint_url, { n: 7 });
    const row = await runListed(id, "succeeded");
    assert.match(await row.innerText(), /shouted hey/, "the run's $summary");
    assert.match(await row.innerText(), /\d+(\.\d+)? m?s/, "its duration");
    await row.getByRole("link").click();
    await page.getByRole("heading", { name: /^Run run_/ }).waitFor();
    assert.match(await page.getByRole("listitem", { name: "Result of step_1" }).innerText(), /\{"n":7\}[\s\S]*body \{"n":7\}/);
    assert.match(await page.getByRole("listitem", { name: "Result of shout_text" }).innerText(), /"HEYHEY"/);
    assert.match(await page.getByRole("listitem", { name: "Result of step_3" }).innerText(), /"HEYHEY!7"/);
    if (process.env.SLUICE_SCREENSHOTS) await page.screenshot({ path: `${DOCS}/workflow-run.png`, fullPage: true });
  });

  it("fills the test event with the last trigger event", async () => {
    const { data } = (await account.api.get("/users/me/workflows", { limit: 100 })).body;
    const id = data.find((w: any) => w.name === "shouter").id;
    await page.goto(`${app.origin}/ui#/workflows/${id}/edit`);
    await page.getByRole("button", { name: "Use the last trigger event" }).click();
    await waitFor(async () => /"n": 7/.test(await page.getByLabel("Test event (JSON)").inputValue()), TIMEOUT);
  });

  it("resumes a paused run with data, and cancels another", async () => {
    const created = await account.api.post("/workflows", {
      name: "approval",
      steps: [
        { name: "wait", code: SUSPEND },
        { name: "after", code: AFTER_RESUME },
      ],
    });
    assert.equal(created.status, 200, created.text);
    const wf = created.body.data;

    await post(wf.endpoint_url, { ask: 1 });
    await (await runListed(wf.id, "paused")).getByRole("link").click();
    await page.getByRole("heading", { name: "Paused: waiting to be resumed" }).waitFor();
    await page.getByLabel("Resume data (JSON, optional)").fill('{"approved": true}');
    await page.getByRole("button", { name: "Resume" }).click();
    await waitFor(
      async () => {
        await page.reload();
        await page.getByRole("heading", { name: /^Run run_/ }).waitFor();
        return /succeeded/.test(await page.locator("dd.run-status").innerText());
      },
      { timeoutMs: TIMEOUT, what: "the resumed run to succeed" },
    );
    assert.match(await page.getByRole("listitem", { name: "Result of after" }).innerText(), /"resumed_with":\{"approved":true\}/);

    await post(wf.endpoint_url, { ask: 2 });
    await (await runListed(wf.id, "paused")).getByRole("link").click();
    await page.getByRole("button", { name: "Cancel run" }).click();
    await waitFor(
      async () => {
        await page.reload();
        await page.getByRole("heading", { name: /^Run run_/ }).waitFor();
        return /cancelled/.test(await page.locator("dd.run-status").innerText());
      },
      { timeoutMs: TIMEOUT, what: "the run to be cancelled" },
    );
  });

  it("offers a schedule, a source and e-mail as the trigger, and saves the choice", async () => {
    const source = await account.api.post("/sources", {
      name: "feeder",
      component_code: `export default { props: { http: "$.interface.http" }, run(e) { this.$emit(e.body); } };`,
    });
    assert.equal(source.status, 200, source.text);

    const build = async (name: string, choose: () => Promise<void>) => {
      await page.goto(`${app.origin}/ui#/workflows/new`);
      await page.getByLabel("Workflow name").fill(name);
      await choose();
      await page.getByRole("button", { name: "Create workflow" }).click();
      await page.waitForURL(/#\/workflows\/p_[^/]+$/);
      return (await account.api.get(`/workflows/${decodeURIComponent(page.url().split("/").pop()!)}`)).body.data;
    };

    const timer = await build("every minute", async () => {
      await page.getByLabel("Starts on").selectOption({ label: "Schedule" });
      await page.getByLabel("Every (seconds)").fill("60");
    });
    assert.equal(timer.trigger.type, "timer");
    assert.equal(timer.trigger.intervalSeconds, 60);
    await page.getByText("schedule: every 60 s").waitFor();

    const cron = await build("weekday mornings", async () => {
      await page.getByLabel("Starts on").selectOption({ label: "Schedule" });
      await page.getByLabel("Cron expression").fill("0 9 * * 1-5");
      await page.getByLabel("Time zone of the cron schedule (optional)").fill("Europe/Paris");
    });
    assert.deepEqual([cron.trigger.type, cron.trigger.cron, cron.trigger.timezone], ["timer", "0 9 * * 1-5", "Europe/Paris"]);
    await page.getByText("schedule: cron 0 9 * * 1-5 (Europe/Paris)").waitFor();

    const fromSource = await build("from feeder", async () => {
      await page.getByLabel("Starts on").selectOption({ label: "Events of a source" });
      await page.getByLabel("Source", { exact: true }).selectOption({ label: "feeder" });
    });
    assert.deepEqual([fromSource.trigger.type, fromSource.trigger.source_id], ["source", source.body.data.id]);

    const mail = await build("by mail", async () => {
      await page.getByLabel("Starts on").selectOption({ label: "E-mail" });
    });
    assert.equal(mail.trigger.type, "email");
    const address = mail.trigger.email_address;
    assert.ok(address, "an e-mail trigger shows its address");
    await page.getByText(address).waitFor();

    // Editing keeps the trigger, and another choice replaces it.
    await page.getByRole("link", { name: "Edit" }).click();
    assert.equal(await page.getByLabel("Starts on").inputValue(), "email");
    await page.getByLabel("Starts on").selectOption({ label: "HTTP request" });
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("heading", { name: "Workflow by mail", exact: true }).waitFor();
    assert.equal((await account.api.get(`/workflows/${mail.id}`)).body.data.trigger.type, "http");
  });
});
