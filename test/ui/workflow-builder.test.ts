// The workflow builder in a real browser against the real server on loopback, driven as a
// user would: build a workflow of code steps (add, rename, remove, reorder by keyboard), run it
// through its HTTP endpoint, edit it, test a step on a typed event, delete it. Also at 390 px wide.
// With SLUICE_SCREENSHOTS=1 the builder's screenshot becomes docs/workflow-builder.png.
import assert from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Locator, Page } from "playwright-core";
import { BROWSER_SKIP, launchBrowser, recordPageProblems, logIn, typeInEditor } from "../helpers/browser.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";

const DOCS = resolve(dirname(fileURLToPath(import.meta.url)), "../../../docs");
const TIMEOUT = 20_000;

const FIRST = `export default defineComponent({
  async run({ steps, $ }) {
    console.log("first got", steps.trigger.event.body.n);
    $.export("n", steps.trigger.event.body.n);
    return { n: steps.trigger.event.body.n };
  },
});`;
const DOUBLE = `export default defineComponent({
  async run({ steps, $ }) {
    const doubled = steps.first.n * 2;
    $.send.emit({ doubled });
    return doubled;
  },
});`;
const THROWAWAY = `export default { async run() { return "never kept"; } };`;

/** Replaces the text of a step's editor by keyboard, as a user would. */
const setCode = (page: Page, card: Locator, code: string) => typeInEditor(page, card.getByRole("textbox", { name: "Step code" }), code);

