// The write batcher: items added while a group lingers share one flush; a full group is
// written at once; items added during a flush go into the next one; failures reach callers.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createBatcher } from "../../src/queue/batcher.js";

describe("batcher", () => {
  it("groups items added within the linger into one flush", async () => {
    const flushed: number[][] = [];
    const batcher = createBatcher<number>(async (items) => void flushed.push(items), 100, 20);
    const first = batcher.add(1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await Promise.all([first, batcher.add(2), batcher.add(3)]);
    assert.deepEqual(flushed, [[1, 2, 3]]);
  });

  it("writes a full group at once, without waiting out the linger", async () => {
    const flushed: number[][] = [];
    const batcher = createBatcher<number>(async (items) => void flushed.push(items), 3, 60_000);
    const started = Date.now();
    await Promise.all([1, 2, 3].map((n) => batcher.add(n)));
    assert.deepEqual(flushed, [[1, 2, 3]]);
    assert.ok(Date.now() - started < 1000);
  });

  it("sends items added during a flush in the next group, and failures to their callers", async () => {
    const flushed: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batcher = createBatcher<number>(async (items) => {
      flushed.push(items);
      if (items.includes(1)) await gate;
      if (items.includes(3)) throw new Error("write failed");
    });
    const first = batcher.add(1);
    await new Promise((resolve) => setImmediate(resolve));
    const second = batcher.add(2);
    const third = batcher.add(3);
    release();
    await first;
    await assert.rejects(second, /write failed/);
    await assert.rejects(third, /write failed/);
    assert.deepEqual(flushed, [[1], [2, 3]]);
  });
});
