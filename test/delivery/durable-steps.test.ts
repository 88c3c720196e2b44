// Durable steps, on each database: a worker is SIGKILLed in the middle of a run (step 2 waits
// on a loopback gate the test holds, before its side effect). Another worker takes the run up
// where its stored results end: every step's side effect (a request to a loopback receiver)
// happens exactly once and the run ends succeeded. SQLite: one `sluice serve` process, killed
// and started again on the same database; PostgreSQL: `--role api` and `--role worker`
// processes, the worker killed and another started.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, DIALECTS, TEST_SECRET_KEY, type TestDatabase } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { waitFor } from "../helpers/wait-for.js";
import { Receiver } from "./receiver.js";
import { descendants, exited, killAll } from "../helpers/processes.js";
import { startServer } from "../helpers/sluice-process.js";

const ADMIN = "durable-admin-token-of-at-least-32-characters";

/** A step that reports itself to the receiver, after waiting at the gate when told to. */
const step = (n: number, gate = false) => `export default {
  async run({ steps }) {
    const base = steps.trigger.event.body.receiver;
    ${gate ? `await (await fetch(base + "/gate")).text();` : ""}
    const res = await fetch(base + "/side/${n}", { method: "POST", body: String(${n}) });
    return { step: ${n}, status: res.status };
  },
};`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function serve(env: Record<string, string>, args: string[] = []): Promise<ChildProcess> {
  return (await startServer({ PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env }, undefined, args)).child;
}

/** SIGKILLs a process and the runners it started (orphans would hold the gate request). */
async function kill(child: ChildProcess): Promise<void> {
  const runners = descendants(child.pid!);
  child.kill("SIGKILL");
  await exited(child);
  killAll(runners);
}

