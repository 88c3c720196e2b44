// The page cache's own rules (domain/events/summary-page-cache.ts): a page read while its
// emitter was written is not kept, a write forgets the emitter's pages, a page is only served
// to its owner and database, and the cache stays within its size.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Kysely } from "kysely";
import { SummaryPageCache } from "../../src/domain/events/summary-page-cache.js";
import type { Database } from "../../src/store/schema.js";

const db = {} as Kysely<Database>;
const otherDb = {} as Kysely<Database>;
const cache = new SummaryPageCache();

describe("summary page cache", () => {
  it("serves a kept page to its owner on its database only", () => {
    cache.keepPage(db, "dc_cache1", "u_a", "newest", cache.generationOf("dc_cache1"), '{"page":1}');
    assert.equal(cache.cachedPage(db, "dc_cache1", "u_a", "newest"), '{"page":1}');
    assert.equal(cache.cachedPage(db, "dc_cache1", "u_b", "newest"), undefined);
    assert.equal(cache.cachedPage(otherDb, "dc_cache1", "u_a", "newest"), undefined);
    assert.equal(cache.cachedPage(db, "dc_cache1", "u_a", "another request"), undefined);
  });

  it("a write forgets the emitter's pages, and a page read before the write is not kept", () => {
    const before = cache.generationOf("dc_cache2");
    cache.keepPage(db, "dc_cache2", "u_a", "newest", before, "old");
    cache.forgetEmitterPages("dc_cache2");
    assert.equal(cache.cachedPage(db, "dc_cache2", "u_a", "newest"), undefined);
    cache.keepPage(db, "dc_cache2", "u_a", "newest", before, "read while written");
    assert.equal(cache.cachedPage(db, "dc_cache2", "u_a", "newest"), undefined);
    cache.keepPage(db, "dc_cache2", "u_a", "newest", cache.generationOf("dc_cache2"), "new");
    assert.equal(cache.cachedPage(db, "dc_cache2", "u_a", "newest"), "new");
  });

  it("keeps no page over 256 KB and evicts the least recently used beyond 16 MB", () => {
    cache.keepPage(db, "dc_cache3", "u_a", "big", cache.generationOf("dc_cache3"), "x".repeat(256 * 1024 + 1));
    assert.equal(cache.cachedPage(db, "dc_cache3", "u_a", "big"), undefined);
    const page = "y".repeat(200 * 1024);
    cache.keepPage(db, "dc_first", "u_a", "p", 0, page);
    for (let i = 0; i < 100; i++) {
      cache.keepPage(db, `dc_fill${i}`, "u_a", "p", 0, page);
      assert.equal(cache.cachedPage(db, "dc_first", "u_a", "p"), page, "used all along: never evicted");
    }
    assert.equal(cache.cachedPage(db, "dc_fill0", "u_a", "p"), undefined, "the least recently used went");
    assert.equal(cache.cachedPage(db, "dc_fill99", "u_a", "p"), page);
  });
});
