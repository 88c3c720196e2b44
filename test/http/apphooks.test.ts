// Apphooks: every connected account has an inbound URL (webhook_url, /a/<key>); events posted
// there run the account's sources whose `$.interface.apphook` prop follows it, filtered by the
// names their eventNames() chose (header, ?event=, body `type`, body `event.type`); Slack's URL
// verification is answered with its challenge; Slack's, Zoom's and Discord's own payloads run
// Pipedream-shaped sources (Slack's envelope unwrapped); bad input is a 4xx, never a 5xx.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { createSource, fixtureCode, summaries, waitForEvents } from "../fixtures/components/sources/helpers.js";
import { waitFor } from "../helpers/wait-for.js";

const SECRET = "xoxb-apphook-do-not-show-5e1d";

const slackCode = (hook: string) =>
  `export default { props: { slack: { type: "app", app: "slack" }, hook: ${hook} }, async run(event) { this.$emit({ event }); } };`;
const STATIC_NAMES = slackCode(`{ type: "$.interface.apphook", appProp: "slack", eventNames: ["reaction_added"] }`);
const NO_NAMES = slackCode(`{ type: "$.interface.apphook", appProp: "slack" }`);
const EMPTY_NAMES = slackCode(`{ type: "$.interface.apphook", appProp: "slack", eventNames() { return []; } }`);

// In the shape of Pipedream's own instant sources (written here): each reads the event as its
// provider's payload holds it, and names the events it takes in eventNames().
const PD_SLACK_CHANNELS = `export default {
  key: "test-slack-new-message-in-channels", type: "source", dedupe: "unique",
  props: {
    slack: { type: "app", app: "slack" },
    conversations: { type: "string[]", label: "Channels", optional: true },
    slackApphook: { type: "$.interface.apphook", appProp: "slack", async eventNames() { return this.conversations || []; } },
  },
  async run(event) {
    if (event.type !== "message") return;
    this.$emit({ channel: event.channel, text: event.text }, { id: event.client_msg_id });
  },
};`;
const slackSource = (names: string) => `export default {
  type: "source", dedupe: "unique",
  props: {
    slack: { type: "app", app: "slack" },
    conversations: { type: "string[]", label: "Channels", optional: true },
    slackApphook: { type: "$.interface.apphook", appProp: "slack", async eventNames() { return ${names}; } },
  },
  async run(event) {
    const channel = event.channel ?? event.item.channel;
    this.$emit({ channel, ...(event.text ? { text: event.text } : {}) }, { id: event.ts ?? event.item.ts });
  },
};`;
const PD_SLACK_INTERACTIONS = `export default {
  type: "source",
  props: {
    slack: { type: "app", app: "slack" },
    action_ids: { type: "string[]", label: "Action IDs", optional: true, default: [] },
    conversations: { type: "string[]", label: "Channels", optional: true, default: [] },
    slackApphook: {
      type: "$.interface.apphook", appProp: "slack",
      async eventNames() {
        const names = this.action_ids.flatMap((a) => this.conversations.length ? this.conversations.map((c) => "interaction_events:" + c + ":" + a) : ["interaction_events:" + a]);
        return names.length ? names : ["interaction_events"];
      },
    },
  },
  async run(event) {
    this.$emit({ channel: event.channel.id, actions: event.actions.map((a) => a.action_id) });
  },
};`;
const PD_ZOOM_MEETINGS = `export default {
  type: "source", dedupe: "unique",
  props: { zoom: { type: "app", app: "zoom" }, zoomApphook: { type: "$.interface.apphook", appProp: "zoom", eventNames: ["meeting.created"] } },
  async run(event) {
    const { object } = event.payload;
    this.$emit({ topic: object.topic }, { id: object.uuid });
  },
};`;
const PD_DISCORD_MESSAGES = `export default {
  type: "source", dedupe: "unique",
  props: {
    discord: { type: "app", app: "discord" },
    channels: { type: "string[]", label: "Channels" },
    discordApphook: { type: "$.interface.apphook", appProp: "discord", async eventNames() { return this.channels || []; } },
  },
  async run(event) {
    this.$emit({ guild: event.guildId, content: event.content }, { id: event.id });
  },
};`;

