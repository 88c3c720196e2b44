// The write batcher: items added while a group lingers share one flush; a full group is
// written at once; items added during a flush go into the next one; failures reach callers.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createBatcher } from "../../src/queue/batcher.js";

describe("batcher", () => {
  it("under load, groups items added within the linger into one flush; a lone item is not held", async () => {
    const flushed: number[][] = [];
    const batcher = createBatcher<number>(async (items) => void flushed.push(items), 100, 200);
    const started = Date.now();
    await batcher.add(0);
    assert.ok(Date.now() - started < 100, "a lone item is written at the end of the turn");
    await Promise.all([batcher.add(1), batcher.add(2)]); // one turn: a group of two
    const first = batcher.add(3);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await Promise.all([first, batcher.add(4), batcher.add(5)]);
    assert.deepEqual(flushed, [[0], [1, 2], [3, 4, 5]]);
  });

  it("writes a full group at once, without waiting out the linger", async () => {
    const flushed: number[][] = [];
    const batcher = createBatcher<number>(async (items) => void flushed.push(items), 3, 60_000);
    await Promise.all([1, 2].map((n) => batcher.add(n)));
    const started = Date.now();
    await Promise.all([3, 4, 5].map((n) => batcher.add(n)));
    assert.deepEqual(flushed, [
      [1, 2],
      [3, 4, 5],
    ]);
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
