// additionalProps()/reloadProps and prop options, end to end over HTTP on both databases: the
// props additionalProps() adds are checked, shown and run (an HTTP or timer interface among
// them), reloaded only when a `reloadProps` prop changes; POST …/props/{prop}/options answers
// static lists as they are and runs async options() (paged, with app methods and $auth) in a
// runner, with a 4xx naming the prop when it cannot reach the network.
import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { waitFor } from "../helpers/wait-for.js";

const DYNAMIC = `
export default {
  key: "dynamic-demo",
  name: "Dynamic Demo",
  version: "0.1.0",
  props: {
    mode: { type: "string", label: "Mode", options: ["http", "timer"], reloadProps: true },
    note: { type: "string", optional: true },
  },
  async additionalProps(existing) {
    const props = { greeting: { type: "string", optional: true, default: "from-" + (this.note ?? "none") + "-" + Object.keys(existing).join("+") } };
    if (this.mode === "http") props.http = { type: "$.interface.http", customResponse: true };
    else props.timer = { type: "$.interface.timer", default: { intervalSeconds: 3600 } };
    props.size = { type: "integer", label: "Size", async options({ page }) { return [page + 1, page + 2]; } };
    return props;
  },
  async run(event) {
    if (this.http) this.http.respond({ status: 200, body: { greeting: this.greeting, size: this.size, mode: this.mode } });
    else this.$emit({ greeting: this.greeting, every: this.timer.intervalSeconds, timestamp: event.timestamp });
  },
};
`;

const OPTIONS = `
const chat = {
  type: "app",
  app: "chat",
  propDefinitions: {
    room: {
      type: "string",
      label: "Room",
      async options({ page, prevContext, kind }) {
        return { options: await this.rooms(kind, prevContext.after ?? 0), context: { after: (prevContext.after ?? 0) + 2 } };
      },
    },
  },
  methods: {
    async rooms(kind, after) {
      return [after + 1, after + 2].map((n) => ({ label: kind + " room " + n, value: this.$auth.team + "-" + n }));
    },
  },
};
export default {
  key: "options-demo",
  name: "Options Demo",
  version: "0.1.0",
  props: {
    chat,
    kind: { type: "string", options: [{ label: "Public", value: "public" }, { label: "Private", value: "private" }] },
    room: { propDefinition: [chat, "room", (c) => ({ kind: c.kind })] },
    word: {
      type: "string",
      useQuery: true,
      async options({ query, page }) { return ["apple", "apricot", "banana"].filter((w) => w.startsWith(query ?? "")).map((w) => w + page); },
    },
    remote: { type: "string", async options() { const res = await fetch("http://127.0.0.1:65535/list"); return res.json(); } },
    plain: { type: "string", optional: true },
  },
  async run() {},
};
`;

