// Calls from a runner to the service during an execution (runtime/runner-calls.ts through the
// process pool), with a stand-in runner: each call is answered from the table built by the
// service, for the runner's own account whatever the call says; unknown methods, errors of the
// service and faults come back as errors without the service's internals; calls run a few at
// a time and all are answered; a call about a request the runner is not running ends it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ServiceError } from "../../src/lib/errors.js";
import { createProcessPool, type ProcessPool } from "../../src/runtime/process-pool.js";
import type { ServiceCallTable } from "../../src/runtime/runner-calls.js";

// "ask" sends each of payload.calls ({method, args}) at once, waits for every reply and answers
// them in order; "stray" sends a call about a request it was never given.
const STAND_IN_RUNNER = `
const channel = new (require("node:net").Socket)({ fd: 3, readable: true, writable: true });
const send = (message) => channel.write(JSON.stringify(message) + "\\n");
const waiting = new Map();
let next = 1;
let buffered = "";
channel.setEncoding("utf8");
channel.on("data", (chunk) => {
  buffered += chunk;
  let newline;
  while ((newline = buffered.indexOf("\\n")) !== -1) {
    const message = JSON.parse(buffered.slice(0, newline));
    buffered = buffered.slice(newline + 1);
    if (message.type === "reply") { waiting.get(message.call)(message); continue; }
    for (const request of Array.isArray(message) ? message : [message]) void serve(request);
  }
});
channel.on("end", () => process.exit(0));
async function serve({ id, type, payload }) {
  if (type === "stray") { send({ id: id + 1000, type: "call", call: 1, method: "echo", args: null }); return; }
  const replies = await Promise.all(payload.calls.map(({ method, args }) => new Promise((resolve) => {
    const call = next++;
    waiting.set(call, resolve);
    send({ id, type: "call", call, method, args });
  })));
  send({ id, type: "done", result: replies.map(({ call, ...rest }) => rest) });
}
send({ type: "ready" });
`;

describe("runner calls to the service", () => {
  let dir: string;
  let pool: ProcessPool;
  let running = 0;
  let mostAtOnce = 0;
  const faults: unknown[] = [];
  const table: ServiceCallTable = {
    echo: async (userId, args) => ({ userId, args }),
    slow: async (userId, args) => {
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      await new Promise((resolve) => setTimeout(resolve, 20));
      running--;
      return args;
    },
    refuse: async () => {
      throw new ServiceError("NOT_FOUND", "data store ds_x was not found in this account");
    },
    fault: async () => {
      throw new Error("connection string postgres://secret@db");
    },
  };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "sluice-calls-"));
    const script = join(dir, "runner.cjs");
    writeFileSync(script, STAND_IN_RUNNER);
    pool = createProcessPool({
      launch: () => ({ child: spawn(process.execPath, [script], { stdio: ["ignore", "ignore", "pipe", "pipe"] }), cleanup: () => {} }),
      serviceCalls: table,
      onCallFault: (error) => faults.push(error),
    });
  });
  after(async () => {
    await pool?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = (key: string, calls: Array<{ method: string; args: unknown }>) =>
    pool.run(key, { type: "ask", payload: { calls } }, { timeoutMs: 20_000 });

  it("answers from the table, for the runner's own account", async () => {
    const outcome = await ask("u_owner", [{ method: "echo", args: { userId: "u_someone_else" } }]);
    assert.ok(outcome.ok);
    assert.deepEqual(outcome.result, [{ type: "reply", ok: true, result: { userId: "u_owner", args: { userId: "u_someone_else" } } }]);
  });

  it("answers unknown methods, service errors and faults as errors, without the fault's details", async () => {
    const outcome = await ask("u_a", [
      { method: "nope", args: null },
      { method: "toString", args: null },
      { method: "refuse", args: null },
      { method: "fault", args: null },
    ]);
    assert.ok(outcome.ok);
    const errors = (outcome.result as Array<{ ok: boolean; error: { code: string; message: string } }>).map((r) => [r.ok, r.error.code]);
    assert.deepEqual(errors, [
      [false, "VALIDATION"],
      [false, "VALIDATION"],
      [false, "NOT_FOUND"],
      [false, "INTERNAL"],
    ]);
    assert.doesNotMatch(JSON.stringify(outcome.result), /postgres:\/\/secret/);
    assert.match(JSON.stringify(outcome.result), /ds_x was not found/);
    assert.equal(faults.length, 1, "the fault is reported to the service's log");
  });

  it("runs a runner's calls a few at a time, and answers every one", async () => {
    const outcome = await ask(
      "u_b",
      Array.from({ length: 40 }, (_, i) => ({ method: "slow", args: i })),
    );
    assert.ok(outcome.ok);
    assert.deepEqual(
      (outcome.result as Array<{ result: number }>).map((r) => r.result),
      Array.from({ length: 40 }, (_, i) => i),
    );
    assert.ok(mostAtOnce > 1 && mostAtOnce <= 8, `at most 8 at once (saw ${mostAtOnce})`);
  });

  it("a call about a request the runner is not running ends the runner", async () => {
    const outcome = await pool.run("u_c", { type: "stray", payload: null }, { timeoutMs: 20_000 });
    assert.ok(!outcome.ok);
    assert.equal(outcome.failure.kind, "crash");
    assert.match(outcome.failure.message, /a request it is not running \(call\)/);
  });
});
