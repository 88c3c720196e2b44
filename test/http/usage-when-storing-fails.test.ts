// An execution that ran is counted in usage even when storing its results fails: a free
// account whose runs all fail to store still uses up its daily invocations, and its endpoints
// then answer 429; and results that cannot be stored become one StoreError on $errors, the job
// completing with it rather than running the code again. The failure is a fault the test injects in the database (a trigger that
// refuses the emitter's events), so it holds whatever the service does with results it can
// apply.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode, waitForEvents } from "../fixtures/components/sources/helpers.js";
import * as steps from "../fixtures/workflows/steps.js";
import { waitFor } from "../helpers/wait-for.js";

const QUOTA = 3;

for (const dialect of DIALECTS) {
  describe(`usage when storing results fails [${dialect}]`, () => {
    let app: TestApp;

    /** From now on every event of `emitterId` is refused by the database (but its $errors when `butErrors`). */
    async function refuseEventsOf(emitterId: string, { butErrors = false } = {}): Promise<void> {
      assert.match(emitterId, /^[a-z]+_[A-Za-z0-9]+$/);
      const db = app.sluice.services.store.db;
      const name = `refuse_${emitterId}`;
      const refused = `new.emitter_id = '${emitterId}'${butErrors ? ` and new.stream <> '$errors'` : ""}`;
      if (dialect === "sqlite") {
        await sql
          .raw(`create trigger ${name} before insert on events when ${refused} begin select raise(abort, 'injected storage fault'); end`)
          .execute(db);
        return;
      }
      await sql
        .raw(
          `create function ${name}() returns trigger language plpgsql as $$ begin if ${refused} then raise exception 'injected storage fault'; end if; return new; end $$`,
        )
        .execute(db);
      await sql.raw(`create trigger ${name} before insert on events for each row execute function ${name}()`).execute(db);
    }

    const invocationsOf = async (account: Account) => (await account.api.get("/users/me")).body.data.daily_invocations_used as number;

    before(async () => {
      app = await startTestApp(dialect, { freeDailyInvocations: QUOTA });
    });
    after(async () => app.close());

    it("a source's runs whose events cannot be stored still use up the daily invocations, then its endpoint answers 429", async () => {
      const account = await app.newAccount({ plan: "free" });
      const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      await refuseEventsOf(source.id);
      const url = source.configured_props.http.endpoint_url;
      for (let i = 0; i < QUOTA; i++) assert.equal((await request(url, "POST", "", { json: { n: i } })).status, 200);
      await waitFor(async () => (await invocationsOf(account)) >= QUOTA, 20_000);
      const refused = await request(url, "POST", "", { json: { n: "over" } });
      assert.equal(refused.status, 429, refused.text);
      assert.match(refused.body.error, /quota/);
    });

    it("results that cannot be stored become one StoreError on $errors saying what was lost, and the run is not retried", async () => {
      const account = await app.newAccount({ plan: "free" });
      const source = await createSource(account.api, { component_code: fixtureCode("http-scripted.cjs") });
      await refuseEventsOf(source.id, { butErrors: true });
      const res = await request(source.configured_props.http.endpoint_url, "POST", "", {
        json: { emits: [{ event: { a: 1 } }], logs: [{ level: "log", message: "hello" }] },
      });
      assert.equal(res.status, 200, "accepted: the source runs from the queue");
      const [entry] = await waitForEvents(account.api, source.id, 1, { event_name: "$errors", expand: "event" });
      assert.equal(entry.event.error.name, "StoreError");
      assert.match(entry.event.error.message, /injected storage fault/);
      assert.match(entry.event.error.message, /its 2 events and 1 log lines were not kept/);
      // The job completed with its $errors entry (a failed one would stay, due again later): one invocation.
      const db = app.sluice.services.store.db;
      await waitFor(
        async () => (await db.selectFrom("jobs").select("id").where("user_id", "=", account.id).execute()).length === 0,
        20_000,
      );
      assert.equal(await invocationsOf(account), 1);
    });

    it("a workflow's runs whose events cannot be stored still use up the daily invocations, then its endpoint answers 429", async () => {
      const account = await app.newAccount({ plan: "free" });
      const workflow = (await account.api.post("/workflows", { steps: [{ code: steps.EMIT_TRIGGER_EVENT }] })).body.data;
      await refuseEventsOf(workflow.id);
      for (let i = 0; i < QUOTA; i++) {
        const res = await request(workflow.endpoint_url, "POST", "", { json: { n: i } });
        assert.notEqual(res.status, 429, `run ${i} refused before the quota was used up`);
      }
      await waitFor(async () => (await invocationsOf(account)) >= QUOTA, 20_000);
      const refused = await request(workflow.endpoint_url, "POST", "", { json: { n: "over" } });
      assert.equal(refused.status, 429, refused.text);
    });
  });
}
