// The deliveries API on each dialect: listing with attempts and status filter, re-sending one
// or all failed deliveries in a time range, and secret rotation with overlapping signatures.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { fanOut } from "../../src/domain/deliveries/fan-out.js";
import type { StoredEvent } from "../../src/domain/events/stored-event.js";
import { newId } from "../../src/lib/ids.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";
import { Receiver } from "./receiver.js";

let sequence = 0;

for (const dialect of DIALECTS) {
  describe(`deliveries API [${dialect}]`, () => {
    let app: TestApp;
    let receiver: Receiver;
    let account: Account;

    before(async () => {
      receiver = await new Receiver().start();
      app = await startTestApp(dialect, { allowPrivateEgress: true, webhookRetryScheduleSeconds: [0.05] });
      account = await app.newAccount();
    });
    after(async () => {
      await app.close();
      await receiver.close();
    });

    async function hookWithEmitter(path: string) {
      const res = await account.api.post("/webhooks", undefined, { url: receiver.url + path });
      const hook = { id: res.body.data.id as string, secret: res.body.data.signing_secret as string, emitter: newId("dc") };
      const db = app.sluice.services.ctx.db;
      await db
        .insertInto("subscriptions")
        .values({
          id: newId("sub"),
          user_id: account.id,
          emitter_id: hook.emitter,
          listener_id: hook.id,
          event_name: "",
          created_at: Date.now(),
        })
        .execute();
      return hook;
    }

    async function emit(emitterId: string, event: unknown): Promise<void> {
      const now = Date.now();
      const stored: StoredEvent = {
        id: `${now}-${sequence++}`,
        userId: account.id,
        emitterId,
        stream: "",
        event,
        metadata: {},
        indexedAtMs: now,
      };
      await app.sluice.services.ctx.db.transaction().execute((trx) => fanOut(trx, [stored], { now: Date.now() }));
    }

    const jobsOf = async (deliveryId: string) =>
      (await app.sluice.services.ctx.db.selectFrom("jobs").select("id").where("payload", "=", JSON.stringify({ deliveryId })).execute())
        .length;

    const list = (hookId: string, query: Record<string, string | number> = {}) => account.api.get(`/webhooks/${hookId}/deliveries`, query);

    it("lists deliveries with their attempts, filters by status and paginates", async () => {
      let healthy = false;
      receiver.on("/listed", (r) =>
        healthy || JSON.parse(r.body).n === 1 ? { status: 200, body: "fine" } : { status: 500, body: "nope" },
      );
      const hook = await hookWithEmitter("/listed");
      await emit(hook.emitter, { n: 1 });
      await emit(hook.emitter, { n: 2 });
      await waitFor(async () => (await list(hook.id, { status: "pending" })).body.page_info.total_count === 0);

      const all = await list(hook.id);
      assert.equal(all.status, 200);
      assert.equal(all.body.page_info.total_count, 2);
      const [newest, oldest] = all.body.data;
      assert.deepEqual(newest.event, { n: 2 });
      assert.equal(newest.status, "failed");
      assert.equal(newest.attempt_count, 2);
      assert.deepEqual(
        newest.attempts.map((a: any) => a.status_code),
        [500, 500],
      );
      assert.equal(newest.last_attempt.response_excerpt, "nope");
      assert.ok(Number.isInteger(newest.last_attempt.duration_ms));
      assert.ok(Math.abs(newest.created_at - Date.now() / 1000) < 60, "unix seconds");
      assert.equal(oldest.status, "succeeded");
      assert.equal(oldest.last_attempt.status_code, 200);
      assert.equal(oldest.emitter_id, hook.emitter);

      const failed = await list(hook.id, { status: "failed" });
      assert.deepEqual(
        failed.body.data.map((d: any) => d.id),
        [newest.id],
      );
      const page1 = await list(hook.id, { limit: 1 });
      const page2 = await list(hook.id, { limit: 1, after: page1.body.page_info.end_cursor });
      assert.deepEqual([page1.body.data[0].id, page2.body.data[0].id], [newest.id, oldest.id]);
      assert.equal((await list(hook.id, { status: "lost" })).status, 400);

      // Re-send the failed one: it arrives again with the same webhook-id and succeeds.
      healthy = true;
      const resent = await account.api.post(`/webhooks/${hook.id}/deliveries/${newest.id}/resend`);
      assert.equal(resent.status, 200);
      assert.equal(resent.body.data.status, "pending");
      await waitFor(async () => (await list(hook.id, { status: "succeeded" })).body.page_info.total_count === 2);
      const sends = receiver.at("/listed").filter((r) => r.headers["webhook-id"] === newest.id);
      assert.equal(sends.length, 3);
      const again = (await list(hook.id)).body.data[0];
      assert.deepEqual(
        again.attempts.map((a: any) => a.status_code),
        [500, 500, 200],
      );

      const unknown = await account.api.post(`/webhooks/${hook.id}/deliveries/del_nope/resend`);
      assert.equal(unknown.status, 404);
    });

    it("re-sends all failed deliveries in a time range, and a pending one without a second attempt at once", async () => {
      let healthy = false;
      receiver.on("/bulk", () => (healthy ? { status: 200 } : { status: 500 }));
      const hook = await hookWithEmitter("/bulk");
      for (let n = 0; n < 3; n++) await emit(hook.emitter, { n });
      await waitFor(async () => (await list(hook.id, { status: "failed" })).body.page_info.total_count === 3);
      const future = Math.floor(Date.now() / 1000) + 3600;
      const none = await account.api.post(`/webhooks/${hook.id}/deliveries/resend`, undefined, {
        status: "failed",
        from: future,
        to: future + 10,
      });
      assert.deepEqual(none.body, { data: { resent: 0 } });
      assert.equal((await account.api.post(`/webhooks/${hook.id}/deliveries/resend`, undefined, { from: 10, to: 5 })).status, 400);
      healthy = true;
      const now = Math.floor(Date.now() / 1000);
      const res = await account.api.post(`/webhooks/${hook.id}/deliveries/resend`, undefined, {
        status: "failed",
        from: now - 60,
        to: now,
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { data: { resent: 3 } });
      await waitFor(async () => (await list(hook.id, { status: "succeeded" })).body.page_info.total_count === 3);

      // A delivery whose attempt is in flight right now: the resend is that attempt, so it adds
      // no job and no second concurrent request.
      receiver.on("/pending", () => ({ status: 200, hang: true }));
      const slow = await hookWithEmitter("/pending");
      await emit(slow.emitter, {});
      await waitFor(() => receiver.at("/pending").length === 1);
      const pending = (await list(slow.id)).body.data[0];
      const again = await account.api.post(`/webhooks/${slow.id}/deliveries/${pending.id}/resend`);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.data.status, "pending");
      assert.equal(await jobsOf(pending.id), 1);
    });

    it("re-sends a pending delivery waiting for its retry at once, with one job", async () => {
      let healthy = false;
      // Retry-After puts the next attempt an hour away.
      receiver.on("/later", () => (healthy ? { status: 200 } : { status: 503, headers: { "retry-after": "3600" } }));
      const hook = await hookWithEmitter("/later");
      await emit(hook.emitter, { later: true });
      await waitFor(async () => (await list(hook.id)).body.data[0]?.attempt_count === 1);
      const waiting = (await list(hook.id)).body.data[0];
      assert.equal(waiting.status, "pending");
      assert.ok(waiting.next_attempt_at > Date.now() / 1000 + 3000, `next attempt at ${waiting.next_attempt_at}`);
      healthy = true;
      const resent = await account.api.post(`/webhooks/${hook.id}/deliveries/${waiting.id}/resend`);
      assert.equal(resent.status, 200, resent.text);
      assert.equal(resent.body.data.status, "pending");
      assert.ok(resent.body.data.next_attempt_at <= Math.ceil(Date.now() / 1000), "brought forward to now");
      assert.ok((await jobsOf(waiting.id)) <= 1, "the waiting job was replaced, not joined by a second");
      await waitFor(async () => (await list(hook.id)).body.data[0].status === "succeeded");
      const done = (await list(hook.id)).body.data[0];
      assert.deepEqual(
        done.attempts.map((a: any) => a.status_code),
        [503, 200],
      );
      assert.equal(await jobsOf(waiting.id), 0);
    });

    it("rotates the secret: shown once, and the old secret keeps signing beside the new one", async () => {
      const hook = await hookWithEmitter("/rotated");
      const rotated = await account.api.post(`/webhooks/${hook.id}/rotate_secret`);
      assert.equal(rotated.status, 200);
      const newSecret = rotated.body.data.signing_secret;
      assert.match(newSecret, /^whsec_/);
      assert.notEqual(newSecret, hook.secret);
      assert.ok(rotated.body.data.previous_secret_expires_at - Date.now() / 1000 > 23 * 3600);
      assert.equal((await account.api.get(`/webhooks/${hook.id}`)).body.data.signing_secret, undefined);

      await emit(hook.emitter, { rotated: true });
      await waitFor(() => receiver.at("/rotated").length === 1);
      const got = receiver.at("/rotated")[0]!;
      const headers = {
        "webhook-id": String(got.headers["webhook-id"]),
        "webhook-timestamp": String(got.headers["webhook-timestamp"]),
        "webhook-signature": String(got.headers["webhook-signature"]),
      };
      assert.equal(headers["webhook-signature"].split(" ").length, 2);
      assert.deepEqual(new Webhook(newSecret).verify(got.body, headers), { rotated: true });
      assert.deepEqual(new Webhook(hook.secret).verify(got.body, headers), { rotated: true });
    });
  });
}
