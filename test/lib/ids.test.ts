// Random ids: the right length and alphabet, no repeats, and every character equally likely
// (bytes that would bias the alphabet are skipped).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { idPrefix, newId, newTimeOrderedId, randomString } from "../../src/lib/ids.js";

describe("ids", () => {
  it("are prefixed, URL-safe and of the asked length", () => {
    for (const length of [1, 12, 16, 27, 5000]) assert.match(randomString(length), new RegExp(`^[A-Za-z0-9]{${length}}$`));
    const id = newId("dc");
    assert.match(id, /^dc_[A-Za-z0-9]{16}$/);
    assert.equal(idPrefix(id), "dc");
  });

  it("do not repeat", () => {
    const seen = new Set(Array.from({ length: 20_000 }, () => randomString(16)));
    assert.equal(seen.size, 20_000);
  });

  it("use every character about equally often", () => {
    const counts = new Map<string, number>();
    const text = randomString(620_000); // 10,000 expected per character
    for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
    assert.equal(counts.size, 62);
    // A modulo bias would give the first 8 characters 5/4 of the others' share.
    for (const [char, count] of counts) assert.ok(count > 9_400 && count < 10_600, `${char}: ${count}`);
  });

  it("made later sort later when time-ordered, in the same shape as random ids", () => {
    const id = newTimeOrderedId("del");
    assert.match(id, /^del_[A-Za-z0-9]{16}$/);
    assert.equal(idPrefix(id), "del");
    // Across digit, upper- and lower-case boundaries of the time part, and across years.
    const times = [0, 9, 10, 35, 36, 61, 62, 1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000, 62 ** 8 - 1];
    const ids = times.map((ms) => newTimeOrderedId("att", ms));
    const sorted = [...ids].sort();
    assert.deepEqual(sorted, ids);
    // Ids of one millisecond differ in their random part.
    const sameMs = new Set(Array.from({ length: 10_000 }, () => newTimeOrderedId("job", 1_800_000_000_000)));
    assert.equal(sameMs.size, 10_000);
  });
});
