// Code steps that declare props, and actions an account saved: each step's `props` carry the
// configured values in a source's forms (app props as {authProvisionId}; an inline {$auth}
// becomes a connected account, kept by step and prop, never echoed; data stores as
// {dataStoreId}); the code reads this.<prop>, this.<app>.$auth and the app's and its own
// methods; an expired OAuth token is refreshed before the run; bad values are a 400 naming the
// step and the prop; {component_id} runs an action saved with POST /components.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { startTokenServer, type TokenServer } from "../helpers/oauth-token-server.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";

const GREET = `const demo = {
  type: "app",
  app: "demo",
  propDefinitions: { color: { type: "string", label: "Color", options: ["red", "blue"] } },
  methods: {
    token() {
      return this.$auth.oauth_access_token ?? this.$auth.api_key;
    },
  },
};
export default defineComponent({
  props: {
    demo,
    greeting: { type: "string" },
    times: { type: "integer", default: 2, min: 1 },
    loud: { type: "boolean", optional: true },
    color: { propDefinition: [demo, "color"] },
    store: { type: "data_store", optional: true },
    note: { type: "alert", alertType: "info", content: "display only" },
  },
  methods: {
    shout(text) {
      return this.loud ? text.toUpperCase() : text;
    },
  },
  async run({ steps, $ }) {
    $.export("$summary", "greeted");
    if (this.store) await this.store.set("greeted", ((await this.store.get("greeted")) ?? 0) + 1);
    const store = this.store ? await this.store.get("greeted") : null;
    return { text: this.shout(Array(this.times).fill(this.greeting).join(" ")), color: this.color, token: this.demo.token(), store };
  },
});`;

const REPORT = `export default { async run({ steps, $ }) { $.send.emit({ greet: steps.greet ?? null, act: steps.act ?? null }); } };`;

const ACTION = `export default {
  key: "my-add",
  name: "Add",
  version: "0.1.0",
  type: "action",
  props: { a: { type: "integer" }, b: { type: "integer", optional: true, default: 1 } },
  async run({ $ }) {
    $.export("$summary", "added " + this.a + " and " + this.b);
    $.export("inputs", [this.a, this.b]);
    return this.a + this.b;
  },
};`;

const SOURCE = `export default { key: "my-source", props: { http: "$.interface.http" }, async run(event) { this.$emit(event); } };`;

const nowSeconds = () => Math.floor(Date.now() / 1000);

