// What a `pd` user expects of the CLI: --version, profiles and logout, a key hidden while typed,
// init and publish, deploy that asks before running a component a second time, dev --dc,
// update --name/--activate/--deactivate, list components, a readable describe, and syntax
// errors as file:line:column. The compiled `sluice` against a real server on loopback.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { applyKeys } from "../../src/cli/client/hidden-input.js";
import { DIALECTS } from "../helpers/dialects.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { startCli } from "../helpers/cli-session.js";
import { CLI_PATH, clientEnv, runCli } from "../helpers/sluice-process.js";

const KEYED = (said: string) => `export default {
  key: "hello", name: "hello", version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit({ said: "${said}" }); },
};`;
const BROKEN = `export default {\n  key: "broken", version: "0.0.1",\n  async run() { foo bar }\n};\n`;

// `script` (util-linux) gives the login a pseudo-terminal; without it the TTY test is skipped.
const hasScript = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;

const dialect = DIALECTS[0]!;
describe(`sluice as pd users know it [${dialect}]`, () => {
  let app: TestApp;
  let account: Account;
  let dir: string;
  let env: Record<string, string>;
  const sluice = (...args: string[]) => runCli(args, env, dir);

  before(async () => {
    app = await startTestApp(dialect);
    account = await app.newAccount({ plan: "paid" });
    dir = mkdtempSync(join(tmpdir(), "sluice-pd-"));
    env = clientEnv(dir, app.origin, account.apiKey);
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("--version prints the package's version", async () => {
    const result = await sluice("--version");
    assert.equal(result.code, 0, result.stderr);
    const { version } = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8"));
    assert.equal(result.stdout, `${version}\n`);
  });

  it("profiles: --profile and SLUICE_PROFILE choose a stored login; logout forgets one", async () => {
    const other = await app.newAccount();
    const bare = { PATH: env.PATH!, HOME: dir, XDG_CONFIG_HOME: join(dir, "profiles") };
    const login = (profile: string, key: string) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [CLI_PATH, "--profile", profile, "login"], {
          env: bare,
          cwd: dir,
          stdio: ["pipe", "ignore", "ignore"],
        });
        child.on("close", resolve);
        child.stdin.end(`${app.origin}\n${key}\n`);
      });
    assert.equal(await login("default", account.apiKey), 0);
    assert.equal(await login("work", other.apiKey), 0);
    const who = async (args: string[], extra: Record<string, string> = {}) =>
      (await runCli([...args, "describe", "nothing-by-this-name"], { ...bare, ...extra }, dir)).stderr;
    // Each profile is its own account: the same missing name is looked up in each, both reachable.
    assert.match(await who([]), /no source or workflow or webhook has the id or name/);
    const stored = JSON.parse(readFileSync(join(dir, "profiles", "sluice", "config.json"), "utf8"));
    assert.deepEqual(Object.keys(stored.profiles).sort(), ["default", "work"]);
    assert.equal(stored.profiles.work.api_key, other.apiKey);
    const created = await other.api.post("/workflows", { name: "only-at-work", steps: [{ code: "export default { async run() {} };" }] });
    assert.equal(created.status, 200);
    assert.equal((await runCli(["--profile", "work", "describe", "only-at-work"], bare, dir)).code, 0);
    assert.equal((await runCli(["describe", "only-at-work"], { ...bare, SLUICE_PROFILE: "work" }, dir)).code, 0);
    assert.equal((await runCli(["describe", "only-at-work"], bare, dir)).code, 1, "the default profile is the other account");

    const out = await runCli(["logout", "--profile", "work"], bare, dir);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /profile "work" was removed/);
    const gone = await runCli(["--profile", "work", "list"], bare, dir);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /no server configured for the profile "work": run `sluice login --profile work`/);
    assert.equal((await runCli(["list"], bare, dir)).code, 0, "the default profile stays");
  });

  it(
    "the key typed at a terminal is not echoed (and the keys are interpreted: Backspace, Enter, Ctrl-C)",
    { skip: !hasScript && !process.env.CI && "script (util-linux) is not installed" },
    async () => {
      assert.deepEqual(applyKeys({ text: "", done: false, cancelled: false }, "ab\u007fc\r"), { text: "ac", done: true, cancelled: false });
      assert.deepEqual(applyKeys({ text: "x", done: false, cancelled: false }, "\u0003"), { text: "", done: true, cancelled: true });
      const ttyEnv = { PATH: env.PATH!, HOME: dir, XDG_CONFIG_HOME: join(dir, "tty-config"), TERM: "dumb" };
      const child = spawn("script", ["-qec", `${process.execPath} ${CLI_PATH} login`, "/dev/null"], {
        env: ttyEnv,
        cwd: dir,
        stdio: ["pipe", "pipe", "pipe"],
      });
      let output = "";
      const seen = (pattern: RegExp) =>
        new Promise<void>((resolve, reject) => {
          const check = () => (pattern.test(output) ? (child.stdout.off("data", check), resolve()) : undefined);
          child.stdout.on("data", check);
          child.on("close", () => reject(new Error(`script ended before ${pattern}:\n${output}`)));
          check();
        });
      child.stdout.on("data", (chunk) => (output += chunk));
      const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
      await seen(/server URL/);
      child.stdin.write(`${app.origin}\r`);
      await seen(/API key: /);
      child.stdin.write(`${account.apiKey}\r`);
      await seen(/logged in to/);
      child.stdin.end();
      assert.equal(await closed, 0, output);
      assert.ok(!output.includes(account.apiKey), `the key was echoed:\n${output}`);
      assert.ok(!output.includes(account.apiKey.slice(0, 8)), "not even in part");
      const stored = JSON.parse(readFileSync(join(dir, "tty-config", "sluice", "config.json"), "utf8"));
      assert.equal(stored.profiles.default.api_key, account.apiKey, "the hidden key was still read whole");
    },
  );

  it("init writes a source, an action and a step that the server takes; publish saves a component", async () => {
    for (const kind of ["source", "action", "step"]) {
      const made = await sluice("init", kind, `my-${kind}.mjs`);
      assert.equal(made.code, 0, made.stderr);
      const published = await sluice("publish", `my-${kind}.mjs`, "--json");
      assert.equal(published.code, 0, published.stderr);
      const component = JSON.parse(published.stdout);
      assert.equal(component.key, `my-${kind}`);
      assert.equal((await account.api.get(`/components/my-${kind}`)).body.data.id, component.id, "saved to the account");
    }
    assert.equal((await sluice("init", "source", "my-source.mjs")).code, 2, "an existing file is not overwritten");
    assert.equal((await sluice("init", "widget")).code, 2);
    const deployed = await sluice("deploy", "my-source.mjs", "--json");
    assert.equal(deployed.code, 0, deployed.stderr);
    const source = JSON.parse(deployed.stdout);
    const response = await fetch(source.configured_props.http.endpoint_url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"n":1}',
    });
    assert.equal(response.status, 200);
    await response.arrayBuffer();
  });

  it("deploying a component whose key runs already asks for --update or --name; --update keeps the source", async () => {
    writeFileSync(join(dir, "hello.mjs"), KEYED("one"));
    const first = JSON.parse((await sluice("deploy", "hello.mjs", "--json")).stdout);
    const again = await sluice("deploy", "hello.mjs");
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already runs the component "hello"/);
    assert.match(again.stderr, new RegExp(`${first.id} +hello`));
    assert.match(again.stderr, /--update .*--name/s);
    writeFileSync(join(dir, "hello.mjs"), KEYED("two"));
    const updated = await sluice("deploy", "hello.mjs", "--update", "--json");
    assert.equal(updated.code, 0, updated.stderr);
    const source = JSON.parse(updated.stdout);
    assert.equal(source.id, first.id);
    assert.equal(source.configured_props.http.endpoint_url, first.configured_props.http.endpoint_url, "the URL stays");
    const beside = await sluice("deploy", "hello.mjs", "--name", "hello", "--json");
    assert.equal(beside.code, 0, beside.stderr);
    assert.equal(JSON.parse(beside.stdout).name, "hello-2", "the server keeps names usable");
  });

  it("update --name renames and --deactivate/--activate switch; describe prints fields; list components", async () => {
    writeFileSync(
      join(dir, "plain.mjs"),
      `export default { name: "plain", version: "0.0.1", props: { http: "$.interface.http" }, async run() {} };`,
    );
    const source = JSON.parse((await sluice("deploy", "plain.mjs", "--name", "before", "--json")).stdout);
    const renamed = await sluice("update", "before", "--name", "after", "--deactivate");
    assert.equal(renamed.code, 0, renamed.stderr);
    assert.match(renamed.stdout, /name: +after\n/);
    assert.match(renamed.stdout, /active: +false/);
    assert.equal((await sluice("update", "after", "--activate", "--json")).code, 0);
    const described = await sluice("describe", "after");
    assert.equal(described.code, 0, described.stderr);
    assert.match(described.stdout, /^source\n/);
    assert.match(described.stdout, new RegExp(`^id: +${source.id}$`, "m"));
    assert.match(described.stdout, /^active: +true$/m);
    assert.match(described.stdout, /^created_at: +\d{4}-\d\d-\d\dT/m);
    assert.match(described.stdout, /^ {2}http: \{"endpoint_url":/m);
    assert.throws(() => JSON.parse(described.stdout), "not raw JSON");
    const listed = await sluice("list", "components");
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^ID +KEY +TYPE +VERSION +NAME +CREATED$/m);
    assert.match(listed.stdout, /^sc_\S+ +my-action +action +/m, "the account's published action");
    assert.match(listed.stdout, /^sc_\S+ +my-source +source +/m);
    const registry = await sluice("list", "registry");
    assert.equal(registry.code, 0, registry.stderr);
    assert.match(registry.stdout, /^(KEY +VERSION +NAME +PACKAGE|\(none\))$/m);
  });

  it("a syntax error names the file, line and column (deploy, publish and update)", async () => {
    writeFileSync(join(dir, "broken.mjs"), BROKEN);
    for (const args of [
      ["deploy", "broken.mjs"],
      ["publish", "broken.mjs"],
      ["update", "after", "broken.mjs"],
    ]) {
      const result = await sluice(...args);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /broken\.mjs:3:21: SyntaxError: Unexpected identifier 'bar'/, args.join(" "));
    }
  });

  it("dev --dc reuses the source, so its URL stays, and keeps it when stopped", async () => {
    writeFileSync(join(dir, "dev.mjs"), KEYED("dev"));
    const first = startCli(["dev", "dev.mjs", "--keep"], env, dir);
    let id: string;
    try {
      await first.waitFor("stderr", /watching dev\.mjs/);
      id = /id: +(dc_\w+)/.exec(first.stderr())![1]!;
      assert.match(first.stderr(), new RegExp(`sluice dev --dc ${id} dev\\.mjs`));
    } finally {
      assert.equal(await first.stop("SIGINT"), 0);
    }
    const url = (await account.api.get(`/sources/${id}`)).body.data.configured_props.http.endpoint_url;
    const second = startCli(["dev", "--dc", id, "dev.mjs"], env, dir);
    try {
      await second.waitFor("stderr", /watching dev\.mjs \(Ctrl-C to stop\)/);
      assert.match(second.stderr(), new RegExp(`id: +${id}\n`));
      assert.ok(second.stderr().includes(url));
    } finally {
      assert.equal(await second.stop("SIGINT"), 0);
    }
    assert.equal((await account.api.get(`/sources/${id}`)).status, 200, "the reused source is kept");
  });
});
