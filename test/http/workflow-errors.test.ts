// Workflow errors beyond the $errors stream: the global error workflow (e-mail over a local
// SMTP server, no loop on its own failures), $errors subscriptions to webhooks, and chains
// through subscriptions (source → workflow → webhook, auto-subscriptions, p_* globs).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { Receiver } from "../delivery/receiver.js";
import * as code from "../fixtures/workflows/steps.js";
import { MailCatcher } from "../fixtures/workflows/smtp.js";
import { waitFor } from "../helpers/wait-for.js";

const HTTP_SOURCE = `export default {
  name: "relay",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit({ relayed: event.body }); },
};`;

async function errorsOf(account: Account, id: string) {
  const res = await account.api.get(`/workflows/${id}/$errors/event_summaries`, { limit: 100, expand: "event" });
  assert.equal(res.status, 200, res.text);
  return res.body.data as any[];
}

async function errorWorkflowOf(account: Account) {
  const list = await account.api.get("/users/me/workflows", { limit: 100 });
  const found = list.body.data.find((w: any) => w.global_error_workflow);
  assert.ok(found, "every account has a global error workflow");
  return found;
}

const post = (url: string, json: unknown) => request(url, "POST", "", { json });

for (const dialect of DIALECTS) {
  describe(`workflow errors and chains [${dialect}]`, () => {
    let app: TestApp;
    let smtp: MailCatcher;
    let receiver: Receiver;
    before(async () => {
      smtp = await new MailCatcher().start();
      receiver = await new Receiver().start();
      app = await startTestApp(dialect, {
        smtpUrl: smtp.url,
        smtpFrom: "sluice@test.local",
        allowPrivateEgress: true,
        runTimeoutSeconds: 5,
        webhookRetryScheduleSeconds: [0],
      });
    });
    after(async () => {
      await app.close();
      await receiver.close();
      await smtp.close();
    });

    it("the global error workflow e-mails the account owner a summary of each error", async () => {
      const account = await app.newAccount();
      const global = await errorWorkflowOf(account);
      assert.equal(global.name, "Global error workflow");
      assert.equal(global.active, true);
      assert.match(global.steps[0].code, /\$\.send\.email/);
      const wf = (await account.api.post("/workflows", { name: "fails", steps: [{ code: code.THROWS }] })).body.data;
      assert.equal((await post(wf.endpoint_url, { ok: false })).status, 200);

      const [mail] = await waitFor(async () => smtp.to(account.email).length > 0 && smtp.to(account.email), {
        what: "the error e-mail",
        timeoutMs: 15_000,
        retryErrors: true,
      });
      assert.equal(mail!.from, "sluice@test.local");
      assert.match(mail!.raw, new RegExp(`Subject: Sluice: workflow ${wf.id} failed \\(TypeError\\)`));
      assert.match(mail!.raw, /boom from step/);
      assert.match(mail!.raw, new RegExp(wf.steps[0].id));
      // The error workflow ran on the $errors event: it shows no errors of its own.
      assert.equal((await errorsOf(account, global.id)).length, 0);
    });

    it("the global error workflow can be edited; its own failures are recorded once and never loop", async () => {
      const account = await app.newAccount();
      const global = await errorWorkflowOf(account);
      assert.equal((await account.api.delete(`/workflows/${global.id}`)).status, 400, "it cannot be deleted");
      const edited = await account.api.put(`/workflows/${global.id}`, { steps: [{ name: "broken", code: code.THROWS }] });
      assert.equal(edited.status, 200, edited.text);

      const wf = (await account.api.post("/workflows", { steps: [{ code: code.THROWS }] })).body.data;
      assert.equal((await post(wf.endpoint_url, { ok: false })).status, 200);
      const [globalError] = await waitFor(
        async () => {
          const errors = await errorsOf(account, global.id);
          return errors.length > 0 && errors;
        },
        { what: "the error workflow's own error", timeoutMs: 15_000, retryErrors: true },
      );
      assert.equal(globalError.event.original_context.workflow_id, global.id);
      assert.equal(globalError.event.original_context.source_type, "error");
      assert.equal(globalError.event.original_event.original_context.workflow_id, wf.id, "it ran on the first workflow's error");

      // A loop would queue the next run (or delivery) in the transaction that stored this error:
      // once the account's queued work has drained, the error must still be the only one.
      const db = app.sluice.services.ctx.db;
      await waitFor(async () => (await db.selectFrom("jobs").select("id").where("user_id", "=", account.id).execute()).length === 0, {
        what: "the account's queued work to drain",
        timeoutMs: 15_000,
        retryErrors: true,
      });
      assert.equal((await errorsOf(account, global.id)).length, 1);
      assert.equal((await errorsOf(account, wf.id)).length, 1);
      assert.equal(smtp.to(account.email).length, 0, "the broken error workflow sent nothing");
    });

    it("a $errors subscription delivers each error, with error, original_event and original_context, to a webhook", async () => {
      const account = await app.newAccount();
      const wf = (await account.api.post("/workflows", { steps: [{ code: code.QUIET }, { code: code.THROWS }] })).body.data;
      const hook = await account.api.post("/webhooks", undefined, { url: receiver.on(`/errors-${account.id}`, () => ({ status: 200 })) });
      assert.equal(hook.status, 200, hook.text);
      const sub = await account.api.post("/subscriptions", undefined, {
        emitter_id: wf.id,
        listener_id: hook.body.data.id,
        event_name: "$errors",
      });
      assert.equal(sub.status, 200, sub.text);

      await post(wf.endpoint_url, { ok: false, n: 7 });
      const [delivered] = await waitFor(
        async () => receiver.at(`/errors-${account.id}`).length > 0 && receiver.at(`/errors-${account.id}`),
        { what: "the webhook delivery", timeoutMs: 15_000, retryErrors: true },
      );
      const body = JSON.parse(delivered!.body);
      assert.deepEqual(Object.keys(body).sort(), ["error", "original_context", "original_event"]);
      assert.deepEqual(body.original_event.body, { ok: false, n: 7 });
      assert.equal(body.original_context.workflow_id, wf.id);
      assert.equal(body.error.cellId, wf.steps[1].id);
      assert.equal(delivered!.headers["x-sluice-emitter-id"], wf.id);
      assert.equal(delivered!.headers["x-sluice-event-name"], "$errors");
    });

    it("an emit whose webhook delivery fails for good is reported on the workflow's $errors in the spec's shape", async () => {
      const account = await app.newAccount();
      const wf = (await account.api.post("/workflows", { steps: [{ code: code.EMIT_TRIGGER_EVENT }] })).body.data;
      const hook = (await account.api.post("/webhooks", undefined, { url: receiver.on(`/dead-${account.id}`, () => ({ status: 500 })) }))
        .body.data;
      assert.equal((await account.api.post("/subscriptions", undefined, { emitter_id: wf.id, listener_id: hook.id })).status, 200);
      await post(wf.endpoint_url, { undeliverable: true });
      const [reported] = await waitFor(
        async () => {
          const errors = await errorsOf(account, wf.id);
          return errors.length > 0 && errors;
        },
        { what: "the delivery failure report", timeoutMs: 15_000, retryErrors: true },
      );
      assert.ok(receiver.at(`/dead-${account.id}`).length >= 2, "retried before giving up");
      const { error, original_context, original_event } = reported.event;
      assert.deepEqual(Object.keys(error).sort(), ["cellId", "code", "stack", "ts"]);
      assert.equal(error.code, "DELIVERY_FAILED");
      assert.equal(original_context.workflow_id, wf.id);
      assert.equal(original_context.source_type, "delivery");
      assert.deepEqual(original_event.received.body, { undeliverable: true });
      assert.equal(reported.event.delivery.listener_id, hook.id);
    });

    it("auto-subscriptions and p_* globs deliver workflow emits to a webhook", async () => {
      const account = await app.newAccount();
      const hook = (await account.api.post("/webhooks", undefined, { url: receiver.on(`/auto-${account.id}`, () => ({ status: 200 })) }))
        .body.data;
      const auto = await account.api.post("/auto_subscriptions", undefined, { listener_id: hook.id, event_name: "default" });
      assert.equal(auto.status, 200, auto.text);
      const wf = (await account.api.post("/workflows", { steps: [{ code: code.EMIT_TRIGGER_EVENT }] })).body.data;
      const subs = (await account.api.get("/users/me/subscriptions")).body.data;
      assert.ok(
        subs.some((s: any) => s.emitter_id === wf.id && s.listener_id === hook.id),
        "auto-subscribed at creation",
      );
      await post(wf.endpoint_url, { via: "auto" });
      const [viaAuto] = await waitFor(async () => receiver.at(`/auto-${account.id}`).length > 0 && receiver.at(`/auto-${account.id}`), {
        timeoutMs: 15_000,
        retryErrors: true,
      });
      assert.deepEqual(JSON.parse(viaAuto!.body).received.body, { via: "auto" });

      const globHook = (
        await account.api.post("/webhooks", undefined, { url: receiver.on(`/glob-${account.id}`, () => ({ status: 200 })) })
      ).body.data;
      assert.equal((await account.api.post("/subscriptions", undefined, { emitter_id: "p_*", listener_id: globHook.id })).status, 200);
      await post(wf.endpoint_url, { via: "glob" });
      const [viaGlob] = await waitFor(async () => receiver.at(`/glob-${account.id}`).length > 0 && receiver.at(`/glob-${account.id}`), {
        timeoutMs: 15_000,
        retryErrors: true,
      });
      assert.deepEqual(JSON.parse(viaGlob!.body).received.body, { via: "glob" });
    });

    it("source → workflow → webhook: a subscription runs the workflow with the source's event", async () => {
      const account = await app.newAccount();
      const source = await account.api.post("/sources", { component_code: HTTP_SOURCE, name: "relay" });
      assert.equal(source.status, 200, source.text);
      const sourceId = source.body.data.id;
      const endpoint = source.body.data.configured_props.http.endpoint_url;
      const wf = (await account.api.post("/workflows", { steps: [{ code: code.EMIT_TRIGGER_EVENT }] })).body.data;
      assert.equal((await account.api.post("/subscriptions", undefined, { emitter_id: sourceId, listener_id: wf.id })).status, 200);
      const hook = (await account.api.post("/webhooks", undefined, { url: receiver.on(`/chain-${account.id}`, () => ({ status: 200 })) }))
        .body.data;
      assert.equal((await account.api.post("/subscriptions", undefined, { emitter_id: wf.id, listener_id: hook.id })).status, 200);

      assert.equal((await post(endpoint, { hello: "chain" })).status, 200);
      const [delivered] = await waitFor(async () => receiver.at(`/chain-${account.id}`).length > 0 && receiver.at(`/chain-${account.id}`), {
        what: "the chained delivery",
        timeoutMs: 15_000,
        retryErrors: true,
      });
      const body = JSON.parse(delivered!.body);
      assert.deepEqual(body.received, { relayed: { hello: "chain" } });
      assert.equal(body.source_type, "subscription");
      assert.equal(delivered!.headers["x-sluice-emitter-id"], wf.id);
    });
  });
}
