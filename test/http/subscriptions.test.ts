import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";

const JSON_EMPTY = { raw: "", headers: { "content-type": "application/json" } };

for (const dialect of DIALECTS) {
  describe(`subscriptions [${dialect}]`, () => {
    let app: TestApp;
    let alice: Account;
    let bob: Account;
    let hook: string;
    let bobHook: string;
    before(async () => {
      app = await startTestApp(dialect);
      alice = await app.newAccount();
      bob = await app.newAccount();
      hook = (await alice.api.post("/webhooks", undefined, { url: "https://example.test/a" })).body.data.id;
      bobHook = (await bob.api.post("/webhooks", undefined, { url: "https://example.test/b" })).body.data.id;
    });
    after(async () => app.close());

    const list = async (account: Account) => {
      const res = await account.api.get("/users/me/subscriptions");
      assert.equal(res.status, 200);
      return res;
    };

    it("creates a subscription from emitter globs to a webhook; a repeat returns the same one", async () => {
      const first = await alice.api.post("/subscriptions", undefined, { emitter_id: "dc_*", listener_id: hook });
      assert.equal(first.status, 200, first.text);
      assert.match(first.body.data.id, /^sub_/);
      assert.deepEqual({ ...first.body.data, id: "x" }, { id: "x", emitter_id: "dc_*", listener_id: hook, event_name: "" });

      const again = await alice.api.post("/subscriptions", undefined, { emitter_id: "dc_*", listener_id: hook });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body.data, first.body.data);

      const workflows = await alice.api.post("/subscriptions", undefined, { emitter_id: "p_*", listener_id: hook, event_name: "$errors" });
      assert.equal(workflows.status, 200);
      assert.equal(workflows.body.data.event_name, "$errors");
      assert.notEqual(workflows.body.data.id, first.body.data.id);

      const subs = (await list(alice)).body.data.filter((s: any) => s.listener_id === hook);
      assert.equal(subs.length, 2, "the repeat did not add a row");
    });

    it("GET /users/me/subscriptions is {data: [...]} with no page_info", async () => {
      const res = await list(alice);
      assert.deepEqual(Object.keys(res.body), ["data"]);
      assert.ok(Array.isArray(res.body.data));
      for (const sub of res.body.data) assert.deepEqual(Object.keys(sub).sort(), ["emitter_id", "event_name", "id", "listener_id"]);
      const projected = await alice.api.get("/users/me/subscriptions", { include: "id,event_name" });
      for (const sub of projected.body.data) assert.deepEqual(Object.keys(sub).sort(), ["event_name", "id"]);
    });

    it("accepts an empty JSON body or no body at all, and parameters in a JSON body", async () => {
      const empty = await alice.api.call("POST", "/subscriptions", {
        query: { emitter_id: "dc_*", listener_id: hook, event_name: "$logs" },
        ...JSON_EMPTY,
      });
      assert.equal(empty.status, 200, empty.text);
      const noBody = await alice.api.call("POST", "/subscriptions", {
        query: { emitter_id: "p_*", listener_id: hook, event_name: "$logs" },
      });
      assert.equal(noBody.status, 200, noBody.text);
      const body = await alice.api.post("/subscriptions", { emitter_id: "p_*", listener_id: hook, event_name: "named" });
      assert.equal(body.status, 200, body.text);
      assert.equal(body.body.data.event_name, "named");

      const delEmpty = await alice.api.call("DELETE", "/subscriptions", {
        query: { emitter_id: "dc_*", listener_id: hook, event_name: "$logs" },
        ...JSON_EMPTY,
      });
      assert.equal(delEmpty.status, 204, delEmpty.text);
      const delNone = await alice.api.call("DELETE", "/subscriptions", {
        query: { emitter_id: "p_*", listener_id: hook, event_name: "$logs" },
      });
      assert.equal(delNone.status, 204, delNone.text);
      const autoEmpty = await alice.api.call("POST", "/auto_subscriptions", {
        query: { listener_id: hook, event_name: "$logs" },
        ...JSON_EMPTY,
      });
      assert.equal(autoEmpty.status, 200, autoEmpty.text);
      const autoNone = await alice.api.call("POST", "/auto_subscriptions", { query: { listener_id: hook, event_name: "$errors" } });
      assert.equal(autoNone.status, 200, autoNone.text);
    });

    it("DELETE with the empty event_name= rule", async () => {
      const listener = (await alice.api.post("/webhooks", undefined, { url: "https://example.test/del" })).body.data.id;
      await alice.api.post("/subscriptions", undefined, { emitter_id: "dc_*", listener_id: listener });
      await alice.api.post("/subscriptions", undefined, { emitter_id: "dc_*", listener_id: listener, event_name: "$errors" });

      const missingName = await alice.api.delete("/subscriptions", { emitter_id: "dc_*", listener_id: listener });
      assert.equal(missingName.status, 400, "event_name is required, even if empty");
      assert.match(missingName.body.error, /event_name/);

      const wrongStream = await alice.api.delete("/subscriptions", { emitter_id: "dc_*", listener_id: listener, event_name: "$logs" });
      assert.equal(wrongStream.status, 404);

      const del = await alice.api.delete("/subscriptions", { emitter_id: "dc_*", listener_id: listener, event_name: "" });
      assert.equal(del.status, 204);
      const left = (await list(alice)).body.data.filter((s: any) => s.listener_id === listener);
      assert.deepEqual(
        left.map((s: any) => s.event_name),
        ["$errors"],
        "only the default-stream subscription went",
      );

      assert.equal((await alice.api.delete("/subscriptions", { emitter_id: "dc_*", listener_id: listener, event_name: "" })).status, 404);
      assert.equal(
        (await alice.api.delete("/subscriptions", { emitter_id: "dc_*", listener_id: listener, event_name: "$errors" })).status,
        204,
      );
    });

    it("'default' and the empty event_name are one stream", async () => {
      const listener = (await alice.api.post("/webhooks", undefined, { url: "https://example.test/default" })).body.data.id;
      const named = await alice.api.post("/subscriptions", undefined, { emitter_id: "p_*", listener_id: listener, event_name: "default" });
      assert.equal(named.status, 200);
      assert.equal(named.body.data.event_name, "default");
      const unnamed = await alice.api.post("/subscriptions", undefined, { emitter_id: "p_*", listener_id: listener });
      assert.equal(unnamed.body.data.id, named.body.data.id, "no second subscription for the same stream");
      assert.equal((await list(alice)).body.data.filter((s: any) => s.listener_id === listener).length, 1);

      assert.equal(
        (await alice.api.delete("/subscriptions", { emitter_id: "p_*", listener_id: listener, event_name: "default" })).status,
        204,
      );
      assert.equal((await list(alice)).body.data.filter((s: any) => s.listener_id === listener).length, 0);

      await alice.api.post("/subscriptions", undefined, { emitter_id: "dc_*", listener_id: listener });
      assert.equal(
        (await alice.api.delete("/subscriptions", { emitter_id: "dc_*", listener_id: listener, event_name: "default" })).status,
        204,
      );
      assert.equal((await list(alice)).body.data.filter((s: any) => s.listener_id === listener).length, 0);
    });

    it("404 for an unknown or another account's listener; nothing is created", async () => {
      const before = (await list(alice)).body.data.length;
      for (const listener_id of ["wh_doesnotexist", bobHook, "dc_doesnotexist", "p_doesnotexist"]) {
        const res = await alice.api.post("/subscriptions", undefined, { emitter_id: "dc_*", listener_id });
        assert.equal(res.status, 404, `${listener_id}: ${res.text}`);
        assert.equal(res.body.error, "record not found");
        const auto = await alice.api.post("/auto_subscriptions", undefined, { listener_id, event_name: "default" });
        assert.equal(auto.status, 404, `auto ${listener_id}: ${auto.text}`);
      }
      assert.equal((await list(alice)).body.data.length, before);
      assert.equal((await alice.api.delete("/subscriptions", { emitter_id: "dc_*", listener_id: bobHook, event_name: "" })).status, 404);
    });

    it("404 for an unknown or another account's emitter", async () => {
      for (const emitter_id of ["dc_doesnotexist", "p_doesnotexist"]) {
        const res = await alice.api.post("/subscriptions", undefined, { emitter_id, listener_id: hook });
        assert.equal(res.status, 404, `${emitter_id}: ${res.text}`);
      }
    });

    it("400 for a webhook as emitter, an unknown id kind, or missing parameters", async () => {
      const cases: Record<string, string>[] = [
        { emitter_id: hook, listener_id: hook },
        { emitter_id: bobHook, listener_id: hook },
        { emitter_id: "wh_*", listener_id: hook },
        { emitter_id: "*", listener_id: hook },
        { emitter_id: "u_someone", listener_id: hook },
        { emitter_id: "dc_*", listener_id: "u_someone" },
        { emitter_id: "dc_*", listener_id: "dc_*" },
        { emitter_id: "dc_*" },
        { listener_id: hook },
        {},
      ];
      for (const query of cases) {
        const res = await alice.api.post("/subscriptions", undefined, query);
        assert.equal(res.status, 400, `${JSON.stringify(query)}: ${res.text}`);
        assert.equal(typeof res.body.error, "string");
      }
      assert.equal((await alice.api.post("/auto_subscriptions", undefined, { listener_id: hook })).status, 400);
      assert.equal((await alice.api.post("/auto_subscriptions", undefined, { event_name: "default" })).status, 400);
    });

    it("auto-subscriptions: created once, repeat returns the same rule, 'default' and '' alike", async () => {
      const listener = (await alice.api.post("/webhooks", undefined, { url: "https://example.test/auto" })).body.data.id;
      const first = await alice.api.post("/auto_subscriptions", undefined, { listener_id: listener, event_name: "default" });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.data.listener_id, listener);
      assert.equal(first.body.data.event_name, "default");
      assert.equal(typeof first.body.data.id, "string");
      const again = await alice.api.post("/auto_subscriptions", undefined, { listener_id: listener, event_name: "default" });
      assert.deepEqual(again.body.data, first.body.data);
      const empty = await alice.api.post("/auto_subscriptions", undefined, { listener_id: listener, event_name: "" });
      assert.deepEqual(empty.body.data, first.body.data);
      const errors = await alice.api.post("/auto_subscriptions", undefined, { listener_id: listener, event_name: "$errors" });
      assert.notEqual(errors.body.data.id, first.body.data.id);
      // Existing emitters are not affected: no subscription appears for the listener.
      assert.equal((await list(alice)).body.data.filter((s: any) => s.listener_id === listener).length, 0);
    });

    it("another account never sees these subscriptions", async () => {
      const mine = (await list(alice)).body.data.map((s: any) => s.id);
      assert.ok(mine.length > 0);
      const theirs = (await list(bob)).body.data.map((s: any) => s.id);
      assert.deepEqual(
        theirs.filter((id: string) => mine.includes(id)),
        [],
      );
      assert.equal((await bob.api.delete("/subscriptions", { emitter_id: "dc_*", listener_id: hook, event_name: "" })).status, 404);
      assert.ok((await list(alice)).body.data.some((s: any) => s.emitter_id === "dc_*" && s.listener_id === hook && s.event_name === ""));
    });
  });
}
