// Unit tests: retry delays (schedule, ±20 % jitter, Retry-After, exhaustion) and signatures
// compared with the `standardwebhooks` package's own signing.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { nextRetryDelayMs, parseRetryAfter } from "../../src/delivery-worker/retry-policy.js";
import { signatureHeader, signPayload } from "../../src/delivery-worker/signature.js";

describe("retry policy", () => {
  const schedule = [5, 300, 1800];

  it("follows the schedule with ±20 % jitter and stops when it is used up", () => {
    assert.equal(
      nextRetryDelayMs(schedule, 1, undefined, () => 0),
      4000,
    );
    assert.equal(
      nextRetryDelayMs(schedule, 1, undefined, () => 0.5),
      5000,
    );
    assert.equal(
      nextRetryDelayMs(schedule, 1, undefined, () => 1),
      6000,
    );
    assert.equal(
      nextRetryDelayMs(schedule, 2, undefined, () => 0.5),
      300_000,
    );
    assert.equal(
      nextRetryDelayMs(schedule, 3, undefined, () => 0.5),
      1_800_000,
    );
    assert.equal(nextRetryDelayMs(schedule, 4, undefined), undefined);
    for (let i = 0; i < 200; i++) {
      const delay = nextRetryDelayMs(schedule, 2, undefined)!;
      assert.ok(delay >= 240_000 && delay <= 360_000, String(delay));
    }
  });

  it("prefers Retry-After (capped at a day) but never retries past the schedule", () => {
    assert.equal(nextRetryDelayMs(schedule, 1, 120_000), 120_000);
    assert.equal(nextRetryDelayMs(schedule, 1, 10 * 24 * 3600_000), 24 * 3600_000);
    assert.equal(nextRetryDelayMs(schedule, 4, 1000), undefined);
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    assert.equal(parseRetryAfter("30", now), 30_000);
    assert.equal(parseRetryAfter(" 0 ", now), 0);
    assert.equal(parseRetryAfter(new Date(now + 90_000).toUTCString(), now), 90_000);
    assert.equal(parseRetryAfter(new Date(now - 90_000).toUTCString(), now), 0);
    assert.equal(parseRetryAfter("soon", now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });
});

describe("Standard Webhooks signature", () => {
  it("matches the standardwebhooks package's signing byte for byte", () => {
    const secret = `whsec_${Buffer.from("a 24 byte signing secret").toString("base64")}`;
    const body = JSON.stringify({ hello: "wörld" });
    const at = new Date(Date.UTC(2026, 0, 1));
    const expected = new Webhook(secret).sign("del_abc", at, body);
    assert.equal(signPayload(secret, "del_abc", Math.floor(at.getTime() / 1000), body), expected);
  });

  it("puts one signature per secret in the header, space-separated", () => {
    const a = `whsec_${Buffer.alloc(24, 1).toString("base64")}`;
    const b = `whsec_${Buffer.alloc(24, 2).toString("base64")}`;
    const header = signatureHeader([a, b], "id", 1, "{}");
    assert.deepEqual(header.split(" "), [signPayload(a, "id", 1, "{}"), signPayload(b, "id", 1, "{}")]);
  });
});
