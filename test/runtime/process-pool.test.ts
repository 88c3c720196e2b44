// The runner pool with a tiny stand-in runner (the real one is covered by the sandbox tests):
// several waiting jobs share one message to a runner when the account's executions are short,
// run one by one, and when a runner dies
// or a job times out, only the job that had started fails; the ones queued behind it run on
// another runner.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { spawn } from "node:child_process";
import { createProcessPool, type ProcessPool, type ProcessPoolOptions } from "../../src/runtime/process-pool.js";
import type { LaunchRunner } from "../../src/runtime/runner-launcher.js";

// Speaks the runner protocol (newline-delimited JSON on fd 3, src/runner/protocol/messages.ts):
// "echo" answers its payload with the number of messages this process received so far and how
// many jobs it held behind this one, "sleep" waits, "timed" waits payload.waitMs and says it ran
// payload.ms (a runner's own timing), "exit" dies, "raw" writes its payload to
// the channel as it is (a hostile runner's forged or oversized message), "big" sends a message
// of payload.bytes bytes.
const STAND_IN_RUNNER = `
const channel = new (require("node:net").Socket)({ fd: 3, readable: true, writable: true });
const send = (message) => channel.write(JSON.stringify(message) + "\\n");
let messages = 0;
let buffered = "";
const queue = [];
let working = false;
channel.setEncoding("utf8");
channel.on("data", (chunk) => {
  buffered += chunk;
  let newline;
  while ((newline = buffered.indexOf("\\n")) !== -1) {
    const message = JSON.parse(buffered.slice(0, newline));
    buffered = buffered.slice(newline + 1);
    messages++;
    queue.push(...(Array.isArray(message) ? message : [message]));
  }
  if (!working) work();
});
channel.on("end", () => process.exit(0));
async function work() {
  working = true;
  while (queue.length > 0) {
    const { id, type, payload } = queue.shift();
    const heldBehind = queue.length;
    if (type === "exit") process.exit(3);
    if (type === "raw") { channel.write(payload.replace("ID", String(id))); continue; }
    if (type === "big") { send({ id, type: "done", result: "x".repeat(payload.bytes) }); continue; }
    if (type === "sleep") await new Promise((resolve) => setTimeout(resolve, payload.ms));
    if (type === "timed") {
      await new Promise((resolve) => setTimeout(resolve, payload.waitMs));
      send({ id, type: "done", result: { payload, messages, heldBehind, pid: process.pid }, ms: payload.ms });
      continue;
    }
    send({ id, type: "done", result: { payload, messages, heldBehind, pid: process.pid } });
  }
  working = false;
}
send({ type: "ready" });
`;

/** Starts the stand-in runner (or a missing script) as the runtime's launcher would, without the sandbox. */
function standInLauncher(script: string): LaunchRunner {
  return () => ({ child: spawn(process.execPath, [script], { stdio: ["ignore", "ignore", "pipe", "pipe"] }), cleanup: () => {} });
}

