import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { packageRoot } from "../../src/runtime/package-root.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";

const FIXTURES = join(packageRoot(), "test", "fixtures", "components", "runtime");
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

const ESM_COMPONENT = `
import { defineSource } from "@sluice/sdk";
const chat = {
  type: "app",
  app: "chat",
  propDefinitions: { room: { type: "string", label: "Room", description: "A chat room", options: ["a", "b"] } },
  methods: { shout(text) { return text.toUpperCase() + this.suffix(); }, suffix() { return "!"; } },
};
export default defineSource({
  key: "esm-demo",
  name: "ESM Demo",
  version: "0.2.0",
  description: "shorthand props and friends",
  dedupe: "unique",
  props: {
    db: "$.service.db",
    secret: "string",
    http: "$.interface.http",
    timer: { type: "$.interface.timer", default: { intervalSeconds: 60 } },
    chat,
    room: { propDefinition: [chat, "room"], optional: true },
    limit: { type: "integer", label: "Limit", description: "How many", default: 5, optional: true },
  },
  hooks: { async deploy() {}, async activate() {} },
  async run(event) { this.$emit({ shouted: this.chat.shout(event.text) }); },
});
`;

const CJS_COMPONENT = `
module.exports = defineComponent({
  key: "cjs-demo",
  name: "CJS Demo",
  version: "1.0.0",
  props: { timer: { type: "$.interface.timer", intervalSeconds: 120 }, cron: { type: "$.interface.timer", cron: "0 * * * *" } },
  run() { this.$emit({ ok: true }); },
});
`;