for (const dialect of DIALECTS) {
  describe(`durable steps survive a killed worker [${dialect}]`, () => {
    let database: TestDatabase;
    let receiver: Receiver;
    const children: ChildProcess[] = [];

    before(async () => {
      database = await createTestDatabase(dialect);
      receiver = await new Receiver().start();
    });
    after(async () => {
      const runners = children.flatMap((child) => (child.pid && child.exitCode === null ? descendants(child.pid) : []));
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await Promise.all(children.map(exited));
      killAll(runners);
      await receiver.close();
      await database.drop();
    });

    it("resumes the run at the step it was in; each step's side effect happens exactly once", async (t) => {
      const port = await freePort();
      const env: Record<string, string> = {
        PORT: String(port),
        HOST: "127.0.0.1",
        SLUICE_DATA_DIR: database.dataDir,
        SLUICE_ADMIN_TOKEN: ADMIN,
        SLUICE_ALLOW_PRIVATE_EGRESS: "true",
        SLUICE_QUEUE_LEASE_SECONDS: "2",
        // Workers make the resume and cancel URLs: with roles apart, each must know the api's address.
        SLUICE_PUBLIC_URL: `http://127.0.0.1:${port}`,
        LOG_LEVEL: "info",
        ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl, SLUICE_SECRET_KEY: TEST_SECRET_KEY } : {}),
      };
      const split = dialect === "postgres";
      const api = await serve(env, split ? ["--role", "api"] : []);
      children.push(api);
      const worker = split ? await serve({ ...env, PORT: "0" }, ["--role", "worker"]) : api;
      if (split) children.push(worker);
      const base = `http://127.0.0.1:${port}/v1`;

      // The gate holds the first request (step 2's first try) and opens for every later one.
      receiver.on("/gate", (_req, count) => (count === 1 ? { status: 200, hang: true } : { status: 200, body: "open" }));
      const user = await request(base, "POST", "/admin/users", {
        key: ADMIN,
        json: { username: "durable", email: "durable@example.test", plan: "paid" },
      });
      const key = user.body.data.api_key as string;
      const created = await request(base, "POST", "/workflows", {
        key,
        json: {
          steps: [
            { name: "one", code: step(1) },
            { name: "two", code: step(2, true) },
            { name: "three", code: step(3) },
          ],
        },
      });
      assert.equal(created.status, 200, created.text);
      const wf = created.body.data;
      const accepted = await request(wf.endpoint_url, "POST", "", { json: { receiver: receiver.url } });
      assert.equal(accepted.status, 200, accepted.text);

      const runs = async () => (await request(base, "GET", `/workflows/${wf.id}/runs`, { key })).body.data as any[];
      await waitFor(() => receiver.at("/gate").length === 1, { what: "step 2 waiting at the gate", timeoutMs: 30_000 });
      const [running] = await runs();
      const before = (await request(base, "GET", `/workflows/${wf.id}/runs/${running.id}`, { key })).body.data;
      assert.equal(before.status, "running");
      assert.deepEqual(
        before.steps.map((s: any) => s.status),
        ["succeeded", "pending", "pending"],
      );

      // SQLite: one process runs every role, so the api is killed and started again with it.
      const restartWorker = async (dying: ChildProcess): Promise<ChildProcess> => {
        await kill(dying);
        const next = split ? await serve({ ...env, PORT: "0" }, ["--role", "worker"]) : await serve(env);
        children.push(next);
        return next;
      };
      const current = await restartWorker(worker);

      // A bound against a hang: the lease of the killed worker's job runs out first (2 s).
      const done = await waitFor(
        async () => {
          const detail = (await request(base, "GET", `/workflows/${wf.id}/runs/${running.id}`, { key })).body.data;
          return detail?.status === "succeeded" ? detail : undefined;
        },
        { what: "the run resumed and succeeded", timeoutMs: 60_000, intervalMs: 100, retryErrors: true },
      );
      assert.deepEqual(
        done.steps.map((s: any) => [s.status, s.return_value?.step]),
        [
          ["succeeded", 1],
          ["succeeded", 2],
          ["succeeded", 3],
        ],
      );
      assert.equal(done.steps[0].started_at, before.steps[0].started_at, "step 1 kept its stored result");
      for (const n of [1, 2, 3]) assert.equal(receiver.at(`/side/${n}`).length, 1, `step ${n}'s side effect happened once`);
      assert.equal((await runs()).length, 1, "one run, continued, not a second one");
      t.diagnostic(`gate requests: ${receiver.at("/gate").length}; run took ${done.duration_ms} ms across the kill`);

      // A suspended run holds nothing: it survives its worker's death, and its resume URL (served
      // by the api process) wakes it on whichever worker is alive.
      const suspended = await request(base, "POST", "/workflows", {
        key,
        json: {
          steps: [
            { name: "wait", code: `export default { async run({ $ }) { $.export("links", $.flow.suspend()); } };` },
            { name: "after", code: `export default { async run({ steps }) { return steps.wait.$resume_data; } };` },
          ],
        },
      });
      const swf = suspended.body.data;
      assert.equal((await request(swf.endpoint_url, "POST", "", { json: {} })).status, 200);
      const paused = await waitFor(
        async () => {
          const [run] = (await request(base, "GET", `/workflows/${swf.id}/runs`, { key })).body.data as any[];
          return run?.status === "paused"
            ? (await request(base, "GET", `/workflows/${swf.id}/runs/${run.id}`, { key })).body.data
            : undefined;
        },
        { what: "the run paused", timeoutMs: 30_000 },
      );
      await restartWorker(current);
      const resumeUrl = paused.steps[0].exports.links.resume_url as string;
      assert.ok(resumeUrl.startsWith(`http://127.0.0.1:${port}/r/`), resumeUrl);
      const resumed = await waitFor(
        async () => (await request(resumeUrl, "POST", "", { json: { go: 1 } }).catch(() => undefined))?.status,
        {
          what: "the resume URL answered",
          timeoutMs: 30_000,
        },
      );
      assert.equal(resumed, 200);
      const finished = await waitFor(
        async () => {
          const detail = (await request(base, "GET", `/workflows/${swf.id}/runs/${paused.id}`, { key })).body.data;
          return detail?.status === "succeeded" ? detail : undefined;
        },
        { what: "the resumed run succeeded", timeoutMs: 60_000, intervalMs: 100, retryErrors: true },
      );
      assert.deepEqual(finished.steps[1].return_value, { go: 1 });
    });
  });
}
