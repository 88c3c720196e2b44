// Dead jobs as an operator sees them: a job that always throws is dead after
// SLUICE_JOB_MAX_ATTEMPTS attempts, counted in /metrics, listed by GET /v1/admin/jobs?state=dead
// (paginated) and `sluice jobs dead` (through the admin API or the database directly), and
// runnable again after POST /v1/admin/jobs/{id}/retry or `sluice jobs retry`.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { ADMIN_TOKEN, startTestApp, type TestApp } from "../helpers/test-app.js";
import { parsePrometheusText, valueOf } from "../metrics/prometheus-text.js";
import { waitFor } from "../helpers/wait-for.js";
import { cliEnv, runCli } from "../helpers/sluice-process.js";

const MAX = 3;

for (const dialect of DIALECTS) {
  describe(`dead jobs for the operator [${dialect}]`, () => {
    let app: TestApp;
    const attempts: number[] = [];
    const admin = (method: string, path: string, query?: Record<string, string | number>) =>
      request(app.baseUrl, method, path, { key: ADMIN_TOKEN, query });
    const deadCount = async () => {
      const res = await request(app.origin, "GET", "/metrics");
      assert.equal(res.status, 200, res.text);
      return valueOf(parsePrometheusText(res.text), "sluice_jobs", { state: "dead" });
    };

    before(async () => {
      // Retries after 10 ms: the test waits for conditions, never for the real backoff.
      app = await startTestApp(dialect, { jobMaxAttempts: MAX }, { jobRetryBackoffMs: () => 10 });
      app.sluice.services.queue.handle("test.poison", async (job) => {
        attempts.push(job.attempts);
        throw new Error(`poisoned (attempt ${job.attempts})`);
      });
    });
    after(async () => app.close());

    it("a job that always throws ends dead after SLUICE_JOB_MAX_ATTEMPTS: in /metrics, the admin list, `sluice jobs dead`; retry runs it again", async () => {
      const { db } = app.sluice.services.store;
      const queue = app.sluice.services.queue;
      assert.equal(await deadCount(), 0);
      await queue.enqueue(db, [{ type: "test.poison", payload: { n: 1 } }]);
      await waitFor(async () => (await deadCount()) === 1, 15_000);
      assert.deepEqual(attempts, [1, 2, 3]);
      assert.equal(
        (await db.selectFrom("jobs").select("id").where("type", "=", "test.poison").execute()).length,
        0,
        "not in the queue any more",
      );

      const listed = await admin("GET", "/admin/jobs", { state: "dead" });
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.body.page_info.total_count, 1);
      const [job] = listed.body.data;
      assert.equal(job.type, "test.poison");
      assert.equal(job.state, "dead");
      assert.equal(job.attempts, MAX);
      assert.equal(job.last_error, "poisoned (attempt 3)");
      assert.deepEqual(job.payload, { n: 1 });
      assert.ok(Number.isInteger(job.created_at) && job.died_at >= job.created_at);

      // A second dead job: pages of one, newest first, like every list.
      await queue.enqueue(db, [{ type: "test.poison", payload: { n: 2 } }]);
      await waitFor(async () => (await deadCount()) === 2, 15_000);
      const first = await admin("GET", "/admin/jobs", { state: "dead", limit: 1 });
      assert.equal(first.body.page_info.total_count, 2);
      assert.deepEqual(first.body.data[0].payload, { n: 2 });
      const second = await admin("GET", "/admin/jobs", { state: "dead", limit: 1, after: first.body.page_info.end_cursor });
      assert.deepEqual(
        second.body.data.map((j: { id: string }) => j.id),
        [job.id],
      );

      // The CLI, through the admin API and directly on the database.
      const env = cliEnv(app.database, { SLUICE_API_URL: app.origin, SLUICE_ADMIN_TOKEN: ADMIN_TOKEN });
      const viaApi = await runCli(["jobs", "dead"], env, app.database.dataDir);
      assert.equal(viaApi.code, 0, viaApi.stderr);
      assert.match(viaApi.stdout, /^ID\s+TYPE\s+ATTEMPTS\s+DIED\s+LAST ERROR$/m);
      assert.match(viaApi.stdout, new RegExp(`^${job.id}\\s+test\\.poison\\s+3\\s+\\S+\\s+poisoned \\(attempt 3\\)$`, "m"));
      const direct = await runCli(["jobs", "dead", "--json"], cliEnv(app.database), app.database.dataDir);
      assert.equal(direct.code, 0, direct.stderr);
      assert.deepEqual(
        JSON.parse(direct.stdout)
          .data.map((j: { id: string }) => j.id)
          .sort(),
        [job.id, first.body.data[0].id].sort(),
      );

      // Retried: runnable again with its attempts reset, and dead again after as many.
      const retried = await admin("POST", `/admin/jobs/${job.id}/retry`);
      assert.equal(retried.status, 204, retried.text);
      await waitFor(() => attempts.length === 9, 15_000);
      assert.deepEqual(attempts.slice(6), [1, 2, 3]);
      await waitFor(async () => (await deadCount()) === 2, 15_000);
      // ... and by the CLI.
      const again = await runCli(["jobs", "retry", job.id], env, app.database.dataDir);
      assert.equal(again.code, 0, again.stderr);
      await waitFor(() => attempts.length === 12, 15_000);
    });

    it("refuses a retry of an unknown job (404) and of one that is not dead (409), a state it does not list (400), and a missing admin token (401)", async () => {
      const unknown = await admin("POST", "/admin/jobs/job_nope/retry");
      assert.equal(unknown.status, 404, unknown.text);
      assert.equal(typeof unknown.body.error, "string");

      const { db } = app.sluice.services.store;
      await app.sluice.services.queue.enqueue(db, [{ type: "test.later", payload: {}, runAt: Date.now() + 3_600_000 }]);
      const waiting = await db.selectFrom("jobs").select("id").where("type", "=", "test.later").executeTakeFirstOrThrow();
      const notDead = await admin("POST", `/admin/jobs/${waiting.id}/retry`);
      assert.equal(notDead.status, 409, notDead.text);
      assert.match(notDead.body.error, /not dead/);

      assert.equal((await admin("GET", "/admin/jobs", { state: "running" })).status, 400);
      assert.equal((await admin("GET", "/admin/jobs")).status, 400);
      assert.equal(
        (await request(app.baseUrl, "GET", "/admin/jobs", { key: "wrong-token-wrong-token-wrong-token", query: { state: "dead" } })).status,
        401,
      );
      const cli = await runCli(["jobs", "retry", "job_nope"], cliEnv(app.database), app.database.dataDir);
      assert.equal(cli.code, 1, cli.stdout + cli.stderr);
      assert.match(cli.stderr, /sluice: record not found/);
    });
  });
}
