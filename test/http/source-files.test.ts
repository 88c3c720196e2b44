// `dir` props: files a source keeps between executions (Pipedream's file-store API), stored per
// source under the data directory, refused outside the folder and over the caps (1,000 files,
// paths of 255 bytes and 16 levels, 4 KB counted per file and per folder against the bytes), checked by the
// runner at each write and by the service on the whole change set, which it keeps whole or
// not at all; a refusal is an $errors entry of the run, never a failed request or a retried job.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode, waitForEvents } from "../fixtures/components/sources/helpers.js";
import { waitFor } from "../helpers/wait-for.js";

// 1,000 empty files fit (4,096,000 counted bytes); 1,000 files of 100 bytes do not.
const CAP_BYTES = 4 * 1024 * 1024;
const names = (count: number, prefix = "f") => Array.from({ length: count }, (_, i) => `${prefix}${i}.txt`);

for (const dialect of DIALECTS) {
  describe(`source files (dir props) [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    let source: any;
    const ask = async (body: Record<string, unknown>, target = source) => {
      const res = await fetch(target.configured_props.http.endpoint_url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const folderOf = (id: string) => join(app.config.dataDir, "source-files", id);
    const folder = () => folderOf(source.id);
    /** Everything the service keeps for the source: its folder and any staged or pending changes. */
    const leftovers = (id: string) => {
      const root = join(app.config.dataDir, "source-files");
      const aside = [".staging", ".pending", ".trash"].flatMap((dir) =>
        (existsSync(join(root, dir)) ? readdirSync(join(root, dir)) : []).filter((name) => name.startsWith(id)),
      );
      return existsSync(folderOf(id)) ? [id, ...aside] : aside;
    };
    const errorsOf = async (id: string, count = 1) => waitForEvents(account.api, id, count, { event_name: "$errors" });
    before(async () => {
      app = await startTestApp(dialect, { sourceFilesBytes: CAP_BYTES });
      account = await app.newAccount();
    });
    // A fresh source per test: each starts with no files.
    beforeEach(async () => {
      source = await createSource(account.api, { component_code: fixtureCode("dir-files.mjs") });
    });
    after(async () => app.close());

    it("shows the dir prop in configurable_props and takes no value for it", async () => {
      const component = await account.api.get(`/components/${source.component_id}`);
      assert.deepEqual(component.body.data.configurable_props[0], {
        name: "dir",
        type: "dir",
        optional: true,
        accessMode: "read-write",
        sync: true,
      });
      assert.deepEqual(Object.keys(source.configured_props), ["http"]);
    });

    it("keeps files between executions, lists folders and files, deletes them (and their emptied folders)", async () => {
      const written = await ask({ write: "notes/a.txt", text: "hello" });
      assert.equal(written.status, 200);
      assert.deepEqual(written.body.listing, [{ path: "notes", file: false, size: 0 }]);
      assert.equal(readFileSync(join(folder(), "notes", "a.txt"), "utf8"), "hello");

      const read = await ask({ read: "notes/a.txt", list: "notes" });
      assert.deepEqual(read.body, { listing: [{ path: "notes/a.txt", file: true, size: 5 }], read: "hello", error: null });

      const removed = await ask({ delete: "notes/a.txt" });
      assert.deepEqual(removed.body.listing, []);
      assert.equal(existsSync(join(folder(), "notes")), false);
      const replaced = await ask({ write: "notes", text: "now a file" });
      assert.deepEqual(replaced.body.listing, [{ path: "notes", file: true, size: 10 }]);
      assert.deepEqual(leftovers(source.id), [source.id]);
    });

    it("refuses paths outside the folder", async () => {
      const escape = await ask({ write: "../../escape.txt", text: "x" });
      assert.equal(escape.status, 500);
      assert.equal(existsSync(join(app.config.dataDir, "escape.txt")), false);
    });

    it("the runner refuses the 1,001st file at its write; the 1,000 before it are kept", async () => {
      const { status, body } = await ask({ files: names(1001) });
      assert.equal(status, 200);
      assert.equal(body.error.name, "SourceFilesError");
      assert.match(body.error.message, /1001 files, over the limit of 1000 \(SLUICE_SOURCE_FILES_MAX\)/);
      assert.equal(body.listing.length, 1000);
      assert.equal(readdirSync(folder()).length, 1000);
    });

    it("the service refuses 1,001 files whole, as an $errors SourceFilesError, writing none", async () => {
      const { status, body } = await ask({ files: names(1001), bypass: true, emit: "kept" });
      assert.equal(status, 200, "the response the code gave");
      assert.equal(body.listing.length, 1001, "the runner's check was bypassed");
      const [error] = await errorsOf(source.id);
      assert.equal(error.event.error.name, "SourceFilesError");
      assert.match(
        error.event.error.message,
        /1001 files, over the limit of 1000 \(SLUICE_SOURCE_FILES_MAX\); none of this execution's file changes were kept/,
      );
      assert.deepEqual(leftovers(source.id), []);
      assert.deepEqual(
        (await waitForEvents(account.api, source.id, 1)).map((e) => e.event),
        [{ emitted: "kept" }],
      );
    });

    it("counts 4 KB per file against the bytes: 1,000 files of 100 bytes are over 4 MB", async () => {
      const runner = await ask({ files: names(1000), text: "x".repeat(100) });
      assert.equal(runner.body.error?.name, "SourceFilesError");
      assert.match(runner.body.error.message, /4196000 bytes \(4096 counted per file and per folder\), over the limit of 4194304 bytes/);
      assert.equal(runner.body.listing.length, 999);

      const other = await createSource(account.api, { component_code: fixtureCode("dir-files.mjs") });
      const service = await ask({ files: names(1000), text: "x".repeat(100), bypass: true }, other);
      assert.equal(service.body.listing.length, 1000);
      const [error] = await errorsOf(other.id);
      assert.match(error.event.error.message, /over the limit of 4194304 bytes \(SLUICE_SOURCE_FILES_MB\)/);
      assert.deepEqual(leftovers(other.id), []);
    });

    it("refuses a path over 255 bytes or 16 levels, in the runner and in the service", async () => {
      const long = `${"x".repeat(200)}/${"y".repeat(60)}`;
      const deep = `${"d/".repeat(16)}f`;
      assert.match((await ask({ files: [long] })).body.error.message, /has 261 bytes, over the limit of 255/);
      assert.match((await ask({ files: [deep] })).body.error.message, /is 17 levels deep, over the limit of 16/);
      assert.equal((await ask({ files: [long], bypass: true })).body.error, null);
      assert.match((await errorsOf(source.id, 1))[0].event.error.message, /has 261 bytes, over the limit of 255/);
      await ask({ files: [deep], bypass: true });
      assert.match((await errorsOf(source.id, 2))[0].event.error.message, /is 17 levels deep, over the limit of 16/);
      assert.deepEqual(leftovers(source.id), []);
    });

    it("a file and a folder of the same name (x and x/y) are refused whole; the response and the run's emits stand", async () => {
      const { status, body } = await ask({ files: ["keep.txt", "x", "x/y"], bypass: true, emit: "stored" });
      assert.equal(status, 200, "the custom response is answered");
      assert.equal(body.error, null);
      const [error] = await errorsOf(source.id);
      assert.equal(error.event.error.name, "SourceFilesError");
      assert.match(error.event.error.message, /"x" would be both a file and the folder of "x\/y"/);
      assert.deepEqual(
        (await waitForEvents(account.api, source.id, 1)).map((e) => e.event),
        [{ emitted: "stored" }],
      );
      assert.deepEqual(leftovers(source.id), [], "nothing of the change set was written");

      const runner = await ask({ files: ["x", "x/y"] });
      assert.match(runner.body.error.message, /"x" would be both a file and the folder of "x\/y"/);
    });

    it("files that cannot be written are an $errors entry of the run, before or after its results are stored", async () => {
      const root = join(app.config.dataDir, "source-files");
      for (const [where, emit] of [
        [".staging", "before"],
        [".pending", "after"],
      ] as const) {
        rmSync(join(root, where), { recursive: true, force: true });
        writeFileSync(join(root, where), "in the way");
        try {
          const { status, body } = await ask({ write: "a.txt", text: "a", emit });
          assert.equal(status, 200, "the custom response is answered");
          assert.deepEqual(body.listing, [{ path: "a.txt", file: true, size: 1 }]);
          const [error] = await errorsOf(source.id, emit === "before" ? 1 : 2);
          assert.equal(error.event.error.name, "SourceFilesError");
          assert.match(error.event.error.message, /the files could not be written \(.*\); none of this execution's file changes were kept/);
          assert.deepEqual((await waitForEvents(account.api, source.id, 1)).map((e) => e.event)[0], { emitted: emit });
        } finally {
          rmSync(join(root, where), { force: true });
        }
      }
      assert.deepEqual(await ask({}).then((r) => r.body.listing), [], "no change was kept");
    });

    it("a queued run whose file changes clash completes with one $errors entry (no retried job)", async () => {
      const queued = await createSource(account.api, {
        component_code: fixtureCode("dir-files.mjs").replace("customResponse: true", "customResponse: false"),
      });
      assert.equal((await ask({ files: ["x", "x/y"], bypass: true, emit: "queued" }, queued)).status, 200);
      const [error] = await errorsOf(queued.id);
      assert.equal(error.event.error.name, "SourceFilesError");
      assert.deepEqual(
        (await waitForEvents(account.api, queued.id, 1)).map((e) => e.event),
        [{ emitted: "queued" }],
      );
      const db = app.sluice.services.ctx.db;
      await waitFor(async () => (await db.selectFrom("jobs").select("id").where("user_id", "=", account.id).execute()).length === 0, {
        what: "the account's jobs to drain",
        timeoutMs: 20_000,
      });
      assert.equal((await errorsOf(queued.id)).length, 1);
    });

    it("deleting a source while a run of it writes files answers 204 and leaves nothing behind", async () => {
      const running = ask({ files: names(1000, "w"), text: "z" });
      await waitFor(async () => existsSync(folder()), { what: "the run's files to be applied", timeoutMs: 20_000 });
      assert.equal((await account.api.delete(`/sources/${source.id}`)).status, 204);
      await running;
      await waitFor(async () => leftovers(source.id).length === 0, { what: "the source's files to be gone", timeoutMs: 20_000 });
      assert.deepEqual(leftovers(source.id), []);
    });

    it("removes the files with the source", async () => {
      await ask({ write: "keep.txt", text: "k" });
      assert.equal(existsSync(join(folder(), "keep.txt")), true);
      assert.equal((await account.api.delete(`/sources/${source.id}`)).status, 204);
      assert.equal(existsSync(folder()), false);
    });
  });
}
