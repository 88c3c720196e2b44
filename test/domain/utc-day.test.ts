// The UTC day usage is counted under: remembered between calls, so it must change exactly at
// midnight UTC, in either direction of time (a fake clock may go back).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { utcDay } from "../../src/domain/users/billing-period.js";

describe("utcDay", () => {
  it("is the ISO date of the instant in UTC, across midnights, leap days and going back", () => {
    const instants = [
      Date.UTC(2026, 10, 22, 23, 59, 59, 999),
      Date.UTC(2026, 10, 23, 0, 0, 0, 0),
      Date.UTC(2026, 10, 22, 12),
      Date.UTC(2024, 1, 29, 5),
      Date.UTC(2024, 2, 1, 0),
      Date.UTC(1969, 11, 31, 12),
      0,
      Date.UTC(2026, 10, 23, 0, 0, 0, 1),
    ];
    for (const ms of instants) assert.equal(utcDay(ms), new Date(ms).toISOString().slice(0, 10), String(ms));
  });
});
