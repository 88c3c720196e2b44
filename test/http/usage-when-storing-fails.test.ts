// An execution that ran is counted in usage even when storing its results fails: a free
// account whose runs all fail to store still uses up its daily invocations, and its endpoints
// then answer 429. The failure is a fault the test injects in the database (a trigger that
// refuses the emitter's events), so it holds whatever the service does with results it can
// apply.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode } from "../fixtures/components/sources/helpers.js";
import * as steps from "../fixtures/workflows/steps.js";
import { waitFor } from "../helpers/wait-for.js";

const QUOTA = 3;

for (const dialect of DIALECTS) {
  describe(`usage when storing results fails [${dialect}]`, () => {
    let app: TestApp;

    /** From now on every event of `emitterId` is refused by the database. */
    async function refuseEventsOf(emitterId: string): Promise<void> {
      assert.match(emitterId, /^[a-z]+_[A-Za-z0-9]+$/);
      const db = app.sluice.services.store.db;
      const name = `refuse_${emitterId}`;
      if (dialect === "sqlite") {
        await sql
          .raw(
            `create trigger ${name} before insert on events when new.emitter_id = '${emitterId}' begin select raise(abort, 'injected storage fault'); end`,
          )
          .execute(db);
        return;
      }
      await sql
        .raw(
          `create function ${name}() returns trigger language plpgsql as $$ begin if new.emitter_id = '${emitterId}' then raise exception 'injected storage fault'; end if; return new; end $$`,
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
