// Scale-out on one PostgreSQL database: one `sluice serve --role api`, two `--role worker` and
// one `--role scheduler` process. A steady stream of events goes to an HTTP source subscribed
// to a loopback webhook while a timer source ticks every second; one worker is SIGKILLed under
// load. Nothing accepted (2xx) is lost: every event arrives, a duplicate only with the same
// webhook-id. The timer fires once per tick across the processes: one event per timestamp.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import pg from "pg";
import { after, before, describe, it } from "node:test";
import { startServer } from "../helpers/sluice-process.js";
import { createTestDatabase, DIALECTS, TEST_SECRET_KEY, type TestDatabase } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { waitFor } from "../helpers/wait-for.js";
import { Receiver } from "./receiver.js";
import { descendants, exited, killAll } from "../helpers/processes.js";

const ADMIN = "scale-out-admin-token-of-at-least-32-characters";

const HTTP_SOURCE = `export default {
  name: "scale-out http", version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit(event.body); },
};`;

const TIMER_SOURCE = `export default {
  name: "scale-out timer", version: "0.0.1",
  props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 1 } } },
  async run(event) { this.$emit({ timestamp: event.timestamp }); },
};`;

/** `sluice serve --role <role>` with only the environment the test gives; resolves once it has started. */
async function serve(role: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string; log(): string }> {
  const server = await startServer(
    { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    undefined,
    ["--role", role],
    30_000,
  );
  return { child: server.child, url: server.origin, log: () => server.stdout() + server.stderr() };
}

/** webhook-ids each event arrived under, by a key taken from its body. */
function webhookIdsBy(
  received: Array<{ body: string; headers: Record<string, unknown> }>,
  key: (body: any) => number,
): Map<number, Set<string>> {
  const ids = new Map<number, Set<string>>();
  for (const r of received) {
    const k = key(JSON.parse(r.body));
    const set = ids.get(k) ?? new Set<string>();
    set.add(String(r.headers["webhook-id"]));
    ids.set(k, set);
  }
  return ids;
}

/** What the queue and the deliveries hold, for a failure message: where undelivered events are stuck. */
async function queueState(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const now = Date.now();
    const jobs = await client.query(
      `SELECT type, count(*)::int AS n, min(run_at) - $1::bigint AS first_due_in_ms, max(attempts) AS max_attempts,
              count(lease_token)::int AS leased, min(locked_until) - $1::bigint AS first_lease_ends_in_ms, max(last_error) AS an_error
         FROM jobs GROUP BY type`,
      [now],
    );
    const dead = await client.query(`SELECT type, count(*)::int AS n, max(last_error) AS an_error FROM dead_jobs GROUP BY type`);
    const deliveries = await client.query(
      `SELECT status, count(*)::int AS n, max(attempts) AS max_attempts FROM deliveries GROUP BY status`,
    );
    const errors = await client.query(
      `SELECT coalesce(error, status_code::text) AS outcome, count(*)::int AS n FROM delivery_attempts
        WHERE error IS NOT NULL OR status_code <> 200 GROUP BY 1 ORDER BY 2 DESC LIMIT 5`,
    );
    // What each connection is doing: a statement waiting on a lock, or a transaction left idle.
    const sessions = await client.query(
      `SELECT state, wait_event_type, wait_event, count(*)::int AS n, max(now() - xact_start)::text AS longest_transaction, min(left(query, 60)) AS a_query
         FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1, 2, 3`,
    );
    return JSON.stringify({
      jobs: jobs.rows,
      dead: dead.rows,
      deliveries: deliveries.rows,
      failedAttempts: errors.rows,
      sessions: sessions.rows,
    });
  } finally {
    await client.end();
  }
}

const skip = DIALECTS.includes("postgres") ? false : "needs PostgreSQL: set TEST_DATABASE_URL to run it";

