// What one execution may emit: events, their bytes, the size of one. The runner refuses the
// emit past a limit with a clear error; the service checks what arrives again, since user code
// shares the runner's process and can get past the runner's own check.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createComponentRunner } from "../../src/runtime/component-runner.js";
import { testRunnerSettings } from "../helpers/runner-settings.js";

describe("per-execution emit limits", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "sluice-emit-limits-"));
  const runner = createComponentRunner(
    testRunnerSettings(dataDir, { limits: { maxEmits: 3, maxEmitBytes: 2500, maxEventBytes: 1024 } }, "none"),
  );
  after(async () => {
    await runner.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const run = (code: string) =>
    runner.execute({ userId: "u_limits", code, entry: "run", event: {}, props: {}, state: {}, context: { sourceId: "dc_limits" } });

  it("the emit past the number of events fails the run naming the setting; the ones before stand", async () => {
    const result = await run(`module.exports = { run() { for (let i = 0; i < 5; i++) this.$emit(i); } };`);
    assert.deepEqual(
      result.emits.map((e) => e.event),
      [0, 1, 2],
    );
    assert.equal(result.error?.name, "EmitLimitError");
    assert.match(result.error!.message, /at most 3 events \(SLUICE_MAX_EMITS_PER_RUN\)/);
  });

  it("an event over the size limit, and events over the bytes of a run, fail naming their setting", async () => {
    const big = await run(`module.exports = { run() { this.$emit("x".repeat(2000)); } };`);
    assert.match(big.error?.message ?? "", /over the limit of 1024 bytes \(SLUICE_MAX_EVENT_BYTES\)/);
    const many = await run(
      `module.exports = { run() { this.$emit("a".repeat(1000)); this.$emit("b".repeat(1000)); this.$emit("c".repeat(1000)); this.$emit("d"); } };`,
    );
    assert.equal(many.emits.length, 2);
    assert.match(many.error?.message ?? "", /at most 2500 bytes of events \(SLUICE_MAX_EMIT_BYTES_PER_RUN\)/);
    const workflow = await runner.executeWorkflowStep({
      userId: "u_limits",
      workflowId: "p_limits",
      step: { id: "c_1", name: "emit", code: `export default { async run({ $ }) { for (let i = 0; i < 4; i++) $.send.emit({ i }); } };` },
      steps: { trigger: { event: {}, context: {} } },
      context: {},
      links: { resume_url: "http://127.0.0.1/r/a", cancel_url: "http://127.0.0.1/r/b" },
    });
    assert.match(workflow.error?.message ?? "", /at most 3 events/);
  });

  it("code that gets past the runner's check is stopped by the service's", async () => {
    // Sizes measured as nothing inside the runner: the service measures what arrived.
    const result = await run(`module.exports = { run() { Buffer.byteLength = () => 0; this.$emit("x".repeat(1500)); this.$emit("y"); } };`);
    assert.equal(result.error?.kind, "crash");
    assert.match(result.error!.message, /an event of \d+ bytes, over the limit of 1024/);
    assert.deepEqual(result.emits, []);
    const next = await run(`module.exports = { run() { this.$emit("fine"); } };`);
    assert.deepEqual(
      next.emits.map((e) => e.event),
      ["fine"],
    );
  });
});
