// Pipedream's built-in `schedule` app: its sources (schedule-custom-interval, -daily, …) have an
// app prop of the `schedule` app and a `cron` prop that is a propDefinition of it, although the
// app defines none, and no run(). Deployed, such a source is a timer that emits each timer event.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, waitForEvents } from "../fixtures/components/sources/helpers.js";

// In the shape of the schedule app's published files (written here): an app with no propDefinitions.
const SCHEDULE_APP = `{ type: "app", app: "schedule", propDefinitions: {}, methods: { authKeys() { return Object.keys(this.$auth); } } }`;
const scheduleSource = (key: string, cronProp: string) => `const schedule = ${SCHEDULE_APP};
export default {
  name: "Custom Interval", version: "0.0.2", key: "${key}", type: "source",
  description: "Trigger your workflow every N hours, minutes or seconds.",
  props: { schedule, cron: ${cronProp} },
};`;

for (const dialect of DIALECTS) {
  describe(`the schedule app [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    before(async () => {
      app = await startTestApp(dialect, { minTimerSeconds: 1, runTimeoutSeconds: 10 });
      account = await app.newAccount();
    });
    after(async () => app?.close());

    it("schedule-custom-interval deploys as a timer and emits the timer event on its configured interval", async () => {
      const source = await createSource(account.api, {
        component_code: scheduleSource("schedule-custom-interval", `{ propDefinition: [schedule, "cron"] }`),
        configured_props: { cron: { intervalSeconds: 1 } },
      });
      assert.deepEqual(source.configured_props.cron, { cron: null, interval_seconds: 1 });
      const events = await waitForEvents(account.api, source.id, 2, { expand: "event" }, 30_000);
      const event = events[0].event;
      assert.equal(event.interval_seconds, 1);
      assert.ok(Number.isInteger(event.timestamp), JSON.stringify(event));
      const errors = await account.api.get(`/sources/${source.id}/event_summaries`, { event_name: "$errors" });
      assert.deepEqual(errors.body.data, []);
      assert.equal((await account.api.delete(`/sources/${source.id}`)).status, 204);
    });

    it("schedule-daily keeps the cron default its propDefinition is given; the registry shows the prop as a timer", async () => {
      const source = await createSource(account.api, {
        component_code: scheduleSource("schedule-daily", `{ propDefinition: [schedule, "cron"], default: { cron: "0 11 * * *" } }`),
      });
      assert.equal(source.configured_props.cron.cron, "0 11 * * *");
      const component = await account.api.get(`/components/${source.component_id}`);
      assert.equal(component.status, 200, component.text);
      const cron = component.body.data.configurable_props.find((p: any) => p.name === "cron");
      assert.equal(cron.type, "$.interface.timer");
      assert.deepEqual(cron.default, { cron: "0 11 * * *" });
      assert.equal((await account.api.delete(`/sources/${source.id}`)).status, 204);
    });
  });
}