describe("scale-out: api, two workers and a scheduler on one PostgreSQL database", { skip }, () => {
  let database: TestDatabase;
  let receiver: Receiver;
  const children: ChildProcess[] = [];

  before(async () => {
    database = await createTestDatabase("postgres");
    receiver = await new Receiver().start();
  });
  after(async () => {
    const runners = children.flatMap((child) => (child.pid ? descendants(child.pid) : []));
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await Promise.all(children.map(exited));
    killAll(runners);
    await receiver?.close();
    await database?.drop();
  });

  it("loses no accepted event when a worker dies under load, and fires each timer tick once", async (t) => {
    const env: Record<string, string> = {
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: database.databaseUrl!,
      SLUICE_SECRET_KEY: TEST_SECRET_KEY,
      SLUICE_DATA_DIR: database.dataDir,
      SLUICE_ADMIN_TOKEN: ADMIN,
      SLUICE_ALLOW_PRIVATE_EGRESS: "true",
      SLUICE_API_RATE_LIMIT_PER_MINUTE: "1000000",
      SLUICE_WEBHOOK_RETRY_SCHEDULE: "0.2,0.5,1,1,1,1,1,1,1,1",
      SLUICE_QUEUE_LEASE_SECONDS: "2",
      SLUICE_MIN_TIMER_SECONDS: "1",
      LOG_LEVEL: "info",
    };
    // The api process migrates the fresh database before the others open it.
    const api = await serve("api", env);
    children.push(api.child);
    const [worker1, worker2, scheduler] = await Promise.all([serve("worker", env), serve("worker", env), serve("scheduler", env)]);
    children.push(worker1.child, worker2.child, scheduler.child);
    const base = `${api.url}/v1`;

    const user = await request(base, "POST", "/admin/users", {
      key: ADMIN,
      json: { username: "scaler", email: "scaler@example.test", plan: "paid" },
    });
    assert.equal(user.status, 200, user.text);
    const key = user.body.data.api_key as string;
    const source = await request(base, "POST", "/sources", { key, json: { component_code: HTTP_SOURCE } });
    assert.equal(source.status, 200, source.text);
    // Deliveries are held unanswered around the kill, so the killed worker certainly dies with
    // deliveries in flight (however fast delivery keeps up); the survivor's are answered after.
    const events = receiver.holdable("/events", (r) => JSON.parse(r.body).n as number);
    const answered = events.answered;
    const hook = await request(base, "POST", "/webhooks", { key, query: { url: events.url } });
    await request(base, "POST", "/subscriptions", { key, query: { emitter_id: source.body.data.id, listener_id: hook.body.data.id } });
    const endpoint = source.body.data.configured_props.http.endpoint_url as string;
    const timer = await request(base, "POST", "/sources", {
      key,
      json: { component_code: TIMER_SOURCE, configured_props: { timer: { intervalSeconds: 1 } } },
    });
    assert.equal(timer.status, 200, timer.text);
    const timerHook = await request(base, "POST", "/webhooks", { key, query: { url: `${receiver.url}/timer` } });
    await request(base, "POST", "/subscriptions", { key, query: { emitter_id: timer.body.data.id, listener_id: timerHook.body.data.id } });

    // A steady stream from a few concurrent senders until told to stop.
    const accepted = new Set<number>();
    let next = 0;
    let sending = true;
    const senders = Array.from({ length: 4 }, async () => {
      while (sending && next < 20_000) {
        const n = next++;
        const res = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ n }) });
        await res.arrayBuffer();
        if (res.status >= 200 && res.status < 300) accepted.add(n);
      }
    });

    const tickCount = () => new Set(receiver.at("/timer").map((r) => JSON.parse(r.body).timestamp as number)).size;
    // Ticks on both sides of the kill: the timer's runs and deliveries go to either worker.
    await waitFor(() => accepted.size >= 200 && answered.size >= 50 && tickCount() >= 3, { timeoutMs: 20_000, intervalMs: 20 });
    events.hold();
    const acceptedBeforeHold = accepted.size;
    await waitFor(() => accepted.size >= acceptedBeforeHold + 20, { timeoutMs: 20_000, intervalMs: 20 });
    const orphans = descendants(worker1.child.pid!);
    worker1.child.kill("SIGKILL");
    await exited(worker1.child);
    killAll(orphans);
    const acceptedAtKill = accepted.size;
    const deliveredAtKill = answered.size;
    const ticksAtKill = tickCount();
    assert.ok(deliveredAtKill < acceptedAtKill, "the worker died with accepted events not yet delivered");
    events.release();
    await waitFor(() => accepted.size >= acceptedAtKill + 200 && tickCount() >= ticksAtKill + 4, { timeoutMs: 20_000, intervalMs: 20 });
    sending = false;
    await Promise.all(senders);

    // A bound against a hang, not a pause: on a busy 2-core machine four processes and PostgreSQL share it.
    await waitFor(() => [...accepted].every((n) => answered.has(n)), {
      what: "every accepted event delivered",
      timeoutMs: 60_000,
      intervalMs: 100,
    }).catch(async (error: Error) => {
      const missing = [...accepted].filter((n) => !answered.has(n));
      // The survivor's warnings and errors (pino levels 40 and up) say what it was stuck on.
      const complaints = worker2
        .log()
        .split("\n")
        .filter((line) => /"level":(40|50|60)/.test(line))
        .slice(-15)
        .join("\n");
      error.message += `\n${missing.length} missing (${missing.slice(0, 20).join(", ")})\n${await queueState(database.databaseUrl!)}\n${complaints}`;
      throw error;
    });
    const eventIds = webhookIdsBy(receiver.at("/events"), (body) => body.n);
    for (const [n, ids] of eventIds) assert.equal(ids.size, 1, `event ${n} arrived under ${ids.size} webhook-ids`);

    t.diagnostic(
      `accepted ${accepted.size} events (${acceptedAtKill} before the kill, ${deliveredAtKill} of them delivered by then); ${receiver.at("/events").length} webhook requests`,
    );
    const ticks = webhookIdsBy(receiver.at("/timer"), (body) => body.timestamp);
    t.diagnostic(`the timer fired for ${ticks.size} ticks in ${receiver.at("/timer").length} webhook requests`);
    assert.ok(ticks.size >= 7, `the timer fired during the run (${ticks.size} ticks)`);
    for (const [timestamp, ids] of ticks) assert.equal(ids.size, 1, `tick ${timestamp} fired ${ids.size} times`);
  });
});
