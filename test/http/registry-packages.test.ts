// Registry packages from npm: POST /v1/admin/registry/packages installs a package in the shape
// of `@pipedream/<app>` from a loopback npm registry, pins its version and publishes its
// sources; GET /v1/components/registry lists them; a source deployed by key runs from the
// installed package (relative imports and npm dependencies as inside it), on any host, at the
// recorded version.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/dialects.js";
import { ApiClient, request } from "../helpers/http-client.js";
import { startNpmRegistry, type NpmRegistry } from "../helpers/npm-registry.js";
import { ADMIN_TOKEN, startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, waitForEvents } from "../fixtures/components/sources/helpers.js";
import { DEMO, demoPackage, EMPTY, emptyPackage, HELPER, helperPackage } from "../fixtures/npm-packages.js";

const admin = (app: TestApp, method: string, path: string, json?: unknown) =>
  request(app.baseUrl, method, `/admin/registry${path}`, { key: ADMIN_TOKEN, json });
const DEMO_KEYS = ["demo-new-item", "demo-send", "demo-shout"];
const LATER = {
  name: "@sluice-test/later",
  version: "2.0.0",
  files: {
    "sources/ping/ping.mjs": `export default { key: "later-ping", version: "2.0.0", props: { http: { type: "$.interface.http", customResponse: true } }, run() { this.http.respond({ status: 200, body: { pong: 2 } }); } };\n`,
  },
};
const FILE_KEYS = ["counter-timer", "http-custom-response", "http-webhook", "interval-timer"];

const post = (url: string, json: unknown) => request(url, "POST", "", { json });

/** Every page of GET /components/registry at `limit` per page, following end_cursor. */
async function allPublished(account: Account, limit: number): Promise<{ pages: any[]; items: any[] }> {
  const pages: any[] = [];
  let after: string | undefined;
  for (;;) {
    const res = await account.api.get("/components/registry", { limit, after });
    assert.equal(res.status, 200, res.text);
    pages.push(res.body);
    if (res.body.data.length < limit) break;
    after = res.body.page_info.end_cursor;
  }
  return { pages, items: pages.flatMap((page) => page.data) };
}

const installedVersions = (app: TestApp, name: string) =>
  existsSync(join(app.config.dataDir, "runtime", "packages"))
    ? readdirSync(join(app.config.dataDir, "runtime", "packages"))
        .filter((folder) => folder.startsWith(`${name.replace("/", "+")}@`))
        .sort()
    : [];

