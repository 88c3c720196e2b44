// The client commands end to end: the compiled `sluice` against a real server on a loopback
// port, configured by SLUICE_API_URL / SLUICE_API_KEY (or `sluice login`, fed on stdin).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { waitForEvents } from "../fixtures/components/sources/helpers.js";
import { startCli } from "../helpers/cli-session.js";
import { CLI_PATH, clientEnv, runCli } from "../helpers/sluice-process.js";

const ENTRY = `import { shout } from "./lib/shout.js";
export default {
  name: "cli http", version: "0.0.1",
  props: { http: "$.interface.http", greeting: { type: "string", default: "hi" } },
  async run(event) { console.log("got", JSON.stringify(event.body)); this.$emit({ said: shout(this.greeting), body: event.body }); },
};`;
const SHOUT = (suffix: string) => `export const shout = (text) => text.toUpperCase() + "${suffix}";`;

const post = async (url: string, body: unknown) => {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
};

// The CLI is the same on either database: its tests run on the first one only.
const dialect = DIALECTS[0]!;
describe(`sluice client commands [${dialect}]`, () => {
  let app: TestApp;
  let account: Account;
  let dir: string;
  let env: Record<string, string>;
  const sluice = (...args: string[]) => runCli(args, env, dir);

  before(async () => {
    app = await startTestApp(dialect);
    account = await app.newAccount({ plan: "paid" });
    dir = mkdtempSync(join(tmpdir(), "sluice-cli-"));
    mkdirSync(join(dir, "lib"));
    writeFileSync(join(dir, "source.mjs"), ENTRY);
    writeFileSync(join(dir, "lib", "shout.js"), SHOUT("!"));
    // XDG_CONFIG_HOME points into the temp folder: nothing of the user's own config is read.
    env = clientEnv(dir, app.origin, account.apiKey);
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("deploy a file with a relative import, then list and describe it by name", async () => {
    const deployed = await sluice("deploy", "source.mjs", "--name", "greeter", "--prop", "greeting=hello", "--json");
    assert.equal(deployed.code, 0, deployed.stderr);
    const source = JSON.parse(deployed.stdout);
    assert.match(source.id, /^dc_/);
    assert.equal(source.name, "greeter");
    await post(source.configured_props.http.endpoint_url, { n: 1 });
    const [event] = await waitForEvents(account.api, source.id, 1);
    assert.equal(event.event.said, "HELLO!", "the relative import and the prop were used");

    const plain = await sluice("deploy", "source.mjs", "--name", "greeter-two");
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /id: +dc_\w+\nname: +greeter-two\nendpoint: +http:\/\/127\.0\.0\.1:\d+\/e\//);

    const listed = await sluice("list");
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^ID +NAME +ACTIVE +UPDATED$/m);
    assert.match(listed.stdout, new RegExp(`^${source.id} +greeter +true`, "m"));
    assert.match(listed.stdout, /greeter-two/);

    const described = await sluice("describe", "greeter", "--json");
    assert.equal(described.code, 0, described.stderr);
    assert.equal(JSON.parse(described.stdout).id, source.id);

    const events = await sluice("events", "greeter", "-n", "5");
    assert.equal(events.code, 0, events.stderr);
    assert.match(events.stdout, /"said":"HELLO!"/);
    const logs = await sluice("logs", "greeter");
    assert.match(logs.stdout, /\[log\] got \{"n":1\}/);
  });

  it("deploy takes a directory (its index file) and list shows connected accounts", async () => {
    mkdirSync(join(dir, "pkg", "lib"), { recursive: true });
    writeFileSync(join(dir, "pkg", "index.mjs"), ENTRY);
    writeFileSync(join(dir, "pkg", "lib", "shout.js"), SHOUT("?"));
    const deployed = await sluice("deploy", "pkg", "--name", "from-dir", "--prop", "greeting=hi", "--json");
    assert.equal(deployed.code, 0, deployed.stderr);
    const source = JSON.parse(deployed.stdout);
    await post(source.configured_props.http.endpoint_url, { n: 2 });
    const [event] = await waitForEvents(account.api, source.id, 1);
    assert.equal(event.event.said, "HI?", "the directory's index file and its relative import were deployed");
    const empty = await sluice("deploy", "lib");
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /lib is a directory without index\.mjs, index\.js, index\.cjs/);

    const created = await account.api.post("/accounts", { app: "slack", name: "team", credentials: { oauth_access_token: "xoxb-secret" } });
    assert.equal(created.status, 200);
    const listed = await sluice("list", "accounts");
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^ID +APP +NAME +FIELDS +WEBHOOK URL$/m);
    assert.match(
      listed.stdout,
      new RegExp(`^${created.body.data.id} +slack +team +oauth_access_token +${created.body.data.webhook_url}$`, "m"),
    );
    assert.doesNotMatch(listed.stdout, /xoxb-secret/);
  });

  it("an ambiguous name lists the matches and exits 1", async () => {
    // Names are unique per kind (a second "twin" source would be "twin-2"), not across kinds.
    assert.equal((await sluice("deploy", "source.mjs", "--name", "twin")).code, 0);
    assert.equal(
      (await account.api.post("/workflows", { name: "twin", steps: [{ code: "export default { async run() {} };" }] })).status,
      200,
    );
    const result = await sluice("describe", "twin");
    assert.equal(result.code, 1);
    assert.match(result.stderr, /"twin" names 2 resources/);
    assert.match(result.stderr, /dc_\w+ +source +twin/);
    assert.match(result.stderr, /p_\w+ +workflow +twin/);
  });

  it("events -f shows an event posted after it started", async () => {
    const source = JSON.parse((await sluice("deploy", "source.mjs", "--name", "followed", "--json")).stdout);
    const session = startCli(["events", "followed", "-f"], env, dir);
    try {
      await session.waitFor("stderr", /following dc_/);
      await post(source.configured_props.http.endpoint_url, { late: true });
      await session.waitFor("stdout", /"late":true/);
    } finally {
      assert.equal(await session.stop("SIGINT"), 0);
    }
  });

  it("dev deploys, redeploys on a change to an imported file, shows events and deletes the source on Ctrl-C", async () => {
    const session = startCli(["dev", "source.mjs", "--name", "devved"], env, dir);
    let id = "";
    try {
      await session.waitFor("stderr", /watching source\.mjs/);
      id = /id: +(dc_\w+)/.exec(session.stderr())![1]!;
      const endpoint = /endpoint: +(\S+)/.exec(session.stderr())![1]!;
      writeFileSync(join(dir, "lib", "shout.js"), SHOUT("?!"));
      await session.waitFor("stderr", /updated dc_/);
      await post(endpoint, { after: "change" });
      await session.waitFor("stdout", /"said":"HI\?!"/);
      await session.waitFor("stdout", /\$logs \[log\] got \{"after":"change"\}/);
    } finally {
      assert.equal(await session.stop("SIGINT"), 0, session.stderr());
      writeFileSync(join(dir, "lib", "shout.js"), SHOUT("!"));
    }
    assert.match(session.stderr(), /deleted dc_/);
    assert.equal((await account.api.get(`/sources/${id}`)).status, 404);
  });

  it("update, subscribe, webhooks and delete", async () => {
    const source = JSON.parse((await sluice("deploy", "source.mjs", "--name", "updatable", "--json")).stdout);
    const inactive = await sluice("update", "updatable", "--inactive", "--prop", "greeting=yo", "--json");
    assert.equal(inactive.code, 0, inactive.stderr);
    assert.equal(JSON.parse(inactive.stdout).active, false);
    // A name the test app's DNS table does not know: accepted, and never dialled here.
    const hook = JSON.parse((await sluice("webhooks", "create", "http://sink.test/hook", "--name", "sink", "--json")).stdout);
    assert.match(hook.id, /^wh_/);
    const subscribed = await sluice("subscribe", "--from", "updatable", "--to", "sink");
    assert.equal(subscribed.code, 0, subscribed.stderr);
    assert.match((await sluice("list", "subscriptions")).stdout, new RegExp(`${source.id} +${hook.id}`));
    assert.equal((await sluice("unsubscribe", "--from", "updatable", "--to", "sink")).code, 0);
    assert.equal((await sluice("webhooks", "deliveries", "sink")).code, 0);
    // Attempts print as status, duration and error (not "[object Object]").
    const db = app.sluice.services.ctx.db;
    const at = Date.now();
    await db
      .insertInto("deliveries")
      .values({
        id: "del_cli",
        user_id: account.id,
        listener_id: hook.id,
        emitter_id: source.id,
        event_id: `${at}-0`,
        stream: "",
        event: "{}",
        hops: 0,
        status: "failed",
        attempts: 2,
        next_attempt_at: null,
        last_attempt_at: at,
        created_at: at,
        updated_at: at,
      })
      .execute();
    await db
      .insertInto("delivery_attempts")
      .values([
        {
          id: "dla_cli1",
          delivery_id: "del_cli",
          attempted_at: at - 1,
          status_code: 503,
          duration_ms: 12,
          response_excerpt: "busy",
          error: null,
        },
        {
          id: "dla_cli2",
          delivery_id: "del_cli",
          attempted_at: at,
          status_code: null,
          duration_ms: 15000,
          response_excerpt: null,
          error: "timed out after 15 s",
        },
      ])
      .execute();
    const listed = await sluice("webhooks", "deliveries", "sink");
    assert.equal(listed.code, 0, listed.stderr);
    assert.doesNotMatch(listed.stdout, /object Object/);
    assert.match(listed.stdout, /del_cli +failed +.*503 12ms \| - 15000ms timed out after 15 s/);
    const deleted = await sluice("delete", "updatable");
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal((await account.api.get(`/sources/${source.id}`)).status, 404);
  });

  it("bad usage exits 2, a refusal by the server 1, an unreachable server 1", async () => {
    for (const args of [
      ["deploy"],
      ["list", "things"],
      ["events", "x", "-n", "lots"],
      ["update", "x", "--active", "--inactive"],
      ["deploy", "source.mjs", "--prop", "novalue"],
      ["frobnicate"],
      ["subscribe", "--from", "x"],
    ]) {
      const result = await sluice(...args);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    }
    const refused = await sluice("describe", "dc_doesnotexist");
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /record not found/);
    const badCode = await sluice("deploy", "lib/shout.js");
    assert.equal(badCode.code, 1, badCode.stderr);
    const badKey = await runCli(["list"], { ...env, SLUICE_API_KEY: "sk_sluice_wrong" }, dir);
    assert.equal(badKey.code, 1);
    const unreachable = await runCli(["list"], { ...env, SLUICE_API_URL: "http://127.0.0.1:9" }, dir);
    assert.equal(unreachable.code, 1);
    assert.match(unreachable.stderr, /cannot reach the server at http:\/\/127\.0\.0\.1:9/);
    assert.equal((await sluice("--help")).code, 0);
    assert.equal((await sluice("deploy", "--help")).code, 0);
  });

  it("login asks for the URL and key, checks them and stores them readable by the owner only", async () => {
    const loginEnv = { PATH: env.PATH!, HOME: dir, XDG_CONFIG_HOME: join(dir, "login-config") };
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI_PATH, "login"], { env: loginEnv, cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => (stdout += chunk));
      child.stderr.on("data", (chunk) => (stderr += chunk));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(`${app.origin}\n${account.apiKey}\n`);
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`as ${account.username}`));
    const path = join(dir, "login-config", "sluice", "config.json");
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), { profiles: { default: { api_url: app.origin, api_key: account.apiKey } } });
    const listed = await runCli(["list"], loginEnv, dir);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /greeter/);
  });
});