describe("process pool", () => {
  let dir: string;
  let script: string;
  const pools: ProcessPool[] = [];
  const spawned: string[] = [];
  /** Runners started so far for `key`. */
  const startsOf = (key: string) => spawned.filter((k) => k === key).length;
  const pool = (maxPerKey: number, batchBudgetMs = 60_000, more: Partial<ProcessPoolOptions> = {}) => {
    const created = createProcessPool({
      launch: standInLauncher(script),
      maxPerKey,
      batchBudgetMs,
      onSpawn: (key) => spawned.push(key),
      ...more,
    });
    pools.push(created);
    return created;
  };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "sluice-pool-"));
    script = join(dir, "runner.cjs");
    writeFileSync(script, STAND_IN_RUNNER);
  });
  after(async () => {
    await Promise.all(pools.map((p) => p.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("hands jobs that wait together to a runner in one message, and answers each", async () => {
    const p = pool(1);
    await p.run("a", { type: "echo", payload: "warm-up" }, { timeoutMs: 5000 });
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => p.run("a", { type: "echo", payload: i }, { timeoutMs: 5000 })));
    assert.deepEqual(
      outcomes.map((o) => (o.ok ? (o.result as { payload: number }).payload : o.failure.message)),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    const counts = outcomes.map((o) => (o.ok ? (o.result as { messages: number }).messages : -1));
    assert.equal(new Set(counts).size, 1, `all eight came in one message after the warm-up (messages seen: ${counts})`);
    assert.equal(counts[0], 2);
    assert.ok(
      outcomes.some((o) => o.ok && (o.result as { heldBehind: number }).heldBehind > 0),
      "short jobs were queued in the runner",
    );
  });

  it("jobs that take long are not batched: a runner holds one at a time, and more runners start", async () => {
    const p = pool(4, 5);
    await p.run("slow", { type: "sleep", payload: { ms: 100 } }, { timeoutMs: 5000 }); // timed: batches of one
    assert.equal(startsOf("slow"), 1);
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () => p.run("slow", { type: "sleep", payload: { ms: 100 } }, { timeoutMs: 5000 })),
    );
    const results = outcomes.map((o) => (o.ok ? (o.result as { pid: number; heldBehind: number }) : { pid: 0, heldBehind: -1 }));
    assert.deepEqual(
      results.map((r) => r.heldBehind),
      [0, 0, 0, 0, 0, 0],
      "no job was queued behind another in a runner",
    );
    // Started at once for the jobs the first runner could not take; whether they are ready
    // before it is free again depends on how busy the machine is.
    assert.equal(startsOf("slow"), 4, "more runners were started, up to the limit");
  });

  it("sizes batches by how long the runner says its requests ran, not by when the answers reached the service", async () => {
    // Each answer takes 30 ms to arrive; timed here, a batch of 5 ms would hold one job and the
    // 40 jobs below would need runners of their own. The runner says each ran 0.1 ms.
    const p = pool(4, 5);
    const timed = () => p.run("self-timed", { type: "timed", payload: { waitMs: 30, ms: 0.1 } }, { timeoutMs: 5000 });
    await timed();
    const before = startsOf("self-timed");
    const outcomes = await Promise.all(Array.from({ length: 40 }, timed));
    const results = outcomes.map((o) => (o.ok ? (o.result as { messages: number; pid: number }) : { messages: -1, pid: 0 }));
    assert.equal(new Set(results.map((r) => r.messages)).size, 1, "all forty came in one message");
    assert.equal(new Set(results.map((r) => r.pid)).size, 1, "to one runner");
    assert.equal(startsOf("self-timed"), before, "no runner was started for them");
  });

  it("starts no runner while a live one can take the job, however slow the jobs are", async () => {
    const p = pool(4, 5);
    await p.run("busy-burst", { type: "sleep", payload: { ms: 100 } }, { timeoutMs: 5000 }); // timed: slow
    assert.equal(startsOf("busy-burst"), 1);
    for (let i = 0; i < 3; i++) await p.run("busy-burst", { type: "sleep", payload: { ms: 50 } }, { timeoutMs: 5000 });
    assert.equal(startsOf("busy-burst"), 1, "one job at a time: the idle runner takes each");
  });

  it("a job that times out fails alone: the jobs behind it run on a new runner", async () => {
    const p = pool(1);
    await p.run("b", { type: "echo", payload: "warm-up" }, { timeoutMs: 5000 });
    const slow = p.run("b", { type: "sleep", payload: { ms: 10_000 } }, { timeoutMs: 300 });
    const behind = [
      p.run("b", { type: "echo", payload: 1 }, { timeoutMs: 5000 }),
      p.run("b", { type: "echo", payload: 2 }, { timeoutMs: 5000 }),
    ];
    const timedOut = await slow;
    assert.equal(timedOut.ok, false);
    assert.equal(!timedOut.ok && timedOut.failure.kind, "timeout");
    const rest = await Promise.all(behind);
    assert.deepEqual(
      rest.map((o) => o.ok && (o.result as { payload: number }).payload),
      [1, 2],
    );
  });

  it("a runner that never gets ready is stopped after the start deadline: the oldest waiting job fails, the next runs", async () => {
    const silent = join(dir, "silent.cjs");
    writeFileSync(silent, "setInterval(() => {}, 1000);");
    let starts = 0;
    const launch: LaunchRunner = (key) => (++starts === 1 ? standInLauncher(silent)(key) : standInLauncher(script)(key));
    // The deadline also holds for the second runner, a real start: on a machine busy with other
    // test files a Node process may take most of a second to say it is ready.
    const created = createProcessPool({ launch, maxPerKey: 1, batchBudgetMs: 60_000, startTimeoutMs: 2_000 });
    pools.push(created);
    const [first, second] = await Promise.all([
      created.run("k", { type: "echo", payload: 1 }, { timeoutMs: 10_000 }),
      created.run("k", { type: "echo", payload: 2 }, { timeoutMs: 10_000 }),
    ]);
    assert.equal(first.ok, false);
    assert.match(!first.ok ? first.failure.message : "", /did not start within/);
    assert.equal(second.ok, true);
    assert.equal(starts, 2);
  });

  it("a runner that dies fails the job that was running, not the ones queued behind it", async () => {
    const p = pool(1);
    await p.run("c", { type: "echo", payload: "warm-up" }, { timeoutMs: 5000 });
    const dying = p.run("c", { type: "exit", payload: null }, { timeoutMs: 5000 });
    const behind = [
      p.run("c", { type: "echo", payload: 1 }, { timeoutMs: 5000 }),
      p.run("c", { type: "echo", payload: 2 }, { timeoutMs: 5000 }),
    ];
    const died = await dying;
    assert.equal(!died.ok && died.failure.kind, "crash");
    const rest = await Promise.all(behind);
    assert.deepEqual(
      rest.map((o) => o.ok && (o.result as { payload: number }).payload),
      [1, 2],
    );
  });

  it("a runner that cannot start fails the waiting jobs one by one instead of restarting forever", async () => {
    const broken = createProcessPool({ launch: standInLauncher(join(dir, "missing.cjs")), maxPerKey: 1 });
    pools.push(broken);
    const outcomes = await Promise.all([1, 2, 3].map(() => broken.run("d", { type: "echo", payload: null }, { timeoutMs: 5000 })));
    assert.ok(outcomes.every((o) => !o.ok && o.failure.kind === "crash"));
  });

  it("never runs more runners per key than allowed", async () => {
    const before = startsOf("e");
    const p = pool(2);
    await Promise.all(Array.from({ length: 40 }, () => p.run("e", { type: "sleep", payload: { ms: 20 } }, { timeoutMs: 5000 })));
    assert.ok(startsOf("e") - before <= 2);
  });

  describe("a runner's messages are hostile input", () => {
    const forged: Array<[string, string]> = [
      ["a failed message without an error", '{"id":ID,"type":"failed","error":null}\n'],
      ["an id that is not a number", '{"id":{"x":1},"type":"done","result":1}\n'],
      ["a message type the service does not know", '{"id":ID,"type":"takeover"}\n'],
      ["a message that is not JSON", "{not json\n"],
      ["an answer to a request it was never given", '{"id":999999,"type":"done","result":1}\n'],
      ["a second ready message", '{"type":"ready"}\n'],
      ["a run time below zero", '{"id":ID,"type":"done","result":1,"ms":-1}\n'],
    ];
    for (const [what, line] of forged) {
      it(`${what} ends that runner only, fails its job saying so, and the next job runs`, async () => {
        const p = pool(1);
        await p.run("hostile", { type: "echo", payload: "warm-up" }, { timeoutMs: 5000 });
        const outcome = await p.run("hostile", { type: "raw", payload: line }, { timeoutMs: 5000 });
        assert.equal(outcome.ok, false);
        assert.equal(!outcome.ok && outcome.failure.kind, "crash");
        assert.match(!outcome.ok ? outcome.failure.message : "", /the runner sent .* and was stopped/);
        const next = await p.run("hostile", { type: "echo", payload: 1 }, { timeoutMs: 5000 });
        assert.deepEqual(next.ok && (next.result as { payload: number }).payload, 1);
      });
    }

    it("a message over the size cap is cut off as it arrives, not buffered whole", async () => {
      const p = pool(1, 60_000, { maxMessageBytes: 1024 * 1024 });
      const small = await p.run("big", { type: "big", payload: { bytes: 1000 } }, { timeoutMs: 5000 });
      assert.equal(small.ok, true);
      const before = process.memoryUsage().rss;
      const outcome = await p.run("big", { type: "big", payload: { bytes: 200 * 1024 * 1024 } }, { timeoutMs: 20_000 });
      assert.equal(!outcome.ok && outcome.failure.kind, "crash");
      assert.match(!outcome.ok ? outcome.failure.message : "", /over 1048576 bytes/);
      assert.ok(process.memoryUsage().rss - before < 100 * 1024 * 1024, "the service did not hold the 200 MB message");
      const next = await p.run("big", { type: "echo", payload: 2 }, { timeoutMs: 5000 });
      assert.deepEqual(next.ok && (next.result as { payload: number }).payload, 2);
    });

    it("a result of the wrong shape for its request type ends the runner", async () => {
      const p = pool(1, 60_000, { checkResult: (type, result) => (typeof result === "object" ? undefined : `${type}: not an object`) });
      const outcome = await p.run("shape", { type: "raw", payload: '{"id":ID,"type":"done","result":"text"}\n' }, { timeoutMs: 5000 });
      assert.match(!outcome.ok ? outcome.failure.message : "", /an invalid result \(raw: not an object\)/);
    });
  });
});
