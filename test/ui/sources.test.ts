// Sources in the dashboard, driven in a real browser as a user would: `/` leads to the
// dashboard; code with a syntax error is marked at its line; a source is created from code
// with its props form (a text prop with a default, a number, an options list, async options
// loaded from the component's options() and paged with prevContext, a timer,
// an app prop picking a connected account, an alert shown as a note) and its first event is
// seen; its props are edited; a published source is found in the registry and deployed with
// its props form. With SLUICE_SCREENSHOTS=1 the screenshots go to docs/ (the README's picture
// is docs/dashboard.png).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { BROWSER_SKIP, launchBrowser, recordPageProblems, logIn, typeInEditor } from "../helpers/browser.js";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { startNpmRegistry, type NpmRegistry } from "../helpers/npm-registry.js";
import { screenshotPath } from "../helpers/screenshots.js";
import { ADMIN_TOKEN, startTestApp, type Account, type TestApp } from "../helpers/test-app.js";

const TIMEOUT = 30_000;

const BROKEN = `export default {
  name: "broken",
  async run(event) {
    const total = 1 +;
  },
};
`;

const GREETER = `export default {
  name: "Greeter",
  version: "0.1.0",
  props: {
    chat: { type: "app", app: "chat" },
    notice: { type: "alert", alertType: "info", content: "Post JSON to the endpoint to greet someone." },
    channel: { type: "string", label: "Channel", description: "Where greetings go", default: "general" },
    limit: { type: "integer", label: "Limit", optional: true },
    color: { type: "string", label: "Color", options: ["red", "green"] },
    board: { type: "string", label: "Board", optional: true, async options() { return [{ label: "Main board", value: "b1" }]; } },
    timer: { type: "$.interface.timer", default: { intervalSeconds: 3600 } },
    http: "$.interface.http",
  },
  async run(event) {
    if (!event?.body) return;
    const who = event.body?.name ?? "someone";
    console.log("greeting", who);
    this.$emit(
      { greeting: "Hello " + who + " in #" + this.channel, limit: this.limit, color: this.color, key: this.chat.$auth.api_key },
      { summary: "greeted " + who },
    );
  },
};
`;

/** A registry package in the shape of @pipedream/<app>: an app file and one source. */
const WEATHER = {
  name: "@sluice-test/weather",
  version: "1.0.0",
  main: "weather.app.mjs",
  files: {
    "weather.app.mjs": `export default { type: "app", app: "weather", propDefinitions: {} };\n`,
    "sources/new-reading/new-reading.mjs": `export default {
  key: "weather-new-reading",
  name: "New Weather Reading",
  version: "1.0.0",
  type: "source",
  description: "Emit each weather reading posted to the endpoint",
  props: {
    about: { type: "alert", alertType: "warning", content: "Readings are not checked." },
    city: { type: "string", label: "City", description: "Whose weather", options: ["Oslo", "Lima"] },
    http: "$.interface.http",
  },
  async run(event) {
    this.$emit({ city: this.city, reading: event.body }, { summary: "reading for " + this.city });
  },
};
`,
  },
};

