// An execution whose results keep losing conflicts with another process (PostgreSQL deadlocks,
// 40P01, past the transaction's own retries) is run again by its job, not reduced to a
// StoreError: the event the endpoint accepted is stored once the conflict is gone. The
// conflict is injected by a trigger that raises 40P01 for the source's events until dropped.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode, summaries, waitForEvents } from "../fixtures/components/sources/helpers.js";
import { waitFor } from "../helpers/wait-for.js";

for (const dialect of DIALECTS.filter((name) => name === "postgres")) {
  describe(`results that lose conflicts with another process [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect, {}, { jobRetryBackoffMs: () => 50 });
    });
    after(async () => app?.close());

    it("are stored when the job runs again, and no StoreError is recorded", async () => {
      const account = await app.newAccount({ plan: "paid" });
      const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      assert.match(source.id, /^dc_[A-Za-z0-9]+$/);
      const db = app.sluice.services.store.db;
      const name = `deadlock_${source.id}`;
      await sql
        .raw(
          `create function ${name}() returns trigger language plpgsql as $$ begin if new.emitter_id = '${source.id}' and new.stream <> '$errors' then raise exception 'injected deadlock' using errcode = '40P01'; end if; return new; end $$`,
        )
        .execute(db);
      await sql.raw(`create trigger ${name} before insert on events for each row execute function ${name}()`).execute(db);

      const res = await request(source.configured_props.http.endpoint_url, "POST", "", { json: { emits: [{ event: { kept: true } }] } });
      assert.equal(res.status, 200);
      // The job failed and was claimed again (a claim counts an attempt), nothing was stored.
      await waitFor(async () => {
        const jobs = await db
          .selectFrom("jobs")
          .select("attempts")
          .where("user_id", "=", account.id)
          .where("type", "=", "source.run")
          .execute();
        return jobs.some((job) => Number(job.attempts) >= 2);
      }, 20_000);
      assert.deepEqual(await summaries(account.api, source.id, { event_name: "$errors" }), []);

      await sql.raw(`drop trigger ${name} on events`).execute(db);
      const stored = await waitForEvents(account.api, source.id, 1, {}, 20_000);
      assert.deepEqual(stored[0].event, { kept: true });
      assert.deepEqual(await summaries(account.api, source.id, { event_name: "$errors" }), [], "no StoreError");
    });
  });
}
