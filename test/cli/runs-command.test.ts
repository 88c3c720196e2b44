// `sluice runs`: the compiled CLI against a real server lists a workflow's runs, shows one run
// step by step, and with -f prints runs as they start and end.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { startCli } from "../helpers/cli-session.js";
import { clientEnv, runCli } from "../helpers/sluice-process.js";
import { waitFor } from "../helpers/wait-for.js";

const STEPS = [
  {
    name: "first",
    code: `export default { async run({ steps, $ }) { $.export("$summary", "got " + steps.trigger.event.body.n); return 1; } };`,
  },
  { name: "second", code: `export default { async run({ steps }) { return steps.first.$return_value + 1; } };` },
];

// The CLI is the same on either database: its tests run on the first one only.
const dialect = DIALECTS[0]!;
describe(`sluice runs [${dialect}]`, () => {
  let app: TestApp;
  let account: Account;
  let dir: string;
  let env: Record<string, string>;

  before(async () => {
    app = await startTestApp(dialect);
    account = await app.newAccount({ plan: "paid" });
    dir = mkdtempSync(join(tmpdir(), "sluice-runs-"));
    env = clientEnv(dir, app.origin, account.apiKey);
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists runs, shows one step by step, and follows new runs", async () => {
    const wf = (await account.api.post("/workflows", { name: "counted", steps: STEPS })).body.data;
    await request(wf.endpoint_url, "POST", "", { json: { n: 1 } });
    const run = await waitFor(async () =>
      (await account.api.get(`/workflows/${wf.id}/runs`)).body.data.find((r: any) => r.status === "succeeded"),
    );

    const listed = await runCli(["runs", "counted"], env, dir);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^\\S+Z ${run.id} succeeded \\d+ ms got 1$`, "m"));
    const one = await runCli(["runs", "counted", run.id], env, dir);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /^ {2}first succeeded \d+ ms 1\n {2}second succeeded \d+ ms 2$/m);
    const json = await runCli(["runs", wf.id, "--json"], env, dir);
    assert.equal(JSON.parse(json.stdout)[0].id, run.id);

    const session = startCli(["runs", "counted", "-f"], env, dir);
    try {
      await session.waitFor("stderr", /following the runs/);
      await request(wf.endpoint_url, "POST", "", { json: { n: 2 } });
      await session.waitFor("stdout", /succeeded \d+ ms got 2/, 30_000);
    } finally {
      assert.equal(await session.stop("SIGINT"), 0);
    }
  });
});
