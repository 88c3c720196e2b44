// The dashboard on a phone-sized screen (390 px wide): every page fits the width (nothing
// scrolls sideways but a wide table or code inside its own box), and the navigation stays on
// screen. With SLUICE_SCREENSHOTS=1 a picture of a source page at this width goes to docs/.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { BROWSER_SKIP, launchBrowser } from "../helpers/browser.js";
import { DIALECTS } from "../helpers/dialects.js";
import { screenshotPath } from "../helpers/screenshots.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";

const WIDTH = 390;

describe("the dashboard at 390 px wide", { skip: BROWSER_SKIP }, () => {
  let app: TestApp;
  let account: Account;
  let browser: Browser;
  let page: Page;
  let sourceId = "";

  before(async () => {
    app = await startTestApp(DIALECTS[0]!, { allowPrivateEgress: true });
    account = await app.newAccount({ plan: "free" });
    // Long names, URLs and ids: what makes a narrow page overflow.
    const code = `export default { name: "a source with a rather long name for a phone screen", props: { http: "$.interface.http" }, run(event) { this.$emit({ text: "${"word ".repeat(60)}", url: "https://example.com/${"x".repeat(120)}" }); } };`;
    const source = await account.api.post("/sources", {
      component_code: code,
      name: "a-source-with-a-rather-long-name-for-a-phone-screen",
    });
    assert.equal(source.status, 200, source.text);
    sourceId = source.body.data.id;
    const hook = await account.api.post("/webhooks", { url: `http://127.0.0.1:9/${"long-path-segment/".repeat(8)}` });
    assert.equal(hook.status, 200, hook.text);
    const sub = await account.api.post("/subscriptions", { emitter_id: sourceId, listener_id: hook.body.data.id });
    assert.equal(sub.status, 200, sub.text);
    const res = await fetch(source.body.data.configured_props.http.endpoint_url, { method: "POST", body: "{}" });
    await res.arrayBuffer();
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: WIDTH, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    page.setDefaultTimeout(20_000);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  /** How far the page reaches past the screen's right edge (0 when it fits). */
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  /** The outermost elements reaching past the right edge, to say what does not fit. */
  const tooWide = () =>
    page.evaluate(() =>
      [
        ...document.querySelectorAll("body *"),
        ...Array.from(document.querySelectorAll(".editor")).flatMap((e) => Array.from(e.shadowRoot?.querySelectorAll("*") ?? [])),
      ]
        .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
        .filter((el) => !(el.parentElement && el.parentElement.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5))
        .map((el) => `${el.tagName.toLowerCase()}.${el.className} ${Math.round(el.getBoundingClientRect().width)}px`),
    );

  it("logs in and shows every page without sideways scrolling", async () => {
    await page.goto(`${app.origin}/ui`);
    assert.equal(await overflow(), 0, "login page");
    await page.getByLabel("API key").fill(account.apiKey);
    await page.getByRole("button", { name: "Log in" }).click();
    const pages: Array<[string, string]> = [
      ["sources", "Sources"],
      ["registry", "Registry"],
      ["workflows", "Workflows"],
      ["webhooks", "Webhooks"],
      ["subscriptions", "Subscriptions"],
      ["usage", "Usage and quotas"],
      ["accounts", "Connected accounts"],
      [`sources/${sourceId}`, "Source a-source-with-a-rather-long-name-for-a-phone-screen"],
    ];
    for (const [route, heading] of pages) {
      await page.goto(`${app.origin}/ui#/${route}`);
      await page.getByRole("heading", { name: heading }).first().waitFor();
      if (route.startsWith("sources/")) await page.locator('[data-stream="default"] .event').first().waitFor();
      assert.equal(await overflow(), 0, `#/${route} is wider than ${WIDTH} px: ${(await tooWide()).join(", ")}`);
      // Every navigation link is on screen, none cut off at the right.
      const outside = await page.evaluate(
        (width) =>
          Array.from(document.querySelectorAll("nav a:not(.skip), nav button"))
            .filter((el) => el.getBoundingClientRect().right > width)
            .map((el) => el.textContent),
        WIDTH,
      );
      assert.deepEqual(outside, [], `#/${route}`);
    }
    await page.screenshot({ path: screenshotPath("dashboard-390px"), fullPage: false });
  });

  it("opens a source's code and props at this width too", async () => {
    await page.getByText("Code and props", { exact: true }).click();
    await page.locator(".cm-content").waitFor();
    assert.equal(await overflow(), 0, (await tooWide()).join(", "));
  });
});