describe("workflow builder", { skip: BROWSER_SKIP }, () => {
  let app: TestApp;
  let account: Account;
  let browser: Browser;
  let page: Page;
  let workflowId = "";
  const problems: string[] = [];

  before(async () => {
    app = await startTestApp(DIALECTS[0]!, { runTimeoutSeconds: 10 });
    account = await app.newAccount({ plan: "paid" });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(TIMEOUT);
    recordPageProblems(page, problems);
    await page.goto(`${app.origin}/ui`);
    await logIn(page, account.apiKey);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  const card = (name: string) => page.getByRole("region", { name, exact: true });

  it("builds a workflow of code steps: adds, renames, removes and reorders them by keyboard", async () => {
    await page.getByRole("link", { name: "Workflows" }).click();
    await page.getByRole("link", { name: "New workflow" }).click();
    await page.getByRole("heading", { name: "New workflow" }).waitFor();
    await page.getByLabel("Workflow name").fill("doubler");
    assert.equal(await page.getByLabel("Starts on").inputValue(), "http");

    // The first step is there to start from; it is renamed "first".
    await card("step_1").getByLabel("Step name").fill("first");
    await setCode(page, card("first"), FIRST);
    await page.getByRole("button", { name: "Add a code step" }).click();
    await card("step_2").getByLabel("Step name").fill("double");
    await setCode(page, card("double"), DOUBLE);
    await page.getByRole("button", { name: "Add a code step" }).click();
    await setCode(page, card("step_3"), THROWAWAY);

    // Reorder with the keyboard: "double" up (the focus stays on its button), then back down.
    await page.getByRole("button", { name: "Move double up" }).focus();
    await page.keyboard.press("Enter");
    await page.getByText("double is now step 1 of 3.").waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Move down", "the first step's Move up is disabled");
    await page.keyboard.press("Enter");
    await page.getByText("double is now step 2 of 3.").waitFor();
    assert.equal(await page.getByRole("button", { name: "Move first up" }).isDisabled(), true);

    await page.getByRole("button", { name: "Remove step_3" }).click();
    await page.getByText("step_3 removed.").waitFor();
    assert.equal(await card("step_3").count(), 0);

    await page.getByRole("button", { name: "Create workflow" }).click();
    await page.waitForURL(/#\/workflows\/p_[^/]+$/);
    workflowId = decodeURIComponent(page.url().split("/").pop()!);
    const saved = (await account.api.get(`/workflows/${workflowId}`)).body.data;
    assert.equal(saved.name, "doubler");
    assert.deepEqual(
      saved.steps.map((s: any) => [s.name, s.code]),
      [
        ["first", FIRST],
        ["double", DOUBLE],
      ],
    );
  });

  it("runs the workflow through its HTTP endpoint and shows what it emitted and logged", async () => {
    await page.getByRole("heading", { name: "Workflow doubler", exact: true }).waitFor();
    await page.locator('[data-stream="default"]').locator("xpath=..").getByText("live").waitFor();
    const { endpoint_url } = (await account.api.get(`/workflows/${workflowId}`)).body.data;
    const res = await fetch(endpoint_url, { method: "POST", headers: { "content-type": "application/json" }, body: '{"n": 21}' });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    await page.locator('[data-stream="default"] .event', { hasText: '"doubled":42' }).waitFor();
    await page.locator('[data-stream="$logs"] .event', { hasText: "first got 21" }).waitFor();
  });

  it("edits the workflow: renames a step and changes its code", async () => {
    await page.getByRole("link", { name: "Edit" }).click();
    await page.getByRole("heading", { name: "Edit workflow doubler" }).waitFor();
    await card("double").getByLabel("Step name").fill("twice");
    await setCode(page, card("twice"), DOUBLE.replace("* 2", "* 3"));
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("heading", { name: "Workflow doubler", exact: true }).waitFor();
    const saved = (await account.api.get(`/workflows/${workflowId}`)).body.data;
    assert.deepEqual(
      saved.steps.map((s: any) => s.name),
      ["first", "twice"],
    );
    assert.match(saved.steps[1].code, /\* 3/);
  });

  it("tests one step, then the whole workflow, on a typed event, showing each step's result", async () => {
    await page.getByRole("link", { name: "Edit" }).click();
    await page.getByLabel("Test event (JSON)").fill('{"body": {"n": 5}}');
    await page.getByRole("button", { name: "Test through first" }).click();
    const first = page.getByRole("listitem", { name: "Result of first" });
    await first.getByText("succeeded").waitFor();
    assert.match(await first.innerText(), /Return value\s*\{"n":5\}/);
    assert.match(await first.innerText(), /Export n\s*5/);
    assert.match(await first.innerText(), /first got 5/);
    assert.equal(await page.getByRole("listitem", { name: "Result of twice" }).count(), 0, "only through the chosen step");
    if (process.env.SLUICE_SCREENSHOTS) await page.screenshot({ path: `${DOCS}/workflow-builder.png`, fullPage: true });

    // Unsaved code is what is tested: a failure shows with its error, and the next step is skipped.
    await setCode(page, card("first"), `export default { async run() { throw new RangeError("unsaved failure"); } };`);
    await page.getByRole("button", { name: "Test the workflow" }).click();
    await page.getByRole("heading", { name: /^Test failed/ }).waitFor();
    assert.match(await page.getByRole("listitem", { name: "Result of first" }).innerText(), /RangeError: unsaved failure/);
    assert.match(await page.getByRole("listitem", { name: "Result of twice" }).innerText(), /skipped/);
    const saved = (await account.api.get(`/workflows/${workflowId}`)).body.data;
    assert.equal(saved.steps[0].code, FIRST, "testing does not save");
  });

  it("is usable 390 px wide: nothing wider than the screen, every field labelled", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${app.origin}/ui#/workflows/${workflowId}/edit`);
    await page.getByRole("heading", { name: "Edit workflow doubler" }).waitFor();
    await page.getByRole("region", { name: "first" }).getByRole("textbox", { name: "Step code" }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll("input, select, textarea")]
        .filter((field) => !(field as HTMLInputElement).labels?.length && !field.getAttribute("aria-label"))
        .map((field) => field.outerHTML),
    );
    assert.deepEqual(unlabelled, []);
    if (process.env.SLUICE_SCREENSHOTS) await page.screenshot({ path: `${DOCS}/workflow-builder-390.png`, fullPage: true });
  });

  it("deletes the workflow from its page", async () => {
    await page.goto(`${app.origin}/ui#/workflows/${workflowId}`);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete" }).click();
    await page.waitForURL(/#\/workflows$/);
    await page.getByRole("heading", { name: "Workflows" }).waitFor();
    assert.equal(await page.getByRole("link", { name: "doubler" }).count(), 0);
    assert.equal((await account.api.get(`/workflows/${workflowId}`)).status, 404);
    assert.deepEqual(problems, []);
  });
});
