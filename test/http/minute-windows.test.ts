// The fixed one-minute windows behind the API rate limit and the failed-authentication limit.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMinuteWindows, secondsLeft, WINDOW_MS } from "../../src/http/minute-windows.js";

describe("minute windows", () => {
  it("a key's window opens at its first count, counts until a minute later, then starts again", () => {
    const windows = createMinuteWindows();
    assert.equal(windows.current("a", 1_000), undefined);
    assert.equal(windows.add("a", 1_000).count, 1);
    assert.equal(windows.add("a", 30_000).count, 2);
    assert.equal(windows.add("b", 30_000).count, 1, "keys count apart");
    const open = windows.current("a", 60_999)!;
    assert.equal(open.count, 2);
    assert.equal(secondsLeft(open, 60_999), 1);
    assert.equal(secondsLeft(open, 1_000), 60);
    assert.equal(windows.current("a", 1_000 + WINDOW_MS), undefined, "the window ended");
    assert.equal(windows.add("a", 1_000 + WINDOW_MS).count, 1);
  });

  it("the table stays bounded: when it is full, ended windows make room, and if none ended it starts again", () => {
    const windows = createMinuteWindows();
    for (let i = 0; i < 100_000; i++) windows.add(`early${i}`, 0);
    windows.add("open", 30_000); // one more than the table holds: nothing ended yet
    assert.equal(windows.current("early1", 30_000), undefined, "every window was dropped");
    assert.equal(windows.current("open", 30_000)?.count, 1);
    for (let i = 0; i < 99_999; i++) windows.add(`early${i}`, 30_000 + i / 1000);
    windows.add("late", 90_000); // full again: "open" ended, the others not
    assert.equal(windows.current("open", 90_000), undefined);
    assert.equal(windows.current("early1", 90_000)?.count, 1, "open windows are kept while ended ones make room");
    assert.equal(windows.current("late", 90_000)?.count, 1);
  });
});