const noSecret = (text: string) => assert.ok(!text.includes(SECRET), `an answer shows a credential: ${text}`);

/** What a source emitted on its default stream: each event's marker (`n`, or the event itself). */
async function received(account: Account, sourceId: string): Promise<unknown[]> {
  const events = (await summaries(account.api, sourceId)).map((summary) => summary.event.event);
  return events.map((event) => (event && typeof event === "object" && "n" in event ? event.n : event)).sort(byText);
}
const byText = (a: unknown, b: unknown) => String(a).localeCompare(String(b));

for (const dialect of DIALECTS) {
  describe(`apphooks [${dialect}]`, () => {
    let app: TestApp;
    let account: Account;
    before(async () => {
      app = await startTestApp(dialect);
      account = await app.newAccount();
    });
    after(async () => app.close());

    const connect = async (who: Account, appName: string) => {
      const res = await who.api.post("/accounts", { app: appName, credentials: { bot_token: SECRET } });
      assert.equal(res.status, 200, res.text);
      return res.body.data;
    };
    /** Waits until no run the account's requests queued is left (each was committed before its 200). */
    const drained = (who: Account) =>
      waitFor(
        async () =>
          (
            await app.sluice.services.ctx.db
              .selectFrom("jobs")
              .select("id")
              .where("user_id", "=", who.id)
              .where("type", "=", "source.run")
              .execute()
          ).length === 0,
        { what: "the queued apphook runs", timeoutMs: 20_000 },
      );
    const send = (url: string, init: { body?: unknown; raw?: string; headers?: Record<string, string>; query?: string; method?: string }) =>
      fetch(url + (init.query ?? ""), {
        method: init.method ?? "POST",
        headers: { ...(init.raw === undefined ? { "content-type": "application/json" } : {}), ...init.headers },
        body: init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
      });
    const accepted = async (res: Response) => {
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { status: "accepted" });
    };

    it("shows the inbound webhook_url on every view of an account, and never a credential", async () => {
      const created = await account.api.post("/accounts", { app: "slack", name: "workspace", credentials: { bot_token: SECRET } });
      assert.equal(created.status, 200, created.text);
      noSecret(created.text);
      const view = created.body.data;
      assert.match(view.webhook_url, new RegExp(`^${app.origin}/a/[a-z0-9]{24}$`));
      const read = await account.api.get(`/accounts/${view.id}`);
      noSecret(read.text);
      assert.equal(read.body.data.webhook_url, view.webhook_url);
      const changed = await account.api.put(`/accounts/${view.id}`, { name: "renamed", credentials: { bot_token: SECRET } });
      noSecret(changed.text);
      assert.equal(changed.body.data.webhook_url, view.webhook_url, "the URL stays when the credentials change");
      const list = await account.api.get("/users/me/accounts", { limit: 100 });
      noSecret(list.text);
      assert.equal(list.body.data.find((a: any) => a.id === view.id).webhook_url, view.webhook_url);
      const other = await connect(account, "slack");
      assert.notEqual(other.webhook_url, view.webhook_url);
      for (const id of [view.id, other.id]) assert.equal((await account.api.delete(`/accounts/${id}`)).status, 204);
    });

    it("runs the bound sources whose eventNames take the event's name: header, then ?event=, then body type, then event.type", async () => {
      const slack = await connect(account, "slack");
      const discord = await connect(account, "discord");
      const bind = (code: string, props: Record<string, unknown> = {}) =>
        createSource(account.api, { component_code: code, configured_props: { slack: { authProvisionId: slack.id }, ...props } });
      const channel = await bind(fixtureCode("apphook-slack.mjs"), { conversations: ["C1"] });
      const messages = await bind(fixtureCode("apphook-slack.mjs"));
      const reactions = await bind(STATIC_NAMES);
      const everything = await bind(NO_NAMES);
      const emptyList = await bind(EMPTY_NAMES);
      const otherAccount = await createSource(account.api, {
        component_code: fixtureCode("apphook-discord.mjs"),
        configured_props: { discord: { authProvisionId: discord.id } },
      });
      assert.deepEqual(
        channel.configured_props,
        { slack: { authProvisionId: slack.id }, conversations: ["C1"] },
        "the apphook prop takes no value",
      );

      const challenge = await send(slack.webhook_url, { body: { token: "tok", challenge: "3eZbrw1aBm2rZgRN", type: "url_verification" } });
      assert.equal(challenge.status, 200);
      assert.match(challenge.headers.get("content-type") ?? "", /application\/json/);
      assert.deepEqual(await challenge.json(), { challenge: "3eZbrw1aBm2rZgRN" });

      await accepted(await send(slack.webhook_url, { body: { n: 1 }, headers: { "x-sluice-event-name": "message:C1" } }));
      await accepted(await send(slack.webhook_url, { body: { n: 2 }, query: "?event=reaction_added" }));
      await accepted(await send(slack.webhook_url, { body: { n: 3, type: "message" } }));
      await accepted(await send(slack.webhook_url, { body: { n: 4, event: { type: "reaction_added" } } }));
      await accepted(
        await send(slack.webhook_url, {
          body: { n: 5, type: "other" },
          headers: { "x-sluice-event-name": "message" },
          query: "?event=reaction_added",
        }),
      );
      await accepted(await send(slack.webhook_url, { body: { n: 6, type: "message" }, query: "?event=message:C1" }));
      await accepted(
        await send(slack.webhook_url, { raw: "plain words", headers: { "content-type": "text/plain" }, query: "?event=message" }),
      );
      await accepted(await send(slack.webhook_url, { body: { n: 8, type: "unknown" } }));
      await accepted(await send(slack.webhook_url, { body: { n: 9 } }));
      await accepted(await send(discord.webhook_url, { body: { n: 10, t: "MESSAGE_CREATE" }, method: "PUT" }));
      await drained(account);

      assert.deepEqual(await received(account, channel.id), [1, 6]);
      assert.deepEqual(await received(account, messages.id), [3, 5, "plain words"].sort(byText));
      assert.deepEqual(await received(account, reactions.id), [2, 4]);
      const all = [1, 2, 3, 4, 5, 6, "plain words", 8, 9].sort(byText);
      assert.deepEqual(await received(account, everything.id), all, "no eventNames: every event, the challenge excepted");
      assert.deepEqual(await received(account, emptyList.id), all, "an empty list: every event");
      assert.deepEqual(await received(account, otherAccount.id), [10], "only its own account's events");

      const [first] = await summaries(account.api, channel.id);
      assert.deepEqual(
        first.event,
        { event: { n: 6, type: "message" }, authorized: true },
        "run(event) gets the posted JSON, this.slack.$auth the credentials",
      );
      for (const source of [channel, messages, reactions, everything, emptyList, otherAccount]) {
        assert.deepEqual(await summaries(account.api, source.id, { event_name: "$errors" }), [], `no errors on ${source.id}`);
        assert.equal((await account.api.delete(`/sources/${source.id}`)).status, 204);
      }
    });

    it("runs Pipedream-shaped Slack, Zoom and Discord sources on the providers' own payloads: Slack's envelope is named by its event and run() gets the inner event", async () => {
      const slack = await connect(account, "slack");
      const zoom = await connect(account, "zoom");
      const discord = await connect(account, "discord");
      const bind = async (code: string, props: Record<string, unknown>) =>
        createSource(account.api, { component_code: code, configured_props: props });
      const slackProps = { slack: { authProvisionId: slack.id } };
      const inChannels = await bind(PD_SLACK_CHANNELS, { ...slackProps, conversations: ["C1"] });
      const anyMessage = await bind(PD_SLACK_CHANNELS, slackProps);
      const direct = await bind(slackSource(`["message.im"]`), slackProps);
      const reactions = await bind(
        slackSource(`this.conversations ? this.conversations.map((c) => "reaction_added:" + c) : ["reaction_added"]`),
        {
          ...slackProps,
          conversations: ["C1"],
        },
      );
      const approvals = await bind(PD_SLACK_INTERACTIONS, { ...slackProps, conversations: ["C1"], action_ids: ["approve"] });
      const meetings = await bind(PD_ZOOM_MEETINGS, { zoom: { authProvisionId: zoom.id } });
      const discordChannel = await bind(PD_DISCORD_MESSAGES, { discord: { authProvisionId: discord.id }, channels: ["D-CHAN-1"] });

      const envelope = (event: Record<string, unknown>) => ({
        token: "tok",
        team_id: "T1",
        api_app_id: "A1",
        event,
        type: "event_callback",
        event_id: `Ev${Math.random()}`,
        event_time: 1700000000,
      });
      const message = (n: number, channel: string, channelType = "channel") => ({
        type: "message",
        channel,
        channel_type: channelType,
        user: "U1",
        text: `hello ${n}`,
        ts: `1700000000.00000${n}`,
        client_msg_id: `m${n}`,
      });
      await accepted(await send(slack.webhook_url, { body: envelope(message(1, "C1")) }));
      await accepted(await send(slack.webhook_url, { body: envelope(message(2, "C2")) }));
      await accepted(await send(slack.webhook_url, { body: envelope(message(3, "D9", "im")) }));
      // The header still names the event; run() still gets the inner event.
      await accepted(await send(slack.webhook_url, { body: envelope(message(4, "C7")), headers: { "x-sluice-event-name": "message.im" } }));
      await accepted(
        await send(slack.webhook_url, {
          body: envelope({ type: "reaction_added", user: "U1", reaction: "tada", item: { type: "message", channel: "C1", ts: "1.1" } }),
        }),
      );
      await accepted(
        await send(slack.webhook_url, {
          body: envelope({ type: "reaction_added", user: "U1", reaction: "tada", item: { type: "message", channel: "C2", ts: "1.2" } }),
        }),
      );
      const interaction = (channel: string, action: string) => ({
        raw: `payload=${encodeURIComponent(JSON.stringify({ type: "block_actions", user: { id: "U1" }, channel: { id: channel }, actions: [{ action_id: action, value: "v" }] }))}`,
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      await accepted(await send(slack.webhook_url, interaction("C1", "approve")));
      await accepted(await send(slack.webhook_url, interaction("C1", "reject")));
      await accepted(await send(slack.webhook_url, interaction("C2", "approve")));
      await accepted(
        await send(zoom.webhook_url, {
          body: {
            event: "meeting.created",
            event_ts: 1700000000000,
            payload: { account_id: "z", object: { uuid: "u1", topic: "Standup" } },
          },
        }),
      );
      await accepted(
        await send(zoom.webhook_url, { body: { event: "meeting.deleted", payload: { object: { uuid: "u2", topic: "Gone" } } } }),
      );
      await accepted(await send(discord.webhook_url, { body: { id: "msg1", channelId: "D-CHAN-1", guildId: "G1", content: "hi" } }));
      await accepted(await send(discord.webhook_url, { body: { id: "msg2", channelId: "D-CHAN-2", guildId: "G1", content: "elsewhere" } }));
      await drained(account);

      const emitted = async (source: any) => (await summaries(account.api, source.id)).map((summary) => summary.event).reverse();
      assert.deepEqual(await emitted(inChannels), [{ channel: "C1", text: "hello 1" }], "run() reads event.channel of the inner event");
      assert.deepEqual(
        (await emitted(anyMessage)).map((e: any) => e.text).sort(),
        ["hello 1", "hello 2", "hello 3", "hello 4"],
        "no channels chosen: every Slack event, the reactions ignored by the code",
      );
      assert.deepEqual(
        (await emitted(direct)).sort((a: any, b: any) => a.text.localeCompare(b.text)),
        [
          { channel: "D9", text: "hello 3" },
          { channel: "C7", text: "hello 4" },
        ],
        "message.im: a message in a direct conversation, or one the header names so",
      );
      assert.deepEqual(await emitted(reactions), [{ channel: "C1" }], "reaction_added:C1");
      assert.deepEqual(
        await emitted(approvals),
        [{ channel: "C1", actions: ["approve"] }],
        "Slack's interactivity form: run() gets its payload, named interaction_events:<channel>:<action_id>",
      );
      assert.deepEqual(await emitted(meetings), [{ topic: "Standup" }], "Zoom is named by its `event`, run() reads payload");
      assert.deepEqual(await emitted(discordChannel), [{ guild: "G1", content: "hi" }], "a Discord message is named by its channel");
      for (const source of [inChannels, anyMessage, direct, reactions, approvals, meetings, discordChannel]) {
        assert.deepEqual(await summaries(account.api, source.id, { event_name: "$errors" }), [], `no errors on ${source.id}`);
        assert.equal((await account.api.delete(`/sources/${source.id}`)).status, 204);
      }
    });

    it("answers 404 to an unknown key, 413 to a body over 512 KB, 200 to a GET, and never a 5xx to odd input", async () => {
      const slack = await connect(account, "slack");
      const everything = await createSource(account.api, {
        component_code: NO_NAMES,
        configured_props: { slack: { authProvisionId: slack.id } },
      });
      const base = `${app.origin}/a/`;

      const unknown = await send(`${base}nosuchkey0000000000000000`, { body: { type: "message" } });
      assert.equal(unknown.status, 404);
      assert.equal(typeof (await unknown.json()).error, "string");
      const tooLarge = await send(slack.webhook_url, {
        raw: JSON.stringify({ blob: "x".repeat(600 * 1024) }),
        headers: { "content-type": "application/json" },
      });
      assert.equal(tooLarge.status, 413);
      assert.equal(typeof (await tooLarge.json()).error, "string");
      const ping = await fetch(slack.webhook_url);
      assert.equal(ping.status, 200);
      assert.deepEqual(await ping.json(), { status: "ok" });
      assert.equal((await fetch(`${base}nosuchkey0000000000000000`)).status, 404);

      const odd: Parameters<typeof send>[1][] = [
        { raw: "{not json", headers: { "content-type": "application/json" } },
        { raw: "", headers: { "content-type": "application/json" } },
        { body: [1, 2, 3] },
        { body: { type: 5, event: "x" } },
        { body: { type: "url_verification" } },
        { body: "just a string" },
        { raw: "\u0000\uffff", headers: { "content-type": "application/octet-stream", "x-sluice-event-name": "" } },
        { body: { n: 1 }, query: "?event=a&event=b" },
      ];
      for (const input of odd) {
        const res = await send(slack.webhook_url, input);
        assert.ok(res.status < 500, `${JSON.stringify(input)} got ${res.status}`);
        await accepted(res);
      }
      assert.ok((await send(`${base}%E0%A4%A`, { body: {} })).status < 500);
      await drained(account);
      const events = (await summaries(account.api, everything.id)).map((summary) => summary.event.event);
      assert.equal(events.length, odd.length);
      assert.ok(events.includes("{not json"), "a body that is not JSON reaches run(event) as text");
      assert.ok(events.includes(null), "no body reaches run(event) as null");
      assert.equal((await account.api.delete(`/sources/${everything.id}`)).status, 204);
    });

    it("binds only the caller's own accounts, refuses an apphook without its account, and reports a failed eventNames on $errors", async () => {
      const stranger = await app.newAccount();
      const theirs = await connect(stranger, "slack");
      const unknown = await account.api.post("/sources", {
        component_code: NO_NAMES,
        configured_props: { slack: { authProvisionId: "apn_nosuchaccount" } },
      });
      const foreign = await account.api.post("/sources", {
        component_code: NO_NAMES,
        configured_props: { slack: { authProvisionId: theirs.id } },
      });
      assert.equal(foreign.status, 404, foreign.text);
      assert.deepEqual(
        { status: foreign.status, body: foreign.body },
        { status: unknown.status, body: { ...unknown.body, error: unknown.body.error.replace("apn_nosuchaccount", theirs.id) } },
        "another user's account is as unknown as a missing one",
      );

      const unconfigured = await account.api.post("/sources", { component_code: NO_NAMES });
      assert.equal(unconfigured.status, 400);
      assert.match(unconfigured.body.error, /configured_props\.slack is required: the apphook prop "hook"/);
      const noAppProp = await account.api.post("/sources", {
        component_code: slackCode(`{ type: "$.interface.apphook", appProp: "nope" }`),
      });
      assert.equal(noAppProp.status, 400);
      assert.match(noAppProp.body.error, /names the app prop "nope", which the component does not have/);

      const inspected = await account.api.post("/components", { component_code: STATIC_NAMES });
      assert.equal(inspected.status, 200, inspected.text);
      assert.deepEqual(
        inspected.body.data.configurable_props.find((prop: any) => prop.name === "hook"),
        { name: "hook", type: "$.interface.apphook", appProp: "slack", eventNames: ["reaction_added"] },
      );

      const slack = await connect(account, "slack");
      const throwing = await createSource(account.api, {
        component_code: slackCode(
          `{ type: "$.interface.apphook", appProp: "slack", async eventNames() { throw new Error("no channel chosen"); } }`,
        ),
        configured_props: { slack: { authProvisionId: slack.id } },
      });
      const notAList = await createSource(account.api, {
        component_code: slackCode(`{ type: "$.interface.apphook", appProp: "slack", eventNames() { return "message"; } }`),
        configured_props: { slack: { authProvisionId: slack.id } },
      });
      const [thrown] = await waitForEvents(account.api, throwing.id, 1, { event_name: "$errors" });
      assert.equal(thrown.event.error.message, "no channel chosen");
      const [badList] = await waitForEvents(account.api, notAList.id, 1, { event_name: "$errors" });
      assert.match(badList.event.error.message, /eventNames of the apphook prop "hook" must be an array of strings/);

      await accepted(await send(slack.webhook_url, { body: { n: 1, type: "message" } }));
      await drained(account);
      for (const source of [throwing, notAList]) {
        assert.deepEqual(await summaries(account.api, source.id), [], "a source whose eventNames failed takes no events");
        assert.equal((await account.api.delete(`/sources/${source.id}`)).status, 204);
      }
    });

    it("chooses the names again on update, skips inactive sources, keeps a used account, and forgets a deleted source", async () => {
      const slack = await connect(account, "slack");
      const code = fixtureCode("apphook-slack.mjs");
      const source = await createSource(account.api, {
        component_code: code,
        configured_props: { slack: { authProvisionId: slack.id }, conversations: ["C1"] },
      });
      const db = app.sluice.services.ctx.db;

      await accepted(await send(slack.webhook_url, { body: { n: 1 }, headers: { "x-sluice-event-name": "message:C2" } }));
      const updated = await account.api.put(`/sources/${source.id}`, {
        component_code: code,
        configured_props: { slack: { authProvisionId: slack.id }, conversations: ["C2"] },
      });
      assert.equal(updated.status, 200, updated.text);
      await accepted(await send(slack.webhook_url, { body: { n: 2 }, headers: { "x-sluice-event-name": "message:C2" } }));
      await drained(account);
      assert.deepEqual(await received(account, source.id), [2]);

      const paused = await account.api.put(`/sources/${source.id}`, { component_code: code, active: false });
      assert.equal(paused.status, 200, paused.text);
      await accepted(await send(slack.webhook_url, { body: { n: 3 }, headers: { "x-sluice-event-name": "message:C2" } }));
      await drained(account);
      assert.deepEqual(await received(account, source.id), [2], "an inactive source takes nothing");

      const refused = await account.api.delete(`/accounts/${slack.id}`);
      assert.equal(refused.status, 409);
      assert.match(refused.body.error, new RegExp(source.id));
      assert.equal((await db.selectFrom("apphook_bindings").select("source_id").where("source_id", "=", source.id).execute()).length, 1);

      assert.equal((await account.api.delete(`/sources/${source.id}`)).status, 204);
      assert.deepEqual(
        await db.selectFrom("apphook_bindings").select("source_id").where("source_id", "=", source.id).execute(),
        [],
        "the binding goes with its source",
      );
      assert.equal((await account.api.delete(`/accounts/${slack.id}`)).status, 204);
      assert.equal((await send(slack.webhook_url, { body: { n: 4 } })).status, 404, "a deleted account's URL is gone");
    });
  });
}
