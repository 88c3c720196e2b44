// `dir` props: files a source keeps between executions (Pipedream's file-store API), stored per
// source under the data directory, refused outside the folder and over the size cap, and
// removed with the source.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode, waitForEvents } from "../fixtures/components/sources/helpers.js";

const CAP_BYTES = 64;

for (const dialect of DIALECTS) {
  describe(`source files (dir props) [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    let source: any;
    const ask = async (body: Record<string, unknown>) => {
      const res = await fetch(source.configured_props.http.endpoint_url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    const folder = () => join(app.config.dataDir, "source-files", source.id);
    before(async () => {
      app = await startTestApp(dialect, { sourceFilesBytes: CAP_BYTES });
      account = await app.newAccount();
      source = await createSource(account.api, { component_code: fixtureCode("dir-files.mjs") });
    });
    after(async () => app.close());

    it("shows the dir prop in configurable_props and takes no value for it", async () => {
      const component = await account.api.get(`/components/${source.component_id}`);
      assert.deepEqual(component.body.data.configurable_props[0], { name: "dir", type: "dir", optional: true, accessMode: "read-write", sync: true });
      assert.deepEqual(Object.keys(source.configured_props), ["http"]);
    });

    it("keeps files between executions, lists folders and files, deletes them", async () => {
      const written = await ask({ write: "notes/a.txt", text: "hello" });
      assert.equal(written.status, 200);
      assert.deepEqual(written.body.listing, [{ path: "notes", file: false, size: 0 }]);
      assert.equal(readFileSync(join(folder(), "notes", "a.txt"), "utf8"), "hello");

      const read = await ask({ read: "notes/a.txt", list: "notes" });
      assert.deepEqual(read.body, { listing: [{ path: "notes/a.txt", file: true, size: 5 }], read: "hello" });

      const removed = await ask({ delete: "notes/a.txt" });
      assert.deepEqual(removed.body.listing, []);
      assert.equal(existsSync(join(folder(), "notes", "a.txt")), false);
    });

    it("refuses paths outside the folder and changes over the size cap", async () => {
      const escape = await ask({ write: "../../escape.txt", text: "x" });
      assert.equal(escape.status, 500);
      assert.equal(existsSync(join(app.config.dataDir, "escape.txt")), false);

      const tooBig = await ask({ write: "big.bin", text: "x".repeat(CAP_BYTES + 1) });
      assert.equal(tooBig.status, 200, "the code ran; its files were not kept");
      const [error] = await waitForEvents(account.api, source.id, 1, { event_name: "$errors" });
      assert.equal(error.event.error.name, "SourceFilesError");
      assert.match(error.event.error.message, /over the limit of 64 bytes/);
      assert.equal(existsSync(join(folder(), "big.bin")), false);
      assert.deepEqual((await ask({})).body.listing, []);
    });

    it("removes the files with the source", async () => {
      await ask({ write: "keep.txt", text: "k" });
      assert.equal(existsSync(join(folder(), "keep.txt")), true);
      assert.equal((await account.api.delete(`/sources/${source.id}`)).status, 204);
      assert.equal(existsSync(folder()), false);
    });
  });
}