describe("sources in the dashboard", { skip: BROWSER_SKIP }, () => {
  let registry: NpmRegistry;
  let app: TestApp;
  let account: Account;
  let browser: Browser;
  let page: Page;
  let chatAccount = "";
  const problems: string[] = [];

  before(async () => {
    registry = await startNpmRegistry();
    registry.publish(WEATHER);
    app = await startTestApp(DIALECTS[0]!, { npmRegistry: registry.url });
    account = await app.newAccount({ plan: "paid" });
    const added = await request(app.baseUrl, "POST", "/admin/registry/packages", { key: ADMIN_TOKEN, json: { name: WEATHER.name } });
    assert.equal(added.status, 200, added.text);
    const chat = await account.api.post("/accounts", { app: "chat", name: "team chat", credentials: { api_key: "chat-key-1" } });
    assert.equal(chat.status, 200, chat.text);
    chatAccount = chat.body.data.id;
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(TIMEOUT);
    recordPageProblems(page, problems);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await registry?.close();
  });

  const typeCode = (code: string) => typeInEditor(page, page.locator(".cm-content"), code);

  it("/ leads to the dashboard", async () => {
    const res = await fetch(`${app.origin}/`, { redirect: "manual" });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), "/ui");
    await res.arrayBuffer();
    await page.goto(`${app.origin}/`);
    assert.equal(new URL(page.url()).pathname, "/ui");
    await logIn(page, account.apiKey);
  });

  it("marks a syntax error at its line in the editor", async () => {
    await typeCode(BROKEN);
    await page.getByRole("button", { name: "Deploy" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "SyntaxError" });
    await alert.waitFor();
    assert.match(await alert.innerText(), /^Line 4: /);
    const marked = page.locator(".cm-lintRange-error");
    await marked.waitFor();
    assert.equal(await marked.count(), 1);
    // The mark is on the line with the error, and the cursor was put there.
    assert.match(await page.locator(".cm-activeLine").innerText(), /const total = 1 \+;/);
  });

  it("creates a source from code with its props form, and shows its first event", async () => {
    await typeCode(GREETER);
    await page.getByRole("button", { name: "Check code" }).click();
    await page.getByText("The code is fine.").waitFor();
    assert.equal(await page.locator(".cm-lintRange-error").count(), 0, "the old mark is gone");
    // Labels, descriptions, defaults, optional marks and an alert as a note.
    await page.getByRole("note").filter({ hasText: "Post JSON to the endpoint to greet someone." }).waitFor();
    assert.equal(await page.getByLabel("Channel").inputValue(), "general");
    assert.equal(
      await page
        .getByLabel("Channel")
        .getAttribute("aria-describedby")
        .then((id) => page.locator(`#${id}`).innerText()),
      "Where greetings go",
    );
    await page.getByText("Limit (optional)").waitFor();
    // An app prop picks one of the account's connected accounts, by name.
    await page.getByLabel("chat").selectOption(chatAccount);
    assert.match(await page.getByLabel("chat").locator("option:checked").innerText(), /^team chat/);
    await page.getByLabel("Channel").fill("random");
    await page.getByLabel("Limit").fill("3");
    await page.getByLabel("Color").selectOption("green");
    // A timer: its default schedule shown, changed to another interval.
    assert.equal(await page.getByLabel("interval in seconds").inputValue(), "3600");
    await page.getByLabel("interval in seconds").fill("7200");
    // Async options: the component's options() runs in a runner through the API.
    await page.getByRole("button", { name: "Load options for Board" }).click();
    await page.getByText("1 option loaded").waitFor();
    await page.getByLabel("Board (optional)", { exact: true }).selectOption({ label: "Main board" });
    await page.getByLabel("Name").fill("greeter");
    await page.locator("fieldset.props").screenshot({ path: screenshotPath("dashboard-props-form") });
    await page.getByRole("button", { name: "Deploy" }).click();
    await page.waitForURL(/#\/sources\/[^/]+$/);
    await page.getByRole("heading", { name: "Source greeter" }).waitFor();
    const endpoint = (await page.locator("code.endpoint").innerText()).trim();
    await page.locator('[data-stream="default"]').locator("xpath=..").getByText("live").waitFor();
    const res = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Ada" }),
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const event = page.locator('[data-stream="default"] .event', { hasText: "Hello Ada in #random" });
    await event.waitFor();
    const shown = await event.innerText();
    assert.match(shown, /"limit":3/);
    assert.match(shown, /"color":"green"/);
    assert.match(shown, /"key":"chat-key-1"/);
    await page.locator('[data-stream="$logs"] .event', { hasText: "greeting Ada" }).waitFor();
    await page.screenshot({ path: screenshotPath("dashboard"), fullPage: false });
  });

  it("edits a source's props in place: same endpoint, new values", async () => {
    const endpoint = (await page.locator("code.endpoint").innerText()).trim();
    await page.getByText("Code and props", { exact: true }).click();
    const channel = page.getByLabel("Channel");
    await channel.waitFor();
    assert.equal(await channel.inputValue(), "random", "the form shows the source's values");
    assert.equal(await page.getByLabel("Color").locator("option:checked").innerText(), "green");
    await channel.fill("news");
    await page.getByRole("button", { name: "Save" }).click();
    await page.locator("dd pre", { hasText: '"channel": "news"' }).waitFor();
    assert.equal((await page.locator("code.endpoint").innerText()).trim(), endpoint);
    const res = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Bo" }),
    });
    await res.arrayBuffer();
    await page.locator('[data-stream="default"] .event', { hasText: "Hello Bo in #news" }).waitFor();
  });

  it("pages async options with prevContext and sends the search and the props configured so far", async () => {
    // The options call is answered here, so that the form's paging is tested whatever the runner's options() do.
    const asked: any[] = [];
    await page.route("**/v1/components/*/props/card/options", async (route) => {
      const body = route.request().postDataJSON();
      asked.push(body);
      const page2 = body.prevContext?.page === 1;
      await route.fulfill({
        contentType: "application/json",
        body: JSON.stringify(
          page2
            ? { options: [{ label: "Card three", value: 3 }], context: null }
            : { options: ["Card one", { label: "Card two", value: 2 }], context: { page: 1 } },
        ),
      });
    });
    await page.getByRole("link", { name: "Sources", exact: true }).click();
    await typeCode(`export default {
  props: {
    list: { type: "string", label: "List", default: "inbox" },
    card: { type: "integer", label: "Card", useQuery: true, async options({ query, prevContext }) { return []; } },
  },
  run() {},
};
`);
    await page.getByRole("button", { name: "Check code" }).click();
    await page.getByLabel("search Card").fill("car");
    await page.getByRole("button", { name: "Load options for Card" }).click();
    await page.getByText("2 options loaded").waitFor();
    await page.getByRole("button", { name: "Load more" }).click();
    await page.getByText("1 option loaded").waitFor();
    assert.deepEqual(await page.getByLabel("Card", { exact: true }).locator("option").allInnerTexts(), [
      "(choose)",
      "Card one",
      "Card two",
      "Card three",
    ]);
    assert.equal(await page.getByRole("button", { name: "Load more" }).isHidden(), true, "no context: no more pages");
    assert.deepEqual(asked, [
      { configured_props: { list: "inbox" }, query: "car" },
      { configured_props: { list: "inbox" }, query: "car", prevContext: { page: 1 } },
    ]);
    await page.unroute("**/v1/components/*/props/card/options");
  });

  it("asks for the props anew when a reloadProps prop changes (additionalProps), keeping the keyboard on it", async () => {
    await typeCode(`export default {
  props: { kind: { type: "string", label: "Kind", options: ["plain", "fancy"], reloadProps: true } },
  async additionalProps() {
    return this.kind === "fancy" ? { flourish: { type: "string", label: "Flourish", description: "Only for fancy ones" } } : {};
  },
  run() {},
};
`);
    await page.getByRole("button", { name: "Check code" }).click();
    await page.getByLabel("Kind").waitFor();
    assert.equal(await page.getByLabel("Flourish").count(), 0);
    await page.getByLabel("Kind").selectOption("fancy");
    await page.getByLabel("Flourish").waitFor();
    await page.getByText("Only for fancy ones", { exact: true }).waitFor();
    assert.equal(await page.getByLabel("Kind").locator("option:checked").innerText(), "fancy");
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLSelectElement | null)?.name), "kind");
    await page.getByLabel("Kind").selectOption("plain");
    await page.getByLabel("Flourish").waitFor({ state: "detached" });
  });

  it("finds a published source in the registry by searching, and deploys it with its props form", async () => {
    await page.getByRole("link", { name: "Registry", exact: true }).click();
    await page.getByRole("heading", { name: "Registry" }).waitFor();
    const all = await page.locator("li.published").count();
    assert.ok(all >= 2, `published components shown: ${all}`);
    await page.getByLabel("Search the registry").fill("weather reading");
    await page.getByText(`1 of ${all} components`).waitFor();
    await page.getByText("Emit each weather reading posted to the endpoint").waitFor();
    await page.getByLabel("Show").selectOption("action");
    await page.getByText(`0 of ${all} components`).waitFor();
    await page.getByLabel("Show").selectOption("source");
    await page.getByLabel("Search the registry").fill("");
    await page.screenshot({ path: screenshotPath("dashboard-registry") });
    await page.getByLabel("Search the registry").fill("weather reading");
    await page.getByRole("button", { name: "Deploy New Weather Reading" }).click();
    await page.getByRole("heading", { name: "Deploy New Weather Reading" }).waitFor();
    await page.getByRole("note").filter({ hasText: "Readings are not checked." }).waitFor();
    await page.getByLabel("City").selectOption("Lima");
    await page.getByLabel("Source name").fill("lima weather");
    await page.getByRole("button", { name: "Deploy source" }).click();
    await page.waitForURL(/#\/sources\/[^/]+$/);
    await page.getByRole("heading", { name: "Source lima weather" }).waitFor();
    const endpoint = (await page.locator("code.endpoint").innerText()).trim();
    await page.locator('[data-stream="default"]').locator("xpath=..").getByText("live").waitFor();
    const res = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: '{"celsius":21}' });
    await res.arrayBuffer();
    await page.locator('[data-stream="default"] .event', { hasText: '"city":"Lima"' }).waitFor();
  });

  it("is usable from the keyboard: the editor is left with Tab, the page heading takes focus, fields have labels", async () => {
    await page.getByRole("link", { name: "Sources", exact: true }).click();
    await page.getByRole("heading", { name: "Sources" }).waitFor();
    await page.waitForFunction(() => document.activeElement?.tagName === "H2");
    await page.getByLabel("Name").focus();
    await page.keyboard.press("Tab");
    assert.equal(
      await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.getAttribute("aria-label") ?? null),
      "component code",
    );
    await page.keyboard.type("// typed ");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Check code");
    assert.match(await page.locator(".cm-content").innerText(), /^\/\/ typed /);
    const unlabelled = await page.evaluate(() =>
      Array.from(document.querySelectorAll("main input, main select, main textarea"))
        .filter((el) => !(el as HTMLInputElement).labels?.length && !el.getAttribute("aria-label"))
        .map((el) => el.outerHTML),
    );
    assert.deepEqual(unlabelled, []);
    assert.deepEqual(problems, []);
  });
});
