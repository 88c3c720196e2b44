// Connected accounts in the dashboard, in a real browser against the real server and a small
// OAuth provider on loopback: connect an account by OAuth (Connect → the provider's consent
// page → back on the accounts page, listed), add key-based accounts (fields from a component's
// app definition, else free pairs), rename, a delete refused while a source uses the account,
// and the page at 390 px. With SLUICE_SCREENSHOTS=1 the page's picture becomes docs/accounts.png.
import assert from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { BROWSER_SKIP, launchBrowser, recordPageProblems, logIn } from "../helpers/browser.js";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { startOAuthProvider, type OAuthProvider } from "../helpers/oauth-provider.js";
import { ADMIN_TOKEN, startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode } from "../fixtures/components/sources/helpers.js";

const SCREENSHOT = process.env.SLUICE_SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), "../../../docs/accounts.png")
  : undefined;
const TIMEOUT = 20_000;

describe("dashboard: connected accounts", { skip: BROWSER_SKIP }, () => {
  let app: TestApp;
  let account: Account;
  let provider: OAuthProvider;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    provider = await startOAuthProvider();
    app = await startTestApp(DIALECTS[0]!, { allowPrivateEgress: true });
    account = await app.newAccount();
    provider.clients.set("dash-client", {
      clientId: "dash-client",
      clientSecret: "dash-secret",
      redirectUri: `${app.origin}/oauth/callback`,
    });
    const configured = await request(app.baseUrl, "POST", "/admin/oauth_apps", {
      key: ADMIN_TOKEN,
      json: {
        app: "testprov",
        client_id: "dash-client",
        client_secret: "dash-secret",
        authorize_url: provider.authorizeUrl,
        token_url: provider.tokenUrl,
        scopes: ["read"],
      },
    });
    assert.equal(configured.status, 200, configured.text);
    // A component whose app prop reads this.$auth.token: the form asks a demo account for it.
    assert.equal((await account.api.post("/components", { component_code: fixtureCode("app-auth.mjs") })).status, 200);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(TIMEOUT);
    recordPageProblems(page, problems, { responses: true });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await provider?.close();
  });

  const accounts = async () => (await account.api.get("/users/me/accounts")).body.data as any[];

  it("connects an account by OAuth and sees it in the list", async () => {
    await page.goto(`${app.origin}/ui`);
    await logIn(page, account.apiKey);
    await page.getByRole("link", { name: "Accounts" }).click();
    await page.getByRole("heading", { name: "Connected accounts" }).waitFor();
    await page.getByText("No connected accounts yet.").waitFor();

    await page.getByLabel("Name of the new testprov account").fill("Work provider");
    await page.getByRole("button", { name: "Connect testprov" }).click();
    await page.getByRole("heading", { name: "Allow Sluice?" }).waitFor();
    assert.ok(page.url().startsWith(`${provider.origin}/authorize?`), page.url());
    await page.getByRole("button", { name: "Allow" }).click();

    await page.waitForURL(/\/ui#\/accounts\/apn_[A-Za-z0-9]+$/);
    await page.getByRole("status").getByText("Connected testprov: Work provider.").waitFor();
    const item = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Work provider" }) });
    await item.getByText("oauth_access_token").waitFor();
    const [stored] = await accounts();
    assert.equal(stored.app, "testprov");
    assert.equal(provider.tokenRequests.at(-1)!.grant_type, "authorization_code");
  });

  it("adds key-based accounts: the fields a component reads, or free pairs", async () => {
    await page.getByLabel("App", { exact: true }).fill("demo");
    await page.getByLabel("Account name").fill("Demo keys");
    await page.getByLabel("token").fill("demo-token-1234");
    await page.getByRole("button", { name: "Save account" }).click();
    await page.getByRole("heading", { name: "Demo keys" }).waitFor();

    await page.getByLabel("App", { exact: true }).fill("othersvc");
    await page.getByLabel("Field 1 name").fill("api_key");
    await page.getByLabel("Field 1 value").fill("k-1");
    await page.getByRole("button", { name: "Add a field" }).click();
    await page.getByLabel("Field 2 name").fill("region");
    await page.getByLabel("Field 2 value").fill("eu");
    await page.getByRole("button", { name: "Save account" }).click();
    await page.getByRole("heading", { name: "othersvc account" }).waitFor();
    const byApp = Object.fromEntries((await accounts()).map((a) => [a.app, a.fields]));
    assert.deepEqual(byApp.demo, ["token"]);
    assert.deepEqual(byApp.othersvc, ["api_key", "region"]);
  });

  it("renames an account", async () => {
    await page.getByRole("button", { name: "Rename Work provider" }).click();
    await page.getByLabel("New name for Work provider").fill("Renamed provider");
    await page.getByRole("button", { name: "Save name" }).click();
    await page.getByRole("heading", { name: "Renamed provider" }).waitFor();
    assert.ok((await accounts()).some((a) => a.name === "Renamed provider"));
  });

  it("refuses to delete an account a source uses, naming it, and deletes it once unused", async () => {
    const demo = (await accounts()).find((a) => a.app === "demo");
    const source = await createSource(account.api, {
      name: "uses demo",
      component_code: fixtureCode("app-auth.mjs"),
      configured_props: { demo: { authProvisionId: demo.id } },
    });
    page.on("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete Demo keys" }).click();
    await page.getByRole("alert").getByText(`used by source "uses demo" (${source.id})`).waitFor();
    assert.deepEqual(problems.splice(0), [`409 ${app.baseUrl}/accounts/${demo.id}`]);
    assert.equal((await account.api.delete(`/sources/${source.id}`)).status, 204);
    await page.getByRole("button", { name: "Delete Demo keys" }).click();
    await page.getByRole("heading", { name: "Demo keys" }).waitFor({ state: "detached" });
    assert.ok(!(await accounts()).some((a) => a.id === demo.id));
  });

  it("fits a 390 px wide screen and shows no errors", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${app.origin}/ui#/accounts`);
    await page.getByRole("button", { name: "Connect testprov" }).waitFor();
    const overflow = await page.evaluate(() => {
      const main = document.querySelector("main")!;
      return main.scrollWidth - main.clientWidth;
    });
    assert.ok(overflow <= 0, `the accounts page is ${overflow} px wider than the screen`);
    // Every field has a label.
    const unlabelled = await page.evaluate(
      () => [...document.querySelectorAll("main input")].filter((input) => !(input as HTMLInputElement).labels?.length).length,
    );
    assert.equal(unlabelled, 0);
    if (SCREENSHOT) await page.screenshot({ path: SCREENSHOT, fullPage: true });
    assert.deepEqual(problems, []);
  });
});