function serveFixtures(): Promise<Server> {
  const server = createServer(async (request, response) => {
    try {
      const body = await readFile(join(FIXTURES, decodeURIComponent(new URL(request.url!, "http://x").pathname)));
      response.writeHead(200, { "content-type": "text/javascript" }).end(body);
    } catch {
      response.writeHead(404).end("not found");
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

for (const dialect of DIALECTS) {
  describe(`components [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    let server: Server;
    let fixturesUrl: string;
    before(async () => {
      // An operator publishes more components by dropping files into SLUICE_REGISTRY_DIR.
      const registryDir = await mkdtemp(join(tmpdir(), "sluice-registry-"));
      await writeFile(
        join(registryDir, "operator-echo.mjs"),
        `export default { key: "operator-echo", name: "Operator Echo", version: "2.0.0", props: { http: "$.interface.http" }, run(e) { this.$emit(e); } };`,
      );
      await writeFile(join(registryDir, "broken.mjs"), "export default { key: 'broken' }");
      app = await startTestApp(dialect, { allowPrivateEgress: true, runTimeoutSeconds: 5, registryDir });
      account = await app.newAccount();
      server = await serveFixtures();
      fixturesUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      server.close();
      await app.close();
    });

    it("props whose options come from an async options() are marked remoteOptions (and useQuery when they take a search)", async () => {
      const code = `export default { key: "remote-options", props: {
        board: { type: "string", async options() { return ["x"]; } },
        card: { type: "string", useQuery: true, options({ query }) { return [query]; } },
        plain: { type: "string", options: ["a"] },
      }, run() {} };`;
      const res = await account.api.post("/components", { component_code: code });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data.configurable_props, [
        { name: "board", type: "string", remoteOptions: true },
        { name: "card", type: "string", remoteOptions: true, useQuery: true },
        { name: "plain", type: "string", options: ["a"] },
      ]);
    });

    it("POST /components evaluates ESM code in a runner: shorthand props, app props, propDefinitions, timer defaults", async () => {
      const res = await account.api.post("/components", { component_code: ESM_COMPONENT });
      assert.equal(res.status, 200, res.text);
      const c = res.body.data;
      assert.match(c.id, /^sc_/);
      assert.equal(c.key, "esm-demo");
      assert.equal(c.name, "ESM Demo");
      assert.equal(c.version, "0.2.0");
      assert.equal(c.code, ESM_COMPONENT);
      assert.equal(c.code_hash, sha256(ESM_COMPONENT));
      assert.ok(Number.isInteger(c.created_at) && Number.isInteger(c.updated_at));
      const props = Object.fromEntries(c.configurable_props.map((p: any) => [p.name, p]));
      assert.deepEqual(Object.keys(props), ["db", "secret", "http", "timer", "chat", "room", "limit"]);
      assert.deepEqual(props.db, { name: "db", type: "$.service.db" });
      assert.deepEqual(props.secret, { name: "secret", type: "string" });
      assert.deepEqual(props.http, { name: "http", type: "$.interface.http", customResponse: false });
      assert.deepEqual(props.timer, { name: "timer", type: "$.interface.timer", default: { intervalSeconds: 60 } });
      assert.deepEqual(props.chat, { name: "chat", type: "app", app: "chat" });
      assert.deepEqual(props.room, {
        name: "room",
        type: "string",
        label: "Room",
        description: "A chat room",
        options: ["a", "b"],
        optional: true,
      });
      assert.deepEqual(props.limit, {
        name: "limit",
        type: "integer",
        label: "Limit",
        description: "How many",
        default: 5,
        optional: true,
      });

      const byKey = await account.api.get("/components/esm-demo");
      assert.equal(byKey.status, 200);
      assert.equal(byKey.body.data.id, c.id);
      const byId = await account.api.get(`/components/${c.id}`);
      assert.equal(byId.body.data.code_hash, c.code_hash);
      const other = await app.newAccount();
      assert.equal((await other.api.get(`/components/${c.id}`)).status, 404);
      assert.equal((await other.api.get("/components/esm-demo")).status, 404);

      const result = await app.sluice.services.runner.execute({
        userId: account.id,
        code: ESM_COMPONENT,
        entry: "run",
        event: { text: "hi" },
        props: {},
        state: {},
        context: { sourceId: "dc_test" },
      });
      assert.equal(result.error, undefined);
      assert.deepEqual(
        result.emits.map((e) => e.event),
        [{ shouted: "HI!" }],
      );
    });

    it("GET /users/me/components lists the account's own components, newest first, without their code; never another account's", async () => {
      const owner = await app.newAccount();
      const stranger = await app.newAccount();
      const action = `export default { key: "own-action", name: "Own Action", version: "0.1.0", type: "action", description: "does one thing", async run({ $ }) { return 1; } };`;
      const source = `export default { key: "own-source", name: "Own Source", version: "0.2.0", props: { http: "$.interface.http" }, run() {} };`;
      assert.equal((await owner.api.post("/components", { component_code: action })).status, 200);
      assert.equal((await owner.api.post("/components", { component_code: source })).status, 200);
      assert.equal((await stranger.api.post("/components", { component_code: source.replace("own-source", "their-source") })).status, 200);
      const listed = await owner.api.get("/users/me/components", { limit: 1 });
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.body.page_info.total_count, 2);
      assert.equal(listed.body.data.length, 1);
      assert.deepEqual(Object.keys(listed.body.data[0]).sort(), [
        "component_url",
        "created_at",
        "description",
        "id",
        "key",
        "name",
        "type",
        "version",
      ]);
      const all = await owner.api.get("/users/me/components");
      assert.deepEqual(all.body.data.map((c: any) => [c.key, c.type, c.description]).sort(), [
        ["own-action", "action", "does one thing"],
        ["own-source", "source", null],
      ]);
    });

    it("CommonJS code with the defineComponent global and legacy timer placement; the latest save wins for a key", async () => {
      const first = await account.api.post("/components", { component_code: CJS_COMPONENT });
      assert.equal(first.status, 200, first.text);
      const props = first.body.data.configurable_props;
      assert.deepEqual(props, [
        { name: "timer", type: "$.interface.timer", default: { intervalSeconds: 120 } },
        { name: "cron", type: "$.interface.timer", default: { cron: "0 * * * *" } },
      ]);
      const second = await account.api.post("/components", { component_code: CJS_COMPONENT.replace('"1.0.0"', '"1.1.0"') });
      const latest = await account.api.get("/components/cjs-demo");
      assert.equal(latest.body.data.id, second.body.data.id);
      assert.equal(latest.body.data.version, "1.1.0");
    });

    it("bad code is a 400 with the reason: no run(), a syntax error, nothing given, a reserved key", async () => {
      const noRun = await account.api.post("/components", { component_code: "export default { key: 'x', name: 'x' }" });
      assert.equal(noRun.status, 400);
      assert.match(noRun.body.error, /run\(\)/);
      const syntax = await account.api.post("/components", { component_code: "export default { run() { return 1 +; } }" });
      assert.equal(syntax.status, 400);
      assert.match(syntax.body.error, /SyntaxError/);
      const nothing = await account.api.post("/components", {});
      assert.equal(nothing.status, 400);
      assert.match(nothing.body.error, /component_code or component_url/);
      // GET /components/registry is the registry's list, so no component can be read by that key.
      const reserved = await account.api.post("/components", { component_code: "export default { key: 'registry', run() {} }" });
      assert.equal(reserved.status, 400);
      assert.match(reserved.body.error, /"registry" is reserved/);
      const asSource = await account.api.post("/sources", { component_code: "export default { key: 'registry', run() {} }" });
      assert.equal(asSource.status, 400, asSource.text);
    });

    it("npm packages: pinned and unpinned, installed once and usable; a missing package is a 400 naming it", async () => {
      const code = `
        const isNumber = require("is-number@7.0.0");
        const isOdd = require("is-odd");
        module.exports = { key: "npm-demo", run(event) { this.$emit({ number: isNumber(event.n), odd: isOdd(event.n) }); } };`;
      const res = await account.api.post("/components", { component_code: code });
      assert.equal(res.status, 200, res.text);
      const result = await app.sluice.services.runner.execute({
        userId: account.id,
        code,
        entry: "run",
        event: { n: 3 },
        props: {},
        state: {},
        context: { sourceId: "dc_test" },
      });
      assert.equal(result.error, undefined, JSON.stringify(result.error));
      assert.deepEqual(result.emits[0]?.event, { number: true, odd: true });

      // ESM that also calls require(): the module gets a require of its own.
      const esm = `import isNumber from "is-number@7.0.0";\nexport default { key: "npm-esm", run() { this.$emit([isNumber("5"), require("is-number")(1), require("node:path").basename("/a/b.txt")]); } };`;
      assert.equal((await account.api.post("/components", { component_code: esm })).status, 200);
      const mixed = await app.sluice.services.runner.execute({
        userId: account.id,
        code: esm,
        entry: "run",
        props: {},
        state: {},
        context: { sourceId: "dc_test" },
      });
      assert.equal(mixed.error, undefined, JSON.stringify(mixed.error));
      assert.deepEqual(mixed.emits[0]?.event, [true, true, "b.txt"]);

      const missing = await account.api.post("/components", {
        component_code: `const x = require("sluice-no-such-package-zz9@1.0.0");\nmodule.exports = { run() {} };`,
      });
      assert.equal(missing.status, 400);
      assert.match(missing.body.error, /sluice-no-such-package-zz9@1\.0\.0/);
    });

    it("component_url: fetched, relative imports resolved against it, app methods bound; code wins when both are given", async () => {
      const url = `${fixturesUrl}/sources/new-item/new-item.mjs`;
      const res = await account.api.post("/components", { component_url: url });
      assert.equal(res.status, 200, res.text);
      const c = res.body.data;
      assert.equal(c.key, "demo-new-item");
      assert.equal(c.component_url, url);
      assert.equal(c.code, await readFile(join(FIXTURES, "sources/new-item/new-item.mjs"), "utf8"));
      assert.deepEqual(c.configurable_props, [
        { name: "demo", type: "app", app: "demo" },
        { name: "channel", type: "string", label: "Channel", description: "Where items come from", default: "general" },
      ]);
      const result = await app.sluice.services.runner.execute({
        userId: account.id,
        code: c.code,
        codeUrl: url,
        entry: "run",
        event: { n: 21 },
        props: {},
        state: {},
        context: { sourceId: "dc_test" },
      });
      assert.equal(result.error, undefined, JSON.stringify(result.error));
      assert.deepEqual(result.emits[0]?.event, { greeting: "hello general", doubled: 42 });

      const both = await account.api.post("/components", { component_code: CJS_COMPONENT, component_url: url });
      assert.equal(both.status, 200);
      assert.equal(both.body.data.key, "cjs-demo");
      assert.equal(both.body.data.component_url, url);

      const gone = await account.api.post("/components", { component_url: `${fixturesUrl}/nope.mjs` });
      assert.equal(gone.status, 400);
      const relativeWithoutUrl = await account.api.post("/components", {
        component_code: `import x from "./x.mjs";\nexport default { run() {} };`,
      });
      assert.equal(relativeWithoutUrl.status, 400);
      assert.match(relativeWithoutUrl.body.error, /component_url/);
    });

    it("component_url: relative imports without extensions resolve in Node's order (file, .js, .mjs, .cjs, .json, index.*)", async () => {
      const url = `${fixturesUrl}/sources/extensionless/extensionless.mjs`;
      const res = await account.api.post("/components", { component_url: url });
      assert.equal(res.status, 200, res.text);
      const result = await app.sluice.services.runner.execute({
        userId: account.id,
        code: res.body.data.code,
        codeUrl: url,
        entry: "run",
        event: { n: 7 },
        props: {},
        state: {},
        context: { sourceId: "dc_test" },
      });
      assert.equal(result.error, undefined, JSON.stringify(result.error));
      assert.deepEqual(result.emits[0]?.event, { greeting: "hello there", tripled: 21, unit: "kg" });

      const missing = await account.api.post("/components", { component_url: `${fixturesUrl}/sources/extensionless/missing.mjs` });
      assert.equal(missing.status, 400);
      assert.match(missing.body.error, /"\.\/gone"/);
      const base = `${fixturesUrl}/sources/extensionless/gone`;
      const tried = missing.body.error.split(": ").at(-1).split(", ");
      assert.deepEqual(
        tried,
        ["", ".js", ".mjs", ".cjs", ".json", "/index.js", "/index.mjs", "/index.cjs", "/index.json"].map((suffix) => base + suffix),
      );
    });

    it("registry: shipped components are published at start and readable by any account", async () => {
      for (const key of ["http-webhook", "interval-timer", "http-custom-response", "counter-timer"]) {
        const res = await account.api.get(`/components/registry/${key}`);
        assert.equal(res.status, 200, key);
        assert.equal(res.body.data.key, key);
        assert.match(res.body.data.id, /^sc_/);
        assert.equal(res.body.data.code_hash, sha256(res.body.data.code));
      }
      const webhook = await account.api.get("/components/registry/http-webhook");
      assert.deepEqual(webhook.body.data.configurable_props, [{ name: "http", type: "$.interface.http", customResponse: false }]);
      const timer = await account.api.get("/components/registry/interval-timer");
      assert.deepEqual(timer.body.data.configurable_props[0].default, { intervalSeconds: 900 });
      assert.equal((await account.api.get("/components/registry/no-such-component")).status, 404);
      const operator = await account.api.get("/components/registry/operator-echo");
      assert.equal(operator.status, 200);
      assert.equal(operator.body.data.version, "2.0.0");
      assert.equal((await account.api.get("/components/registry/broken")).status, 404, "a file without run() is skipped");
      assert.equal((await account.api.get("/components/http-webhook")).status, 200, "published components are found by key too");
    });
  });
}
