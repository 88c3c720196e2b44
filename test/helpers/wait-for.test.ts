// The one waitFor: returns the probe's value once it has one, fails past the deadline naming
// what it waited for, fails at once when the probe throws unless told to retry.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { waitFor } from "./wait-for.js";

describe("waitFor", () => {
  it("returns the probe's first value", async () => {
    let calls = 0;
    assert.deepEqual(await waitFor(() => (++calls >= 3 ? { calls } : undefined)), { calls: 3 });
  });

  it("fails past the deadline, naming what it waited for", async () => {
    await assert.rejects(
      waitFor(() => false, { what: "never", timeoutMs: 30 }),
      /timed out after 30 ms waiting for never/,
    );
  });

  it("fails at once when the probe throws", async () => {
    const started = Date.now();
    await assert.rejects(
      waitFor(() => assert.fail("boom"), 10_000),
      /boom/,
    );
    assert.ok(Date.now() - started < 5_000);
  });

  it("asks again after an error when told to, and reports the last one", async () => {
    let calls = 0;
    assert.equal(await waitFor(() => (++calls < 3 ? assert.fail("not yet") : "ok"), { retryErrors: true }), "ok");
    await assert.rejects(
      waitFor(() => assert.fail("still not"), { retryErrors: true, timeoutMs: 30 }),
      /the last probe threw: still not/,
    );
  });
});
