// Names stay usable: creating a source or workflow under a name the account already uses keeps
// `<name>-2`, `-3`, … (also when the creates run at once), and the API answers the name kept;
// renaming onto a taken name is a 409.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";

const SOURCE = `export default { name: "hello", version: "0.0.1", props: {}, async run() {} };`;
const STEPS = [{ code: "export default { async run() {} };" }];

for (const dialect of DIALECTS) {
  describe(`same-name creates [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;

    before(async () => {
      app = await startTestApp(dialect);
      account = await app.newAccount({ plan: "paid" });
    });
    after(() => app.close());

    it("a source created under a taken name is suffixed, and concurrent creates keep distinct names", async () => {
      const first = await account.api.post("/sources", { component_code: SOURCE });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.data.name, "hello");
      const second = await account.api.post("/sources", { component_code: SOURCE, name: "hello" });
      assert.equal(second.body.data.name, "hello-2");
      const together = await Promise.all([1, 2, 3].map(() => account.api.post("/sources", { component_code: SOURCE, name: "hello" })));
      const names = together.map((response) => (assert.equal(response.status, 200, response.text), response.body.data.name as string));
      assert.deepEqual([...names].sort(), ["hello-3", "hello-4", "hello-5"]);
      const other = await app.newAccount();
      assert.equal((await other.api.post("/sources", { component_code: SOURCE })).body.data.name, "hello", "names are per account");
    });

    it("renaming a source onto a name the account uses is refused with 409", async () => {
      const a = (await account.api.post("/sources", { component_code: SOURCE, name: "left" })).body.data;
      const b = (await account.api.post("/sources", { component_code: SOURCE, name: "right" })).body.data;
      const refused = await account.api.put(`/sources/${b.id}`, { component_code: SOURCE, name: "left" });
      assert.equal(refused.status, 409, refused.text);
      assert.match(refused.body.error, /"left" is taken by dc_/);
      const kept = await account.api.put(`/sources/${a.id}`, { component_code: SOURCE, name: "left" });
      assert.equal(kept.status, 200, "keeping its own name is no conflict");
    });

    it("a workflow created under a taken name is suffixed; renaming onto a taken one is a 409", async () => {
      const names: string[] = [];
      for (let i = 0; i < 2; i++) {
        const created = await account.api.post("/workflows", { name: "flow", steps: STEPS });
        assert.equal(created.status, 200, created.text);
        names.push(created.body.data.name);
      }
      const together = await Promise.all([1, 2].map(() => account.api.post("/workflows", { name: "flow", steps: STEPS })));
      names.push(...together.map((response) => response.body.data.name as string));
      assert.deepEqual(names.slice(0, 2), ["flow", "flow-2"]);
      assert.deepEqual(names.slice(2).sort(), ["flow-3", "flow-4"]);
      const last = together[0]!.body.data;
      const refused = await account.api.put(`/workflows/${last.id}`, { name: "flow" });
      assert.equal(refused.status, 409, refused.text);
    });
  });
}
