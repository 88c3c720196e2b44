// Sources over HTTP: create (component_id / code / url), the spec's shapes, props checks,
// lifecycle hooks, update, disable/enable, delete, subscriptions to and from sources.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode, summaries, waitForEvents } from "../fixtures/components/sources/helpers.js";

const SOURCE_FIELDS = ["active", "component_id", "configured_props", "created_at", "id", "name", "name_slug", "updated_at"];

for (const dialect of DIALECTS) {
  describe(`sources [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    let codeServer: Server;
    let codeUrl: string;
    before(async () => {
      app = await startTestApp(dialect, { allowPrivateEgress: true });
      account = await app.newAccount();
      codeServer = createServer((req, res) => {
        if (req.url === "/timer.mjs") return res.end(fixtureCode("timer-interval.mjs"));
        res.statusCode = 404;
        res.end();
      });
      await new Promise<void>((resolve) => codeServer.listen(0, "127.0.0.1", resolve));
      codeUrl = `http://127.0.0.1:${(codeServer.address() as AddressInfo).port}/timer.mjs`;
    });
    after(async () => {
      codeServer.close();
      await app.close();
    });

    it("creates from component_code with the spec's fields; lists without user_id", async () => {
      const created = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      assert.deepEqual(Object.keys(created).sort(), [...SOURCE_FIELDS, "user_id"].sort());
      assert.match(created.id, /^dc_/);
      assert.equal(created.user_id, account.id);
      assert.match(created.component_id, /^sc_/);
      assert.equal(created.active, true);
      assert.equal(created.name, "test-http-scripted");
      assert.equal(created.name_slug, "test-http-scripted");
      assert.ok(Number.isInteger(created.created_at) && created.created_at < 1e11, "unix seconds");
      assert.deepEqual(Object.keys(created.configured_props), ["http"]);
      assert.match(created.configured_props.http.endpoint_url, new RegExp(`^${app.origin}/e/[a-z0-9]+$`));

      const list = await account.api.get("/users/me/sources");
      assert.equal(list.status, 200);
      const item = list.body.data.find((s: any) => s.id === created.id);
      assert.deepEqual(Object.keys(item).sort(), SOURCE_FIELDS.sort());
      assert.deepEqual(item.configured_props, created.configured_props);
      assert.ok(list.body.page_info.total_count >= 1);
    });

    it("prefers component_id over code and url; keeps a given name and slugs it", async () => {
      const first = await createSource(account.api, { component_code: fixtureCode("timer-interval.mjs") });
      const second = await createSource(account.api, {
        component_id: first.component_id,
        component_code: fixtureCode("http-scripted.cjs"),
        component_url: "http://127.0.0.1:1/never",
        name: "My Timer #2",
      });
      assert.equal(second.component_id, first.component_id);
      assert.equal(second.name, "My Timer #2");
      assert.equal(second.name_slug, "my-timer-2");
      assert.deepEqual(second.configured_props, { timer: { cron: null, interval_seconds: 60 } });
      const unknown = await account.api.post("/sources", { component_id: "sc_doesnotexist" });
      assert.equal(unknown.status, 400);
      const none = await account.api.post("/sources", { name: "x" });
      assert.equal(none.status, 400);
      assert.match(none.body.error, /component_id, component_code or component_url/);
    });

    it("creates from component_url served on loopback", async () => {
      // A fresh account: the same component made a source in this one already (a second would be named "-2").
      const fresh = await app.newAccount();
      const created = await createSource(fresh.api, { component_url: codeUrl, configured_props: { timer: { intervalSeconds: 120 } } });
      assert.deepEqual(created.configured_props, { timer: { cron: null, interval_seconds: 120 } });
      assert.equal(created.name, "test-timer-interval", "named after the fetched component");
    });

    it("timer props: legacy cron, cron override, minimum interval", async () => {
      const legacy = await createSource(account.api, { component_code: fixtureCode("timer-cron-legacy.cjs") });
      assert.deepEqual(legacy.configured_props, { timer: { cron: "*/5 * * * *", interval_seconds: 300 } });
      const cron = await createSource(account.api, {
        component_code: fixtureCode("timer-interval.mjs"),
        configured_props: { timer: { cron: "0 * * * *" } },
      });
      assert.deepEqual(cron.configured_props, { timer: { cron: "0 * * * *", interval_seconds: 3600 } });
      const tooFast = await account.api.post("/sources", {
        component_code: fixtureCode("timer-interval.mjs"),
        configured_props: { timer: { intervalSeconds: 1 } },
      });
      assert.equal(tooFast.status, 400);
      assert.match(tooFast.body.error, /timer/);
      const badCron = await account.api.post("/sources", {
        component_code: fixtureCode("timer-interval.mjs"),
        configured_props: { timer: { cron: "every day" } },
      });
      assert.equal(badCron.status, 400);
    });

    it("alert props are shown in configurable_props, take no value and are never required", async () => {
      const code = `export default { key: "with-alert", props: {
        notice: { type: "alert", alertType: "warning", content: "Read the docs first" },
        label: { type: "string", default: "x" },
      }, async run() { this.$emit({ notice: this.notice === undefined ? "none" : "set" }); } };`;
      const component = await account.api.post("/components", { component_code: code });
      assert.equal(component.status, 200, component.text);
      assert.deepEqual(component.body.data.configurable_props[0], {
        name: "notice",
        type: "alert",
        alertType: "warning",
        content: "Read the docs first",
      });
      const source = await createSource(account.api, { component_code: code });
      assert.deepEqual(source.configured_props, { label: "x" });
    });

    it("a missing required prop is a 400 naming it", async () => {
      const res = await account.api.post("/sources", { component_code: fixtureCode("lifecycle-hooks.mjs") });
      assert.equal(res.status, 400);
      assert.match(res.body.error, /greeting/);
      const badProps = await account.api.post("/sources", { component_code: fixtureCode("lifecycle-hooks.mjs"), configured_props: [1] });
      assert.equal(badProps.status, 400);
    });

    it("runs deploy+activate on create, deactivate+activate on update, deactivate on disable and delete", async () => {
      const source = await createSource(account.api, {
        component_code: fixtureCode("lifecycle-hooks.mjs"),
        configured_props: { greeting: "hi" },
      });
      assert.deepEqual(source.configured_props.greeting, "hi");
      const hooksOf = async () => (await summaries(account.api, source.id, { event_name: "lifecycle" }))[0]?.event.hooks;
      assert.deepEqual(await hooksOf(), ["deploy", "activate"]);

      const updated = await account.api.put(`/sources/${source.id}`, {
        component_id: source.component_id,
        configured_props: { greeting: "hello" },
        name: "renamed",
      });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.body.data.id, source.id);
      assert.equal(updated.body.data.name, "renamed");
      assert.equal(updated.body.data.configured_props.greeting, "hello");
      assert.equal(
        updated.body.data.configured_props.http.endpoint_url,
        source.configured_props.http.endpoint_url,
        "same endpoint after update",
      );
      assert.deepEqual(await hooksOf(), ["deploy", "activate", "deactivate", "activate"]);

      const disabled = await account.api.put(`/sources/${source.id}`, { component_id: source.component_id, active: false });
      assert.equal(disabled.body.data.active, false);
      assert.deepEqual(await hooksOf(), ["deploy", "activate", "deactivate", "activate", "deactivate"]);
      const enabled = await account.api.put(`/sources/${source.id}`, { component_id: source.component_id });
      assert.equal(enabled.body.data.active, true, "active defaults to true");
      assert.deepEqual(await hooksOf(), ["deploy", "activate", "deactivate", "activate", "deactivate", "activate"]);

      const noComponent = await account.api.put(`/sources/${source.id}`, { name: "x" });
      assert.equal(noComponent.status, 400);
      const otherAccount = await app.newAccount();
      assert.equal((await otherAccount.api.put(`/sources/${source.id}`, { component_id: source.component_id })).status, 404);
      assert.equal((await otherAccount.api.delete(`/sources/${source.id}`)).status, 404);
      assert.equal((await otherAccount.api.get(`/sources/${source.id}/event_summaries`)).status, 404);
    });

    it("update swaps the code and props under the same id", async () => {
      const source = await createSource(account.api, { component_code: fixtureCode("timer-interval.mjs") });
      const swapped = await account.api.put(`/sources/${source.id}`, { component_code: fixtureCode("http-scripted.cjs") });
      assert.equal(swapped.status, 200, swapped.text);
      assert.equal(swapped.body.data.id, source.id);
      assert.notEqual(swapped.body.data.component_id, source.component_id);
      assert.deepEqual(Object.keys(swapped.body.data.configured_props), ["http"]);
      const endpoint = swapped.body.data.configured_props.http.endpoint_url;
      const hit = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      assert.equal(hit.status, 200);
      await waitForEvents(account.api, source.id, 1, { event_name: "counter" });
    });

    it("delete runs deactivate, removes the source, its events and subscriptions to and from it", async () => {
      const source = await createSource(account.api, {
        component_code: fixtureCode("lifecycle-hooks.mjs"),
        configured_props: { greeting: "bye" },
      });
      const hook = await account.api.post("/webhooks", undefined, { url: "https://example.test/hook" });
      const from = await account.api.post("/subscriptions", undefined, { emitter_id: source.id, listener_id: hook.body.data.id });
      assert.equal(from.status, 200, from.text);
      const other = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      const to = await account.api.post("/subscriptions", undefined, { emitter_id: other.id, listener_id: source.id });
      assert.equal(to.status, 200, to.text);

      const deleted = await account.api.delete(`/sources/${source.id}`);
      assert.equal(deleted.status, 204);
      assert.equal((await account.api.get(`/sources/${source.id}/event_summaries`)).status, 404);
      assert.equal((await account.api.delete(`/sources/${source.id}`)).status, 404);
      const subs = await account.api.get("/users/me/subscriptions", { limit: 100 });
      assert.ok(!subs.body.data.some((s: any) => s.emitter_id === source.id || s.listener_id === source.id));
      const endpoint = await fetch(source.configured_props.http.endpoint_url, { method: "POST" });
      assert.equal(endpoint.status, 404);
    });

    it("auto-subscriptions subscribe listeners to sources created later", async () => {
      const hook = await account.api.post("/webhooks", undefined, { url: "https://example.test/auto" });
      const auto = await account.api.post("/auto_subscriptions", undefined, { listener_id: hook.body.data.id, event_name: "$errors" });
      assert.equal(auto.status, 200, auto.text);
      const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      const subs = await account.api.get("/users/me/subscriptions", { limit: 100 });
      assert.ok(
        subs.body.data.some((s: any) => s.emitter_id === source.id && s.listener_id === hook.body.data.id && s.event_name === "$errors"),
      );
    });
  });
}