for (const dialect of DIALECTS) {
  describe(`component props: additionalProps and options [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    before(async () => {
      const registryDir = await mkdtemp(join(tmpdir(), "sluice-registry-"));
      await writeFile(join(registryDir, "options-demo.mjs"), OPTIONS);
      app = await startTestApp(dialect, { runTimeoutSeconds: 10, registryDir, minTimerSeconds: 1 });
      account = await app.newAccount();
    });
    after(() => app?.close());

    it("runs additionalProps() at save: its props are required, shown and run, an HTTP interface among them", async () => {
      const missing = await account.api.post("/sources", { component_code: DYNAMIC, configured_props: {} });
      assert.equal(missing.status, 400);
      assert.match(missing.body.error, /mode/);

      const created = await account.api.post("/sources", {
        component_code: DYNAMIC,
        configured_props: { mode: "http", note: "a", size: 3 },
      });
      assert.equal(created.status, 200, created.text);
      const props = created.body.data.configured_props;
      assert.equal(props.greeting, "from-a-mode+note", "this holds the configured values; the argument, the component's own props");
      assert.equal(props.size, 3);
      assert.match(props.http.endpoint_url, /\/e\//);
      const answer = await fetch(props.http.endpoint_url, { method: "POST", body: "{}" });
      assert.equal(answer.status, 200);
      assert.deepEqual(await answer.json(), { greeting: "from-a-mode+note", size: 3, mode: "http" });

      const shown = await account.api.get(`/sources/${created.body.data.id}`);
      assert.equal(shown.body.data.configured_props.greeting, "from-a-mode+note");
      assert.ok(shown.body.data.configured_props.http.endpoint_url);
    });

    it("reloads the props when a reloadProps prop changes, not otherwise: a timer then replaces the endpoint", async () => {
      const created = await account.api.post("/sources", {
        component_code: DYNAMIC,
        configured_props: { mode: "http", note: "a", size: 1 },
      });
      assert.equal(created.status, 200, created.text);
      const id = created.body.data.id;
      const component_id = created.body.data.component_id;

      const sameMode = await account.api.put(`/sources/${id}`, { component_id, configured_props: { mode: "http", note: "b", size: 1 } });
      assert.equal(sameMode.status, 200, sameMode.text);
      assert.equal(sameMode.body.data.configured_props.greeting, "from-a-mode+note", "note has no reloadProps: the props stay");

      const timer = await account.api.put(`/sources/${id}`, { component_id, configured_props: { mode: "timer", note: "b", size: 1 } });
      assert.equal(timer.status, 200, timer.text);
      const props = timer.body.data.configured_props;
      assert.equal(props.greeting, "from-b-mode+note", "mode changed: additionalProps() ran again");
      assert.deepEqual(props.timer, { cron: null, interval_seconds: 3600 });
      assert.equal(props.http, undefined);

      // The timer additionalProps() gave runs the source on its schedule, with the props on `this`.
      const fast = await account.api.put(`/sources/${id}`, {
        component_id,
        configured_props: { mode: "timer", note: "b", size: 1, timer: { intervalSeconds: 1 } },
      });
      assert.equal(fast.status, 200, fast.text);
      assert.deepEqual(fast.body.data.configured_props.timer, { cron: null, interval_seconds: 1 });
      const emitted = await waitFor(
        async () => {
          const events = await account.api.get(`/sources/${id}/event_summaries`);
          return events.body.data?.find((summary: { event: { every?: number } }) => summary.event.every !== undefined);
        },
        { what: "an event of the timer additionalProps() added", timeoutMs: 30_000 },
      );
      assert.equal(emitted.event.greeting, "from-b-mode+note");
      assert.equal(typeof emitted.event.timestamp, "number");
    });

    it("answers the props a form shows after a reload, and the options of a prop additionalProps() added", async () => {
      const saved = await account.api.post("/components", { component_code: DYNAMIC });
      assert.equal(saved.status, 200, saved.text);
      const componentId = saved.body.data.id;
      const mode = saved.body.data.configurable_props.find((prop: { name: string }) => prop.name === "mode");
      assert.equal(mode.reloadProps, true);
      assert.equal(saved.body.data.additional_props, true);

      const reloaded = await account.api.post(`/components/${componentId}/props/reload`, { configured_props: { mode: "timer" } });
      assert.equal(reloaded.status, 200, reloaded.text);
      assert.deepEqual(
        reloaded.body.configurable_props.map((prop: { name: string; type: string }) => `${prop.name}:${prop.type}`),
        ["mode:string", "note:string", "greeting:string", "timer:$.interface.timer", "size:integer"],
      );
      assert.equal(reloaded.body.configurable_props.at(-1).remoteOptions, true);

      const size = await account.api.post(`/components/${componentId}/props/size/options`, {
        configured_props: { mode: "timer" },
        page: 4,
      });
      assert.equal(size.status, 200, size.text);
      assert.deepEqual(size.body, { options: [5, 6], context: null });
    });

    it("answers static options as they are, and runs async options() with query, page, prevContext, app methods and $auth", async () => {
      const saved = await account.api.post("/components", { component_code: OPTIONS });
      assert.equal(saved.status, 200, saved.text);
      const id = saved.body.data.id;
      const room = saved.body.data.configurable_props.find((prop: { name: string }) => prop.name === "room");
      assert.equal(room.remoteOptions, true);

      const kinds = await account.api.post(`/components/${id}/props/kind/options`, {});
      assert.deepEqual(kinds.body, {
        options: [
          { label: "Public", value: "public" },
          { label: "Private", value: "private" },
        ],
        context: null,
      });

      const words = await account.api.post(`/components/${id}/props/word/options`, { query: "ap", page: 2 });
      assert.deepEqual(words.body, { options: ["apple2", "apricot2"], context: null });

      const connected = await account.api.post("/accounts", { app: "chat", name: "team chat", credentials: { team: "acme" } });
      assert.equal(connected.status, 200, connected.text);
      const configured = { chat: { authProvisionId: connected.body.data.id }, kind: "private" };
      const first = await account.api.post(`/components/${id}/props/room/options`, { configured_props: configured });
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(first.body, {
        options: [
          { label: "private room 1", value: "acme-1" },
          { label: "private room 2", value: "acme-2" },
        ],
        context: { after: 2 },
      });
      const next = await account.api.post(`/components/${id}/props/room/options`, {
        configured_props: configured,
        prevContext: first.body.context,
      });
      assert.deepEqual(
        next.body.options.map((option: { value: string }) => option.value),
        ["acme-3", "acme-4"],
      );
    });

    it("refuses what has no options: an options() without network is a 400 naming the prop, an unknown prop a 404", async () => {
      const saved = await account.api.post("/components", { component_code: OPTIONS });
      const id = saved.body.data.id;
      const remote = await account.api.post(`/components/${id}/props/remote/options`, {});
      assert.equal(remote.status, 400, remote.text);
      assert.match(remote.body.error, /prop "remote"/);
      assert.match(remote.body.error, /fetch failed \(egress .* refused\)/, "the cause says why");
      const plain = await account.api.post(`/components/${id}/props/plain/options`, {});
      assert.equal(plain.status, 400);
      assert.match(plain.body.error, /prop "plain" has no options/);
      const unknown = await account.api.post(`/components/${id}/props/nothing/options`, {});
      assert.equal(unknown.status, 404);
      assert.match(unknown.body.error, /nothing/);
      const badQuery = await account.api.post(`/components/${id}/props/word/options`, { query: 5 });
      assert.equal(badQuery.status, 400);
    });

    it("answers the options of a published registry component by key", async () => {
      const words = await account.api.post("/components/registry/options-demo/props/word/options", { query: "b" });
      assert.equal(words.status, 200, words.text);
      assert.deepEqual(words.body, { options: ["banana0"], context: null });
      const kinds = await account.api.post("/components/registry/options-demo/props/kind/options", {});
      assert.equal(kinds.body.options.length, 2);
      const unknown = await account.api.post("/components/registry/no-such-key/props/word/options", {});
      assert.equal(unknown.status, 404);
    });
  });
}
