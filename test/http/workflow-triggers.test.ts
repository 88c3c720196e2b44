// Workflow triggers in one call (POST /v1/workflows `trigger`): the default HTTP endpoint; a
// timer (interval, or cron in a time zone) whose source the service makes and removes with the
// workflow; a subscription to one of the account's sources; an e-mail address fed over SMTP.
// PUT changes the trigger (the old one's source goes); bad triggers are 400s that store nothing.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { SmtpDialog } from "../helpers/smtp-dialog.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";
import * as code from "../fixtures/workflows/steps.js";
import { createSource } from "../fixtures/components/sources/helpers.js";

const DOMAIN = "mail.sluice.test";

/** The workflow's emitted events, newest first, once there are at least `count`. */
function waitForEmits(account: Account, workflowId: string, count: number): Promise<any[]> {
  return waitFor(
    async () => {
      const res = await account.api.get(`/workflows/${workflowId}/event_summaries`, { limit: 100, expand: "event" });
      assert.equal(res.status, 200, res.text);
      return res.body.data.length >= count ? res.body.data : undefined;
    },
    { what: `${count} events of ${workflowId}`, timeoutMs: 30_000 },
  );
}

async function sendMail(url: string, to: string, subject: string): Promise<{ rcpt: string; data?: string }> {
  const { dialog } = await SmtpDialog.open(url);
  try {
    await dialog.command("EHLO sender.test");
    await dialog.command("MAIL FROM:<sender@sender.test>");
    const rcpt = await dialog.command(`RCPT TO:<${to}>`);
    if (!rcpt.startsWith("250")) return { rcpt };
    const message = [
      `From: <sender@sender.test>`,
      `To: ${to}`,
      `Subject: ${subject}`,
      `Message-ID: <${Date.now()}@sender.test>`,
      "",
      "hello",
      "",
    ];
    const data = await dialog.data(message.join("\r\n"));
    await dialog.command("QUIT").catch(() => undefined);
    return { rcpt, data };
  } finally {
    dialog.close();
  }
}

