// At-least-once across a crash, on each dialect: a real `sluice serve` process accepts events
// on an HTTP source subscribed to a loopback webhook, is SIGKILLed mid-stream, and restarted
// on the same database. Every event whose 2xx was received must arrive; an event may arrive
// twice only with the same webhook-id.
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

const ADMIN = "crash-admin-token-of-at-least-32-characters";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `sluice serve` with only the environment the test gives; resolves once it has started. */
async function serve(env: Record<string, string>): Promise<ChildProcess> {
  return (await startServer({ PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env }, undefined)).child;
}

const HTTP_SOURCE = `export default {
  name: "crash http", version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit(event.body); },
};`;

for (const dialect of DIALECTS) {
  describe(`delivery survives SIGKILL [${dialect}]`, () => {
    let database: TestDatabase;
    let receiver: Receiver;
    const children: ChildProcess[] = [];

    before(async () => {
      database = await createTestDatabase(dialect);
      receiver = await new Receiver().start();
    });
    after(async () => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await Promise.all(children.map(exited));
      await receiver.close();
      await database.drop();
    });

    it("delivers every accepted event after a crash and restart, duplicates only with the same webhook-id", async () => {
      const port = await freePort();
      const env: Record<string, string> = {
        PORT: String(port),
        HOST: "127.0.0.1",
        SLUICE_DATA_DIR: database.dataDir,
        SLUICE_ADMIN_TOKEN: ADMIN,
        SLUICE_ALLOW_PRIVATE_EGRESS: "true",
        SLUICE_API_RATE_LIMIT_PER_MINUTE: "1000000",
        SLUICE_WEBHOOK_RETRY_SCHEDULE: "0.2,0.5,1,1,1,1,1,1,1,1",
        SLUICE_QUEUE_LEASE_SECONDS: "2",
        LOG_LEVEL: "info",
        ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl, SLUICE_SECRET_KEY: TEST_SECRET_KEY } : {}),
      };
      const base = `http://127.0.0.1:${port}/v1`;
      const first = await serve(env);
      children.push(first);

      const user = await request(base, "POST", "/admin/users", {
        key: ADMIN,
        json: { username: "crashy", email: "crashy@example.test", plan: "paid" },
      });
      const key = user.body.data.api_key as string;
      const source = await request(base, "POST", "/sources", { key, json: { component_code: HTTP_SOURCE } });
      assert.equal(source.status, 200, source.text);
      // Deliveries are answered until the crash nears; from then on the receiver holds them
      // unanswered, so events accepted just before the SIGKILL are certain to be undelivered
      // when it lands, however fast delivery is (the restart then has work to do).
      const crash = receiver.holdable("/crash", (r) => JSON.parse(r.body).n as number);
      const answered = crash.answered;
      const hook = await request(base, "POST", "/webhooks", { key, query: { url: crash.url } });
      await request(base, "POST", "/subscriptions", { key, query: { emitter_id: source.body.data.id, listener_id: hook.body.data.id } });
      const endpoint = source.body.data.configured_props.http.endpoint_url as string;

      // Post events from a few concurrent senders until the server dies under them.
      const accepted = new Set<number>();
      let next = 0;
      let dead = false;
      const senders = Array.from({ length: 4 }, async () => {
        while (!dead && next < 5000) {
          const n = next++;
          try {
            const res = await fetch(endpoint, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ n }),
            });
            await res.arrayBuffer();
            if (res.status >= 200 && res.status < 300) accepted.add(n);
          } catch {
            dead = true; // connection refused or reset: the server is gone
          }
        }
      });
      await waitFor(() => accepted.size >= 150 && answered.size >= 20, 30_000);
      crash.hold();
      const acceptedBeforeHold = accepted.size;
      await waitFor(() => accepted.size >= acceptedBeforeHold + 20, 30_000);
      const orphans = descendants(first.pid!);
      first.kill("SIGKILL");
      await exited(first);
      // The crash leaves the runner children of the killed server behind; end them too.
      killAll(orphans);
      dead = true;
      await Promise.all(senders);
      assert.ok(
        [...accepted].some((n) => !answered.has(n)),
        "the crash happened mid-stream, with accepted events not yet delivered",
      );

      crash.release();
      const second = await serve(env);
      children.push(second);
      await waitFor(() => [...accepted].every((n) => answered.has(n)), { timeoutMs: 60_000, intervalMs: 50 });

      const idsByEvent = new Map<number, Set<string>>();
      for (const r of receiver.at("/crash")) {
        const n = JSON.parse(r.body).n as number;
        const ids = idsByEvent.get(n) ?? new Set<string>();
        ids.add(String(r.headers["webhook-id"]));
        idsByEvent.set(n, ids);
      }
      for (const [n, ids] of idsByEvent) assert.equal(ids.size, 1, `event ${n} arrived under ${ids.size} webhook-ids`);
      const runners = descendants(second.pid!);
      second.kill("SIGTERM");
      await exited(second);
      killAll(runners);
    });
  });
}