for (const dialect of DIALECTS) {
  describe(`registry packages from npm [${dialect}]`, () => {
    let registry: NpmRegistry;
    let database: TestDatabase;
    let app: TestApp;
    let account: Account;
    let markers: string;
    const extraDirs: string[] = [];
    const apps: TestApp[] = [];
    const start = async (dataDir?: string) => {
      const started = await startTestApp(dialect, { npmRegistry: registry.url, ...(dataDir ? { dataDir } : {}) }, { database });
      apps.push(started);
      return started;
    };

    before(async () => {
      registry = await startNpmRegistry();
      markers = mkdtempSync(join(tmpdir(), "sluice-markers-"));
      registry.publish(helperPackage(join(markers, "helper-postinstall")));
      registry.publish(demoPackage("1.0.0", join(markers, "demo-postinstall")));
      registry.publish(emptyPackage());
      registry.publish(LATER);
      database = await createTestDatabase(dialect);
      app = await start();
      account = await app.newAccount({ plan: "paid" });
    });
    after(async () => {
      for (const started of apps) await started.close();
      await database.drop();
      await registry.close();
      rmSync(markers, { recursive: true, force: true });
      for (const dir of extraDirs) rmSync(dir, { recursive: true, force: true });
    });

    it("the admin API needs the admin token", async () => {
      assert.equal((await request(app.baseUrl, "POST", "/admin/registry/packages", { json: { name: DEMO } })).status, 401);
      assert.equal(
        (await request(app.baseUrl, "POST", "/admin/registry/packages", { key: account.apiKey, json: { name: DEMO } })).status,
        401,
      );
      assert.equal((await request(app.baseUrl, "GET", "/admin/registry/packages", { key: account.apiKey })).status, 401);
    });

    it("adding a package without a version pins the latest, publishes its sources and says what it skipped; install scripts never run", async () => {
      const res = await admin(app, "POST", "/packages", { name: DEMO });
      assert.equal(res.status, 200, res.text);
      const added = res.body.data;
      assert.equal(added.name, DEMO);
      assert.equal(added.version, "1.0.0");
      assert.deepEqual(added.keys, DEMO_KEYS);
      assert.deepEqual(
        added.skipped.map((s: { path: string }) => s.path),
        ["sources/broken/broken.mjs"],
      );
      assert.match(added.skipped[0].reason, /not-there\.mjs/);
      assert.equal(typeof added.added_at, "number");
      assert.deepEqual(installedVersions(app, DEMO), [`${DEMO.replace("/", "+")}@1.0.0`]);
      assert.equal(existsSync(join(markers, "demo-postinstall")), false, "the package's postinstall ran");
      assert.equal(existsSync(join(markers, "helper-postinstall")), false, "the dependency's postinstall ran");

      const listed = await admin(app, "GET", "/packages");
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body.data.map((p: any) => [p.name, p.version, p.keys]),
        [[DEMO, "1.0.0", DEMO_KEYS]],
      );
    });

    it("GET /components/registry lists every published component, paginated, with the package it came from", async () => {
      const { pages, items } = await allPublished(account, 4);
      assert.equal(pages[0].page_info.total_count, FILE_KEYS.length + DEMO_KEYS.length);
      assert.equal(pages[0].page_info.count, 4);
      assert.deepEqual(items.map((item) => item.key).sort(), [...DEMO_KEYS, ...FILE_KEYS].sort());
      const newItem = items.find((item) => item.key === "demo-new-item");
      assert.match(newItem.id, /^sc_/);
      assert.equal(newItem.name, "Demo New Item");
      assert.equal(newItem.version, "1.0.0");
      assert.equal(newItem.description, "Emit each item posted to the endpoint");
      assert.equal(newItem.type, "source");
      assert.deepEqual(newItem.package, { name: DEMO, version: "1.0.0", path: "sources/new-item/new-item.mjs" });
      assert.equal(items.find((item) => item.key === "demo-shout").description, null);
      assert.equal(items.find((item) => item.key === "http-webhook").package, null);
      // Newest first: the package's components were published after the files.
      assert.deepEqual(
        items
          .slice(0, DEMO_KEYS.length)
          .map((item) => item.key)
          .sort(),
        DEMO_KEYS,
      );
      const back = await account.api.get("/components/registry", { limit: 4, before: pages[1].page_info.start_cursor });
      assert.deepEqual(
        back.body.data.map((item: any) => item.key),
        pages[0].data.map((item: any) => item.key),
      );
      assert.equal((await account.api.get("/components/registry", { limit: 0 })).status, 400);
      assert.equal((await account.api.get("/components/registry", { after: "not-a-cursor" })).status, 400);
      assert.equal((await app.anonymous.get("/components/registry")).status, 401);
    });

    it("GET /components/registry/{key} shows a package component's props and code", async () => {
      const res = await account.api.get("/components/registry/demo-new-item");
      assert.equal(res.status, 200, res.text);
      const component = res.body.data;
      assert.equal(component.key, "demo-new-item");
      assert.deepEqual(component.configurable_props, [
        { name: "demo", type: "app", app: "demo" },
        { name: "channel", type: "string", label: "Channel", description: "Where items come from", default: "general" },
        { name: "http", type: "$.interface.http", customResponse: true },
      ]);
      assert.match(component.code, /import demo from "\.\.\/\.\.\/demo\.app\.mjs"/);
      assert.equal((await account.api.get("/components/registry/demo-broken")).status, 404);
      const action = await account.api.get("/components/registry/demo-send");
      assert.equal(action.status, 200, "actions are published too");
      assert.equal(action.body.data.key, "demo-send");
      const asSource = await account.api.post("/sources", { component_id: "demo-send" });
      assert.equal(asSource.status, 400, asSource.text);
      assert.match(asSource.body.error, /is an action: it runs as a workflow step/);
    });

    let newItemEndpoint: string;
    it("a source deployed by key runs from the package: its app file, ../common/ import and npm dependency", async () => {
      const newItem = await createSource(account.api, { component_id: "demo-new-item", configured_props: { channel: "news" } });
      newItemEndpoint = newItem.configured_props.http.endpoint_url;
      const answered = await post(newItemEndpoint, { n: 1 });
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      assert.deepEqual(answered.body, { value: "hello news", from: "common/base.mjs", version: "1.0.0" });
      const [event] = await waitForEvents(account.api, newItem.id, 1);
      assert.deepEqual(event.event, { value: "hello news", from: "common/base.mjs", version: "1.0.0" });

      const shout = await createSource(account.api, { component_id: "demo-shout" });
      assert.equal((await post(shout.configured_props.http.endpoint_url, { text: "hi" })).status, 200);
      const [shouted] = await waitForEvents(account.api, shout.id, 1);
      assert.deepEqual(shouted.event, { shouted: "HI!", version: "1.0.0" });
    });

    it("bad names and versions are 400 before npm is asked; an unknown package or version is a 400 with npm's reason; a package without sources is a 400", async () => {
      const asked = registry.requests.length;
      const names = [
        "",
        " ",
        "--registry=http://127.0.0.1:1/",
        "-g",
        "https://example.test/x.tgz",
        "git+ssh://git@example.test/x.git",
        "github:user/repo",
        "file:../x",
        "../x",
        "./x",
        "/abs",
        "@scope/",
        "@/x",
        "a b",
        "x/y/z",
        "npm:@x/y",
        `${DEMO}@1.0.0`,
        "x".repeat(215),
      ];
      for (const name of names) {
        const res = await admin(app, "POST", "/packages", { name });
        assert.equal(res.status, 400, `${JSON.stringify(name)}: ${res.text}`);
        assert.equal(typeof res.body.error, "string");
      }
      for (const version of ["http://example.test/x.tgz", "file:x", "--x", "git+ssh://x", "1.0.0/../x", "x".repeat(65)]) {
        const res = await admin(app, "POST", "/packages", { name: DEMO, version });
        assert.equal(res.status, 400, `${JSON.stringify(version)}: ${res.text}`);
      }
      assert.equal((await admin(app, "POST", "/packages", { name: DEMO, registry: "http://x" })).status, 400);
      assert.equal((await admin(app, "POST", "/packages", {})).status, 400);
      assert.equal(registry.requests.length, asked, "npm was asked about a name that should have been refused");

      const unknown = await admin(app, "POST", "/packages", { name: "@sluice-test/nope" });
      assert.equal(unknown.status, 400, unknown.text);
      assert.match(unknown.body.error, /@sluice-test\/nope/);
      assert.match(unknown.body.error, /E404|404 Not Found/);
      const noVersion = await admin(app, "POST", "/packages", { name: DEMO, version: "9.9.9" });
      assert.equal(noVersion.status, 400, noVersion.text);
      assert.match(noVersion.body.error, /No matching version|ETARGET/);
      const empty = await admin(app, "POST", "/packages", { name: EMPTY });
      assert.equal(empty.status, 400, empty.text);
      assert.match(empty.body.error, /has no sources/);
      const packages = (await admin(app, "GET", "/packages")).body.data.map((p: any) => p.name);
      assert.deepEqual(packages, [DEMO], "a refused package is not recorded");
    });

    it("a newer version published later is not used: a host with a fresh npm cache installs the recorded version on demand", async () => {
      registry.publish(demoPackage("1.1.0", join(markers, "demo-postinstall")));
      const oldOrigin = app.origin;
      await app.close();
      apps.splice(apps.indexOf(app), 1);
      // Another host: SQLite keeps its database in the data directory, so only the npm cache goes.
      let dataDir: string | undefined;
      if (dialect === "sqlite") rmSync(join(database.dataDir, "runtime"), { recursive: true, force: true });
      else extraDirs.push((dataDir = mkdtempSync(join(tmpdir(), "sluice-host-"))));
      app = await start(dataDir);
      account = { ...account, api: new ApiClient(app.baseUrl, account.apiKey) };
      assert.deepEqual(installedVersions(app, DEMO), []);
      const answered = await post(newItemEndpoint.replace(oldOrigin, app.origin), {});
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      assert.equal(answered.body.version, "1.0.0");
      assert.deepEqual(installedVersions(app, DEMO), [`${DEMO.replace("/", "+")}@1.0.0`]);
      assert.deepEqual(installedVersions(app, HELPER), [], "the dependency is installed inside the package's folder");
    });

    if (dialect === "postgres") {
      it("a second process on the same database sees a package added by another without a restart, and installs it on demand", async () => {
        const otherDir = mkdtempSync(join(tmpdir(), "sluice-host-"));
        extraDirs.push(otherDir);
        const second = await start(otherDir);
        const before = await account.api.get("/components/registry", { limit: 100 });
        const secondApi = new ApiClient(second.baseUrl, account.apiKey);
        assert.equal((await secondApi.get("/components/registry/demo-shout")).status, 200);
        // A package the second process has not heard of, added through the first.
        const added = await admin(app, "POST", "/packages", { name: "@sluice-test/later" });
        assert.equal(added.status, 200, added.text);
        const listed = await secondApi.get("/components/registry", { limit: 100 });
        assert.equal(listed.body.page_info.total_count, before.body.page_info.total_count + 1);
        const source = await createSource(secondApi, { component_id: "later-ping" });
        const answered = await post(source.configured_props.http.endpoint_url.replace(app.origin, second.origin), {});
        assert.deepEqual(answered.body, { pong: 2 });
        assert.deepEqual(installedVersions(second, "@sluice-test/later"), ["@sluice-test+later@2.0.0"]);
      });
    }

    it("adding the package again moves it to the latest version; sources deployed before keep theirs; a pinned version goes back", async () => {
      const before = (await account.api.get("/components/registry/demo-new-item")).body.data;
      const res = await admin(app, "POST", "/packages", { name: DEMO });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.version, "1.1.0");
      const moved = (await account.api.get("/components/registry/demo-new-item")).body.data;
      assert.equal(moved.version, "1.1.0");
      assert.notEqual(moved.id, before.id);
      const fresh = await createSource(account.api, { component_id: "demo-new-item" });
      assert.equal((await post(fresh.configured_props.http.endpoint_url, {})).body.version, "1.1.0");
      assert.equal(
        (await post(newItemEndpoint.replace(/^https?:\/\/[^/]+/, app.origin), {})).body.version,
        "1.0.0",
        "a deployed source changed version",
      );

      const pinned = await admin(app, "POST", "/packages", { name: DEMO, version: "1.0.0" });
      assert.equal(pinned.status, 200, pinned.text);
      assert.equal(pinned.body.data.version, "1.0.0");
      assert.equal(
        (await account.api.get("/components/registry/demo-new-item")).body.data.id,
        before.id,
        "the same version's components are reused",
      );
    });

    it("DELETE removes a package's keys from the registry; sources deployed from it keep running", async () => {
      const removed = await request(app.baseUrl, "DELETE", `/admin/registry/packages/${encodeURIComponent(DEMO)}`, { key: ADMIN_TOKEN });
      assert.equal(removed.status, 204, removed.text);
      assert.equal((await account.api.get("/components/registry/demo-new-item")).status, 404);
      const { items } = await allPublished(account, 100);
      assert.equal(
        items.some((item) => item.package?.name === DEMO),
        false,
      );
      const refused = await account.api.post("/sources", { component_id: "demo-shout" });
      assert.equal(refused.status, 400);
      assert.match(refused.body.error, /unknown component/);
      assert.equal((await post(newItemEndpoint.replace(/^https?:\/\/[^/]+/, app.origin), {})).body.version, "1.0.0");
      const again = await request(app.baseUrl, "DELETE", `/admin/registry/packages/${DEMO}`, { key: ADMIN_TOKEN });
      assert.equal(again.status, 404, again.text);
      // The name as it is, slash and all, names it too.
      if (dialect !== "postgres") assert.equal((await admin(app, "POST", "/packages", { name: LATER.name })).status, 200);
      assert.equal((await request(app.baseUrl, "DELETE", `/admin/registry/packages/${LATER.name}`, { key: ADMIN_TOKEN })).status, 204);
      assert.equal((await account.api.get("/components/registry/later-ping")).status, 404);
      assert.deepEqual((await admin(app, "GET", "/packages")).body.data, []);
    });
  });
}
