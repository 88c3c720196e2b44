// The bounded cache behind the hot paths' memos: a value is made once per key, and past the
// bound the oldest key goes first.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BoundedCache } from "../../src/lib/bounded-cache.js";

describe("bounded cache", () => {
  it("makes a key's value once and keeps at most its bound, dropping the oldest first", () => {
    const made: string[] = [];
    const cache = new BoundedCache<string, string>(2);
    const make = (key: string) => {
      made.push(key);
      return key.toUpperCase();
    };
    assert.equal(cache.get("a", make), "A");
    assert.equal(cache.get("a", make), "A");
    cache.get("b", make);
    cache.get("c", make); // "a" goes
    cache.get("b", make);
    cache.get("a", make); // made again; "b" goes
    cache.get("c", make);
    assert.deepEqual(made, ["a", "b", "c", "a"]);
  });
});
