// The dashboard's files at /ui: served with a strict Content-Security-Policy, only the files
// of the build, with no key needed (the page asks for one). Its behaviour in a browser is
// tested in test/ui/.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DASHBOARD_CSP } from "../../src/http/dashboard.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

describe("dashboard files", () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp("sqlite");
  });
  after(async () => {
    await app.close();
  });

  it("serves the page with a CSP that allows only this origin's scripts", async () => {
    for (const path of ["/ui", "/ui/"]) {
      const res = await fetch(`${app.origin}${path}`);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
      assert.equal(res.headers.get("content-security-policy"), DASHBOARD_CSP);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.match(await res.text(), /<script type="module" src="\/ui\/app.js"><\/script>/);
    }
    assert.match(DASHBOARD_CSP, /(^|; )script-src 'self'(;|$)/);
    assert.match(DASHBOARD_CSP, /(^|; )default-src 'none'(;|$)/);
    assert.doesNotMatch(DASHBOARD_CSP, /unsafe-inline|unsafe-eval/);
  });

  it("sends a browser opening the server's address to the dashboard", async () => {
    const res = await fetch(`${app.origin}/`, { redirect: "manual" });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), "/ui");
    await res.arrayBuffer();
    // Only the root: other unknown paths stay JSON 404s.
    const other = await fetch(`${app.origin}/nothing-here`);
    assert.equal(other.status, 404);
    await other.arrayBuffer();
  });

  it("serves the bundle and the styles", async () => {
    const script = await fetch(`${app.origin}/ui/app.js`);
    assert.equal(script.status, 200);
    assert.equal(script.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.ok((await script.text()).length > 1000);
    assert.equal((await fetch(`${app.origin}/ui/app.css`)).headers.get("content-type"), "text/css; charset=utf-8");
  });

  it("serves nothing else from the disk", async () => {
    for (const path of ["/ui/..%2Fpackage.json", "/ui/%2E%2E%2F%2E%2E%2Fpackage.json", "/ui/app.ts", "/ui/tsconfig.json"]) {
      const res = await fetch(`${app.origin}${path}`);
      assert.equal(res.status, 404, path);
      await res.arrayBuffer();
    }
  });
});