for (const dialect of DIALECTS) {
  describe(`workflow steps with props [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    let tokens: TokenServer;
    before(async () => {
      tokens = await startTokenServer();
      app = await startTestApp(dialect, { allowPrivateEgress: true, runTimeoutSeconds: 10 });
      account = await app.newAccount({ plan: "paid" });
    });
    after(async () => {
      await app.close();
      await tokens.close();
    });

    /** Runs the workflow once and answers what its report step emitted. */
    async function runOnce(workflow: any, seen = 0): Promise<any> {
      const res = await request(workflow.endpoint_url, "POST", "", { json: {} });
      assert.equal(res.status, 200, res.text);
      return waitFor(
        async () => {
          const page = await account.api.get(`/workflows/${workflow.id}/event_summaries`);
          if (page.body.data.length > seen) return page.body.data[0].event;
          const errors = await account.api.get(`/workflows/${workflow.id}/event_summaries`, { event_name: "$errors", expand: "event" });
          if (errors.body.data.length > 0) throw new Error(`the run failed: ${JSON.stringify(errors.body.data[0].event.error)}`);
          return undefined;
        },
        { what: "the report", timeoutMs: 30_000 },
      );
    }

    const greetStep = (props: Record<string, unknown>, id?: string) => ({ ...(id ? { id } : {}), name: "greet", code: GREET, props });

    it("a code step reads its props, its app's $auth and methods; an inline $auth becomes a connected account, never shown", async () => {
      const store = await account.api.post("/data_stores", { name: "greetings" });
      assert.equal(store.status, 200, store.text);
      const dataStoreId = store.body.data.id as string;
      const props = { demo: { $auth: { api_key: "inline-secret-1" } }, greeting: "hi", color: "blue", store: { dataStoreId } };
      const created = await account.api.post("/workflows", { steps: [greetStep(props), { name: "report", code: REPORT }] });
      assert.equal(created.status, 200, created.text);
      const wf = created.body.data;
      assert.ok(!created.text.includes("inline-secret-1"), "credentials are never echoed");
      const step = wf.steps[0];
      assert.equal(step.type, "code");
      assert.equal(step.code, GREET);
      assert.match(step.props.demo.authProvisionId, /^apn_/);
      assert.deepEqual(step.props, {
        demo: { authProvisionId: step.props.demo.authProvisionId },
        greeting: "hi",
        color: "blue",
        store: { dataStoreId },
      });
      assert.deepEqual(wf.steps[1].props, {});

      const first = await runOnce(wf);
      assert.deepEqual(first.greet.$return_value, {
        text: "hi hi",
        color: "blue",
        token: "inline-secret-1",
        store: 1,
      });
      assert.equal(first.greet.$summary, "greeted");

      // The same step given a new inline $auth replaces that account's credentials.
      const updated = await account.api.put(`/workflows/${wf.id}`, {
        steps: [
          greetStep({ ...props, demo: { $auth: { api_key: "inline-secret-2" } }, loud: true, times: 3 }, step.id),
          { name: "report", code: REPORT },
        ],
      });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.body.data.steps[0].props.demo.authProvisionId, step.props.demo.authProvisionId);
      const second = await runOnce(updated.body.data, 1);
      assert.deepEqual(second.greet.$return_value, {
        text: "HI HI HI",
        color: "blue",
        token: "inline-secret-2",
        store: 2,
      });
      const shown = await account.api.get(`/workflows/${wf.id}`);
      assert.ok(!shown.text.includes("inline-secret"));

      // The account an inline $auth made goes with its workflow; one connected on its own stays.
      const accountIds = async () => (await account.api.get("/users/me/accounts", { limit: 100 })).body.data.map((a: any) => a.id);
      assert.ok((await accountIds()).includes(step.props.demo.authProvisionId));
      assert.equal((await account.api.delete(`/workflows/${wf.id}`)).status, 204);
      assert.ok(!(await accountIds()).includes(step.props.demo.authProvisionId));
    });

    it("a connected account by authProvisionId; an expired OAuth token is refreshed before the run", async () => {
      const connected = await account.api.post("/accounts", {
        app: "demo",
        credentials: {
          oauth_access_token: "old-access",
          oauth_refresh_token: "refresh-1",
          oauth_token_url: tokens.url,
          oauth_client_id: "client-1",
          oauth_client_secret: "client-secret",
          oauth_expires_at: nowSeconds() - 10,
        },
      });
      assert.equal(connected.status, 200, connected.text);
      tokens.answer = () => ({
        status: 200,
        body: { access_token: "new-access", refresh_token: "refresh-2", expires_in: 3600, token_type: "bearer" },
      });
      const created = await account.api.post("/workflows", {
        steps: [
          greetStep({ demo: { authProvisionId: connected.body.data.id }, greeting: "yo", color: "red" }),
          { name: "report", code: REPORT },
        ],
      });
      assert.equal(created.status, 200, created.text);
      const event = await runOnce(created.body.data);
      assert.equal(event.greet.$return_value.token, "new-access");
      assert.equal(tokens.requests.length, 1);
      assert.equal(tokens.requests[0]!.form.refresh_token, "refresh-1");
    });

    it("a refused OAuth refresh fails the run at that step, on $errors, without running that step", async () => {
      const connected = await account.api.post("/accounts", {
        app: "demo",
        credentials: {
          oauth_access_token: "stale-access",
          oauth_refresh_token: "refresh-refused",
          oauth_token_url: tokens.url,
          oauth_expires_at: nowSeconds() - 10,
        },
      });
      assert.equal(connected.status, 200, connected.text);
      tokens.answer = () => ({ status: 400, body: { error: "invalid_grant" } });
      const created = await account.api.post("/workflows", {
        steps: [
          { name: "report", code: REPORT },
          greetStep({ demo: { authProvisionId: connected.body.data.id }, greeting: "yo", color: "red" }),
        ],
      });
      assert.equal(created.status, 200, created.text);
      const wf = created.body.data;
      await request(wf.endpoint_url, "POST", "", { json: {} });
      const error = await waitFor(
        async () =>
          (await account.api.get(`/workflows/${wf.id}/event_summaries`, { event_name: "$errors", expand: "event" })).body.data[0]?.event
            .error,
        { what: "the run's error", timeoutMs: 30_000 },
      );
      assert.equal(error.code, "OAuthRefreshError");
      assert.equal(error.cellId, wf.steps[1].id);
      assert.match(error.stack, /step "greet".*invalid_grant/);
      assert.ok(!JSON.stringify(error).includes("refresh-refused"));
      // Each step's accounts are read as it starts: the step before ran, the failing one never did.
      const runs = await account.api.get(`/workflows/${wf.id}/runs`);
      const run = await account.api.get(`/workflows/${wf.id}/runs/${runs.body.data[0].id}`);
      assert.deepEqual(
        run.body.data.steps.map((step: any) => [step.name, step.status]),
        [
          ["report", "succeeded"],
          ["greet", "failed"],
        ],
      );
      assert.equal(run.body.data.steps[1].return_value ?? null, null);
      const emitted = await account.api.get(`/workflows/${wf.id}/event_summaries`);
      assert.deepEqual(
        emitted.body.data.map((e: any) => e.event),
        [{ greet: null, act: null }],
      );
    });

    it("evaluates {{ }} expressions in prop values against the steps before, as Pipedream does; a failing one names the prop", async () => {
      const TYPED = `export default {
  props: { greeting: { type: "string" }, count: { type: "integer" }, payload: { type: "object" }, tags: { type: "string[]" } },
  async run({ $ }) {
    $.send.emit({ greeting: this.greeting, count: this.count, payload: this.payload, tags: this.tags });
  },
};`;
      const created = await account.api.post("/workflows", {
        steps: [
          {
            name: "first",
            code: `export default { async run({ steps }) { return { user: { id: 7 }, echoed: steps.trigger.event.body.name }; } };`,
          },
          {
            name: "report",
            code: TYPED,
            props: {
              greeting: "Hello {{steps.trigger.event.body.name}}, you are {{ steps.first.$return_value.user }}!",
              count: "{{ steps.trigger.event.body.n + 1 }}",
              payload: "{{steps.first.$return_value}}",
              tags: [
                "{{steps.first.$return_value.echoed.toUpperCase()}}",
                "plain",
                "{{steps.first.$return_value.user.id}}-{{steps.trigger.event.body.n}}",
              ],
            },
          },
        ],
      });
      assert.equal(created.status, 200, created.text);
      assert.equal(created.body.data.steps[1].props.count, "{{ steps.trigger.event.body.n + 1 }}", "stored as written");
      const res = await request(created.body.data.endpoint_url, "POST", "", { json: { name: "Ada", n: 41 } });
      assert.equal(res.status, 200, res.text);
      const event = await waitFor(
        async () => (await account.api.get(`/workflows/${created.body.data.id}/event_summaries`)).body.data[0]?.event,
        { what: "the report", timeoutMs: 30_000 },
      );
      assert.deepEqual(event, {
        greeting: 'Hello Ada, you are {"id":7}!',
        count: 42,
        payload: { user: { id: 7 }, echoed: "Ada" },
        tags: ["ADA", "plain", "7-41"],
      });

      const broken = await account.api.post("/workflows", {
        steps: [{ name: "report", code: TYPED, props: { greeting: "{{steps.nope.value}}", count: 1, payload: {}, tags: [] } }],
      });
      assert.equal(broken.status, 200, broken.text);
      await request(broken.body.data.endpoint_url, "POST", "", { json: {} });
      const error = await waitFor(
        async () =>
          (await account.api.get(`/workflows/${broken.body.data.id}/event_summaries`, { event_name: "$errors", expand: "event" })).body
            .data[0]?.event.error,
        { what: "the run's error", timeoutMs: 30_000 },
      );
      assert.match(error.stack, /props\.greeting: the expression \{\{steps\.nope\.value\}\} failed: TypeError/);
    });

    it("refuses bad prop values with a 400 that names the step and the prop", async () => {
      const stranger = await app.newAccount();
      const theirs = await stranger.api.post("/accounts", { app: "demo", credentials: { api_key: "theirs" } });
      const other = await account.api.post("/accounts", { app: "other", credentials: { api_key: "x" } });
      const base = { greeting: "hi", color: "red" };
      const cases: Array<[Record<string, unknown>, number, RegExp]> = [
        [{ color: "red" }, 400, /step "greet": props\.greeting is required/],
        [{ ...base, greeting: 5 }, 400, /step "greet": props\.greeting must be a string/],
        [{ ...base, times: 0 }, 400, /step "greet": props\.times must be at least 1/],
        [{ ...base, times: 1.5 }, 400, /step "greet": props\.times must be an integer/],
        [{ ...base, loud: "yes" }, 400, /step "greet": props\.loud must be a boolean/],
        [{ ...base, color: "green" }, 400, /step "greet": props\.color must be one of its options/],
        [{ ...base, store: { id: "ds_x" } }, 400, /step "greet": props\.store must be a data store/],
        [{ ...base, store: { dataStoreId: "ds_missing" } }, 400, /step "greet": props\.store: data store ds_missing was not found/],
        [{ ...base, demo: { $auth: "nope" } }, 400, /step "greet": props\.demo/],
        [{ ...base, demo: { authProvisionId: other.body.data.id } }, 400, /step "greet": props\.demo is an app prop of "demo"/],
        [
          { ...base, demo: { authProvisionId: theirs.body.data.id } },
          404,
          /step "greet": props\.demo\.authProvisionId names no connected account/,
        ],
      ];
      for (const [props, status, message] of cases) {
        const res = await account.api.post("/workflows", { steps: [greetStep(props)] });
        assert.equal(res.status, status, `${JSON.stringify(props)} → ${res.text}`);
        assert.match(res.body.error, message);
      }
      const notObject = await account.api.post("/workflows", { steps: [{ name: "greet", code: GREET, props: ["x"] }] });
      assert.equal(notObject.status, 400);
    });

    it("an action that configures itself (additionalProps, reloadProps) gets its added props checked at save and on this", async () => {
      const configuring = `export default {
  key: "my-configuring", name: "Configuring", version: "0.1.0", type: "action",
  props: { mode: { type: "string", options: ["plain", "fancy"], reloadProps: true } },
  async additionalProps() {
    return this.mode === "fancy" ? { flourish: { type: "string", label: "Flourish" }, times: { type: "integer", default: 2 } } : {};
  },
  async run() { return this.mode === "fancy" ? this.flourish.repeat(this.times) : "plain"; },
};`;
      const saved = await account.api.post("/components", { component_code: configuring });
      assert.equal(saved.status, 200, saved.text);
      const step = (props: Record<string, unknown>) => ({ name: "act", component_id: saved.body.data.id, props });
      const missing = await account.api.post("/workflows", { steps: [step({ mode: "fancy" })] });
      assert.equal(missing.status, 400, missing.text);
      assert.match(missing.body.error, /step "act": props\.flourish is required/);
      const created = await account.api.post("/workflows", {
        steps: [step({ mode: "fancy", flourish: "*" }), { name: "report", code: REPORT }],
      });
      assert.equal(created.status, 200, created.text);
      const event = await runOnce(created.body.data);
      assert.equal(event.act.$return_value, "**");
      const plain = await account.api.post("/workflows", { steps: [step({ mode: "plain" }), { name: "report", code: REPORT }] });
      assert.equal(plain.status, 200, plain.text);
      assert.equal((await runOnce(plain.body.data)).act.$return_value, "plain");
    });

    it("a code step that configures itself (additionalProps) gets its added props checked at save and on this", async () => {
      const code = `export default defineComponent({
  props: { mode: { type: "string", options: ["plain", "fancy"], reloadProps: true } },
  async additionalProps() {
    return this.mode === "fancy" ? { flourish: { type: "string", label: "Flourish" }, times: { type: "integer", default: 3 } } : {};
  },
  async run() { return this.mode === "fancy" ? this.flourish.repeat(this.times) : "plain"; },
});`;
      const missing = await account.api.post("/workflows", { steps: [{ name: "act", code, props: { mode: "fancy" } }] });
      assert.equal(missing.status, 400, missing.text);
      assert.match(missing.body.error, /step "act": props\.flourish is required/);
      const wrong = await account.api.post("/workflows", {
        steps: [{ name: "act", code, props: { mode: "fancy", flourish: "*", times: "x" } }],
      });
      assert.equal(wrong.status, 400, wrong.text);
      assert.match(wrong.body.error, /step "act": props\.times must be an integer/);
      const created = await account.api.post("/workflows", {
        steps: [
          { name: "act", code, props: { mode: "fancy", flourish: "-" } },
          { name: "report", code: REPORT },
        ],
      });
      assert.equal(created.status, 200, created.text);
      assert.equal((await runOnce(created.body.data)).act.$return_value, "---");
    });

    it("runs an action the account saved ({component_id}); a source or another account's component is refused", async () => {
      const saved = await account.api.post("/components", { component_code: ACTION });
      assert.equal(saved.status, 200, saved.text);
      const created = await account.api.post("/workflows", {
        steps: [
          { name: "act", component_id: saved.body.data.id, props: { a: 40 } },
          { name: "report", code: REPORT },
        ],
      });
      assert.equal(created.status, 200, created.text);
      assert.deepEqual(created.body.data.steps[0], {
        id: created.body.data.steps[0].id,
        name: "act",
        type: "action",
        component_id: saved.body.data.id,
        props: { a: 40 },
      });
      const event = await runOnce(created.body.data);
      assert.equal(event.act.$return_value, 41);
      assert.deepEqual(event.act.inputs, [40, 1]);
      assert.equal(event.act.$summary, "added 40 and 1");

      // By key, as `sluice publish` leaves it: the account's own component comes before the registry's.
      const byKey = await account.api.post("/workflows", {
        steps: [
          { name: "act", action: "my-add", props: { a: 1, b: 2 } },
          { name: "report", code: REPORT },
        ],
      });
      assert.equal(byKey.status, 200, byKey.text);
      assert.equal(byKey.body.data.steps[0].version, "0.1.0");
      assert.equal((await runOnce(byKey.body.data)).act.$return_value, 3);
      const wrongVersion = await account.api.post("/workflows", {
        steps: [{ name: "act", action: "my-add", version: "2.0.0", props: { a: 1 } }],
      });
      assert.equal(wrongVersion.status, 400);
      assert.match(wrongVersion.body.error, /step "act": no published action "my-add" at version 2\.0\.0/);

      const missing = await account.api.post("/workflows", { steps: [{ name: "act", component_id: saved.body.data.id }] });
      assert.equal(missing.status, 400);
      assert.match(missing.body.error, /step "act": props\.a is required/);
      const source = await account.api.post("/components", { component_code: SOURCE });
      const notAction = await account.api.post("/workflows", { steps: [{ name: "act", component_id: source.body.data.id }] });
      assert.equal(notAction.status, 400);
      assert.match(notAction.body.error, /not an action/);
      const stranger = await app.newAccount();
      const theirs = await stranger.api.post("/workflows", { steps: [{ name: "act", component_id: saved.body.data.id, props: { a: 1 } }] });
      assert.equal(theirs.status, 400);
      assert.match(theirs.body.error, /names no component of this account/);
    });
  });
}
