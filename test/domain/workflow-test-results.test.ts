// How a test of a workflow's steps reports each step: its console output cut at the step
// boundaries the runner marked, the failed step named by the runner, the rest skipped.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { stepResults } from "../../src/domain/workflows/test-workflow.js";

const steps = ["a", "b", "c"].map((name) => ({ id: `c_${name}`, name, code: "" }));
const log = (message: string) => ({ level: "log" as const, message, ts: 0 });
const base = { emits: [], emails: [], exited: false, durationMs: 1 };

describe("workflow test results", () => {
  it("gives each step the logs written while it ran, and skips the steps after a failure", () => {
    const results = stepResults(steps, {
      ...base,
      logs: [log("a1"), log("a2"), log("b1")],
      logStarts: [0, 2],
      stepResults: [{ id: "c_a", name: "a", returnValue: 1, exports: { x: 2 } }],
      failedStepId: "c_b",
      error: { kind: "error", name: "TypeError", message: "bad", stack: "TypeError: bad" },
    });
    assert.deepEqual(
      results.map((r) => [r.name, r.status, r.logs.map((l) => l.message), r.return_value, r.error?.message ?? null]),
      [
        ["a", "succeeded", ["a1", "a2"], 1, null],
        ["b", "failed", ["b1"], null, "bad"],
        ["c", "skipped", [], null, null],
      ],
    );
    assert.deepEqual(results[0]!.exports, { x: 2 });
  });

  it("puts all output on the first step when the runner gave no boundaries (a killed runner)", () => {
    const results = stepResults(steps, {
      ...base,
      logs: [log("early")],
      stepResults: [],
      failedStepId: "c_a",
      error: { kind: "timeout", name: "TimeoutError", message: "timed out", stack: "" },
    });
    assert.deepEqual(
      results.map((r) => [r.status, r.logs.length]),
      [
        ["failed", 1],
        ["skipped", 0],
        ["skipped", 0],
      ],
    );
  });
});