for (const dialect of DIALECTS) {
  describe(`workflow triggers [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    before(async () => {
      app = await startTestApp(dialect, { minTimerSeconds: 1, runTimeoutSeconds: 10, smtpInboundPort: 0, emailDomain: DOMAIN });
      account = await app.newAccount();
    });
    after(async () => app?.close());

    const create = async (body: Record<string, unknown>) => {
      const res = await account.api.post("/workflows", { steps: [{ code: code.EMIT_TRIGGER_EVENT }], ...body });
      assert.equal(res.status, 200, res.text);
      return res.body.data;
    };

    it("shows the default trigger as the workflow's HTTP endpoint", async () => {
      const wf = await create({ name: "plain" });
      assert.deepEqual(wf.trigger, { type: "http", endpoint_url: wf.endpoint_url });
      const explicit = await create({ name: "explicit", trigger: { type: "http" } });
      assert.deepEqual(explicit.trigger, { type: "http", endpoint_url: explicit.endpoint_url });
      assert.deepEqual((await account.api.get(`/workflows/${wf.id}`)).body.data.trigger, wf.trigger);
    });

    it("a timer trigger makes a timer source that runs the workflow; deleting the workflow deletes it", async () => {
      const wf = await create({ name: "ticking", trigger: { type: "timer", intervalSeconds: 1 } });
      assert.equal(wf.trigger.type, "timer");
      assert.equal(wf.trigger.intervalSeconds, 1);
      assert.match(wf.trigger.source_id, /^dc_/);
      assert.deepEqual((await account.api.get(`/workflows/${wf.id}`)).body.data.trigger, wf.trigger);
      const source = await account.api.get(`/sources/${wf.trigger.source_id}`);
      assert.equal(source.status, 200, source.text);
      assert.deepEqual(source.body.data.configured_props.timer, { cron: null, interval_seconds: 1 });

      const [latest] = await waitForEmits(account, wf.id, 2);
      assert.equal(latest.event.received.interval_seconds, 1);
      assert.ok(Number.isInteger(latest.event.received.timestamp), JSON.stringify(latest.event));

      assert.equal((await account.api.delete(`/workflows/${wf.id}`)).status, 204);
      assert.equal((await account.api.get(`/sources/${wf.trigger.source_id}`)).status, 404, "the timer source goes with the workflow");
    });

    it("a cron trigger keeps its time zone; bad schedules are 400s that store nothing", async () => {
      const wf = await create({ name: "nightly", trigger: { type: "timer", cron: "0 9 * * *", timezone: "Europe/Paris" } });
      assert.deepEqual(
        { ...wf.trigger, source_id: undefined },
        {
          type: "timer",
          cron: "0 9 * * *",
          timezone: "Europe/Paris",
          source_id: undefined,
        },
      );
      const source = (await account.api.get(`/sources/${wf.trigger.source_id}`)).body.data;
      assert.match(source.configured_props.timer.cron, /Europe\/Paris/);

      const before = (await account.api.get("/users/me/workflows", { limit: 100 })).body.page_info.total_count;
      const sourcesBefore = (await account.api.get("/users/me/sources", { limit: 100 })).body.page_info.total_count;
      const cases: Array<[unknown, RegExp]> = [
        [{ type: "timer", cron: "0 9 * * *", timezone: "Mars/Olympus" }, /timezone/],
        [{ type: "timer", cron: "not a cron" }, /cron/],
        [{ type: "timer", cron: "0 9 * * *", intervalSeconds: 60 }, /one of cron and intervalSeconds/],
        [{ type: "timer" }, /one of cron and intervalSeconds/],
        [{ type: "timer", intervalSeconds: 60, timezone: "UTC" }, /timezone/],
        [{ type: "timer", intervalSeconds: 0 }, /intervalSeconds/],
        [{ type: "source", source_id: "dc_unknown" }, /unknown source/],
        [{ type: "source" }, /source_id/],
        [{ type: "fax" }, /trigger/],
        [{ type: "email", source_id: "dc_x" }, /trigger\.source_id does not go with a trigger of type email/],
      ];
      for (const [trigger, message] of cases) {
        const res = await account.api.post("/workflows", { trigger, steps: [{ code: code.NEVER_RUNS }] });
        assert.equal(res.status, 400, `${JSON.stringify(trigger)} → ${res.text}`);
        assert.match(res.body.error, message, JSON.stringify(trigger));
      }
      assert.equal((await account.api.get("/users/me/workflows", { limit: 100 })).body.page_info.total_count, before);
      assert.equal((await account.api.get("/users/me/sources", { limit: 100 })).body.page_info.total_count, sourcesBefore);
    });

    it("a source trigger subscribes the workflow to the source; another account's source is refused", async () => {
      const hook = await createSource(account.api, { component_id: "http-webhook", name: "hook" });
      const wf = await create({ name: "listener", trigger: { type: "source", source_id: hook.id } });
      assert.deepEqual(wf.trigger, { type: "source", source_id: hook.id });
      const sent = await request(hook.configured_props.http.endpoint_url, "POST", "", { json: { hello: "source" } });
      assert.equal(sent.status, 200, sent.text);
      const [got] = await waitForEmits(account, wf.id, 1);
      assert.deepEqual(got.event.received.body, { hello: "source" });

      const stranger = await app.newAccount();
      const res = await stranger.api.post("/workflows", {
        trigger: { type: "source", source_id: hook.id },
        steps: [{ code: code.NEVER_RUNS }],
      });
      assert.equal(res.status, 400, res.text);
      assert.match(res.body.error, /unknown source/);

      assert.equal((await account.api.delete(`/workflows/${wf.id}`)).status, 204);
      assert.equal((await account.api.get(`/sources/${hook.id}`)).status, 200, "a source trigger's source is the account's own: it stays");
    });

    it("PUT changes the trigger: the old trigger's source or subscription goes, the new one runs the workflow", async () => {
      const hook = await createSource(account.api, { component_id: "http-webhook", name: "hook-2" });
      const wf = await create({ name: "changing" });
      const timed = await account.api.put(`/workflows/${wf.id}`, { trigger: { type: "timer", intervalSeconds: 3600 } });
      assert.equal(timed.status, 200, timed.text);
      const timerSource = timed.body.data.trigger.source_id;
      assert.match(timerSource, /^dc_/);
      const same = await account.api.put(`/workflows/${wf.id}`, {
        name: "changing-again",
        trigger: { type: "timer", intervalSeconds: 3600 },
      });
      assert.equal(same.body.data.trigger.source_id, timerSource, "the same trigger again keeps its source");
      assert.equal(same.body.data.name, "changing-again");

      const bad = await account.api.put(`/workflows/${wf.id}`, { trigger: { type: "timer", cron: "nope" } });
      assert.equal(bad.status, 400);
      assert.equal(
        (await account.api.get(`/workflows/${wf.id}`)).body.data.trigger.source_id,
        timerSource,
        "a refused change keeps the trigger",
      );

      const moved = await account.api.put(`/workflows/${wf.id}`, { trigger: { type: "source", source_id: hook.id } });
      assert.equal(moved.status, 200, moved.text);
      assert.deepEqual(moved.body.data.trigger, { type: "source", source_id: hook.id });
      assert.equal((await account.api.get(`/sources/${timerSource}`)).status, 404, "the timer source made for the old trigger is gone");
      await request(hook.configured_props.http.endpoint_url, "POST", "", { json: { n: 1 } });
      await waitForEmits(account, wf.id, 1);

      const back = await account.api.put(`/workflows/${wf.id}`, { trigger: { type: "http" } });
      assert.deepEqual(back.body.data.trigger, { type: "http", endpoint_url: wf.endpoint_url });
      const subs = await account.api.get("/users/me/subscriptions", { limit: 100 });
      assert.ok(!subs.body.data.some((s: any) => s.listener_id === wf.id), "the subscription to the source is gone");
    });

    it("an e-mail trigger shows its address; a message sent there runs the workflow; deleting the workflow frees the address", async () => {
      const wf = await create({ name: "inbox", trigger: { type: "email" } });
      assert.equal(wf.trigger.type, "email");
      assert.match(wf.trigger.email_address, new RegExp(`^[a-z0-9]+@${DOMAIN.replace(/\./g, "\\.")}$`));
      assert.deepEqual((await account.api.get(`/workflows/${wf.id}`)).body.data.trigger, wf.trigger);

      const smtpUrl = app.sluice.smtpUrl ?? "";
      const sent = await sendMail(smtpUrl, wf.trigger.email_address, "to the workflow");
      assert.match(sent.data ?? sent.rcpt, /^250/);
      const [got] = await waitForEmits(account, wf.id, 1);
      assert.equal(got.event.received.subject, "to the workflow");

      assert.equal((await account.api.delete(`/workflows/${wf.id}`)).status, 204);
      const refused = await sendMail(smtpUrl, wf.trigger.email_address, "too late");
      assert.match(refused.rcpt, /^550/);
    });
  });
}
