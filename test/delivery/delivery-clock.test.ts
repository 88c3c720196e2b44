// Deliveries and their jobs are stamped with the context's clock, the time the events were
// stored, not the machine's: appendEvents → fanOut → enqueueJobs take the time from it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { appendEvents } from "../../src/domain/events/append-events.js";
import { newId } from "../../src/lib/ids.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";

for (const dialect of DIALECTS) {
  describe(`delivery stamps follow the injected clock [${dialect}]`, () => {
    // An hour behind the machine: far from Date.now(), and due at once should a worker look.
    const fixedNow = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
    let app: TestApp;
    let account: Account;

    before(async () => {
      // No worker: the deliveries and jobs stay as written.
      app = await startTestApp(dialect, { allowPrivateEgress: true }, { roles: ["api"], clock: { now: () => fixedNow } });
      account = await app.newAccount();
    });
    after(() => app.close());

    it("writes the delivery and its job at the clock's time", async () => {
      const ctx = app.sluice.services.ctx;
      const hook = await account.api.post("/webhooks", undefined, { url: "http://127.0.0.1:9/hook" });
      const emitter = newId("dc");
      await ctx.db
        .insertInto("subscriptions")
        .values({
          id: newId("sub"),
          user_id: account.id,
          emitter_id: emitter,
          listener_id: hook.body.data.id as string,
          event_name: "",
          created_at: fixedNow,
        })
        .execute();
      await ctx.db.transaction().execute((trx) =>
        appendEvents(ctx, trx, {
          userId: account.id,
          emitterId: emitter,
          nowMs: ctx.clock.now(),
          events: [{ stream: "", event: { n: 1 } }],
          limits: ctx.eventLimits,
        }),
      );
      const delivery = await ctx.db
        .selectFrom("deliveries")
        .select(["id", "created_at", "updated_at", "next_attempt_at"])
        .where("emitter_id", "=", emitter)
        .executeTakeFirstOrThrow();
      assert.deepEqual([delivery.created_at, delivery.updated_at, delivery.next_attempt_at].map(Number), [fixedNow, fixedNow, fixedNow]);
      const jobs = await ctx.db.selectFrom("jobs").select(["payload", "created_at", "run_at"]).execute();
      const job = jobs.find((row) => row.payload.includes(delivery.id));
      assert.ok(job, "the delivery's job was enqueued");
      assert.deepEqual([job.created_at, job.run_at].map(Number), [fixedNow, fixedNow]);
    });
  });
}
