// component_files: code deployed from local files carries the files its relative imports
// name (by path relative to the code), on POST /v1/sources, PUT /v1/sources/{id} and
// POST /v1/components. The files are stored with the component and resolved as Node would.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, waitForEvents } from "../fixtures/components/sources/helpers.js";

const ENTRY = `import { greet } from "./lib/greet.js";
import config from "./config.json" with { type: "json" };
export default {
  name: "with files", version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit({ text: greet(event.body.name), tone: config.tone }); },
};`;
const FILES = {
  "./lib/greet.js": `import { hello } from "../words";\nexport const greet = (name) => hello + ", " + name;`,
  "words.js": `export const hello = "hello";`,
  "config.json": `{"tone": "warm"}`,
};

for (const dialect of DIALECTS) {
  describe(`component_files [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    before(async () => {
      app = await startTestApp(dialect);
      account = await app.newAccount({ plan: "paid" });
    });
    after(() => app.close());

    it("a source's relative imports resolve to the files sent with it, nested and without extensions", async () => {
      const source = await createSource(account.api, { component_code: ENTRY, component_files: FILES });
      const res = await fetch(source.configured_props.http.endpoint_url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "ada" }),
      });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      const [event] = await waitForEvents(account.api, source.id, 1);
      assert.deepEqual(event.event, { text: "hello, ada", tone: "warm" });
    });

    it("an update with new files runs the new files", async () => {
      const source = await createSource(account.api, { component_code: ENTRY, component_files: FILES });
      const updated = await account.api.put(`/sources/${source.id}`, {
        component_code: ENTRY,
        component_files: { ...FILES, "words.js": `export const hello = "hi";` },
      });
      assert.equal(updated.status, 200, updated.text);
      const res = await fetch(source.configured_props.http.endpoint_url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "bo" }),
      });
      await res.arrayBuffer();
      const [event] = await waitForEvents(account.api, source.id, 1);
      assert.equal(event.event.text, "hi, bo");
    });

    it("POST /v1/components takes them too", async () => {
      const res = await account.api.post("/components", { component_code: ENTRY, component_files: FILES });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.name, "with files");
    });

    it("a missing file, an absolute path and a relative import with neither files nor URL are 400", async () => {
      const missing = await account.api.post("/sources", {
        component_code: ENTRY,
        component_files: { "./lib/greet.js": FILES["./lib/greet.js"] },
      });
      assert.equal(missing.status, 400, missing.text);
      assert.match(missing.body.error, /component_files has no "words"/);
      const absolute = await account.api.post("/sources", { component_code: ENTRY, component_files: { ...FILES, "/etc/passwd": "x" } });
      assert.equal(absolute.status, 400, absolute.text);
      const bare = await account.api.post("/sources", { component_code: ENTRY });
      assert.equal(bare.status, 400, bare.text);
      assert.match(bare.body.error, /component_url or component_files/);
      const notText = await account.api.post("/sources", { component_code: ENTRY, component_files: { "words.js": 5 } });
      assert.equal(notText.status, 400, notText.text);
    });
  });
}
