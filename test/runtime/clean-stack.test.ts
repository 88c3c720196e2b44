import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { cleanStack } from "../../src/runner/clean-stack.js";
import { createComponentRunner } from "../../src/runtime/component-runner.js";
import { packageRoot } from "../../src/runtime/package-root.js";
import { testRunnerSettings } from "../helpers/runner-settings.js";

describe("stack traces of user code show neither host paths nor Sluice's frames", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "sluice-stack-"));
  const runner = createComponentRunner(testRunnerSettings(dataDir, { runTimeoutSeconds: 10, runMemoryMb: 64 }));
  after(async () => {
    await runner.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("shortens module-cache paths to the user's file names", () => {
    const hash = "a".repeat(64);
    const stack = [
      "Error: boom",
      `    at Object.run (file:///srv/data/runtime/modules/u_abc/${hash}/component.mjs:3:11)`,
      `    at helper (/srv/data/runtime/modules/u_abc/${hash}/lib/util.cjs:1:5)`,
      "    at isNumber (/srv/data/runtime/packages/is-number@7.0.0/node_modules/is-number/index.js:2:9)",
    ].join("\n");
    assert.equal(
      cleanStack(stack),
      [
        "Error: boom",
        "    at Object.run (component.mjs:3:11)",
        "    at helper (lib/util.cjs:1:5)",
        "    at isNumber (is-number@7.0.0/node_modules/is-number/index.js:2:9)",
      ].join("\n"),
    );
  });

  it("an error thrown by run() reaches the service without the data directory or the runtime's frames", async () => {
    const result = await runner.execute({
      userId: "u_stack",
      code: "export default {\n  name: 'thrower',\n  async run() {\n    throw new Error('boom');\n  },\n};\n",
      entry: "run",
      props: {},
      state: {},
      context: { sourceId: "dc_stack" },
    });
    assert.equal(result.error?.message, "boom");
    const stack = result.error?.stack ?? "";
    assert.match(stack, /^Error: boom\n\s+at Object\.run \(component\.mjs:4:11\)/);
    assert.ok(!stack.includes(dataDir), stack);
    assert.ok(!/src\/runtime\//.test(stack), stack);
  });

  it("an egress refusal keeps the guard's frames (the service's code) out of the stack", async () => {
    const result = await runner.execute({
      userId: "u_stack",
      code: "import http from 'node:http';\nexport default {\n  async run() {\n    await new Promise((ok, fail) => http.get('http://127.0.0.1:9/', ok).on('error', fail));\n  },\n};\n",
      entry: "run",
      props: {},
      state: {},
      context: { sourceId: "dc_stack" },
    });
    assert.equal(result.error?.name, "EgressRefusedError");
    const stack = result.error?.stack ?? "";
    assert.match(stack, /^EgressRefusedError: egress to a private or loopback address is refused\n/);
    assert.ok(!stack.includes(packageRoot()), stack);
    assert.ok(!stack.includes("egress-guard"), stack);
  });
});
