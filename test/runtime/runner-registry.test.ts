import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { createRunnerRegistry } from "../../src/runtime/runner-registry.js";
import { probeBwrap } from "../../src/runtime/sandbox/choose-sandbox.js";
import { testRunnerSettings } from "../helpers/runner-settings.js";
import { waitFor } from "../helpers/wait-for.js";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("runner registry (orphaned runners of a killed service)", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-runners-"));
  const script = join(dir, "fake-runner.js");
  writeFileSync(script, "setInterval(() => {}, 1000);\n");
  const children: ChildProcess[] = [];
  const start = (file: string) => {
    const child = spawn(process.execPath, [file], { stdio: "ignore" });
    children.push(child);
    return child.pid as number;
  };
  after(() => {
    for (const child of children) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("kills runners whose service died, keeps those of a live service and never kills other processes", async () => {
    const registryDir = join(dir, "runners");
    const registry = createRunnerRegistry(registryDir, script);
    // A pid that certainly belonged to a process that has exited: the dead "service".
    const deadParent = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
    const orphan = start(script);
    const liveServicesRunner = start(script);
    const other = join(dir, "not-a-runner.js");
    writeFileSync(other, "setInterval(() => {}, 1000);\n");
    const unrelated = start(other); // recorded by mistake or a reused pid: not our script
    writeFileSync(join(registryDir, `${orphan}-${deadParent}`), "");
    writeFileSync(join(registryDir, `${unrelated}-${deadParent}`), "");
    // Another service, still running, sharing the data directory (here: our own parent).
    writeFileSync(join(registryDir, `${liveServicesRunner}-${process.ppid}`), "");

    const reaped = registry.reapOrphans();
    assert.equal(reaped, 1);
    await waitFor(() => !alive(orphan));
    assert.ok(alive(liveServicesRunner), "a runner of a live service is left alone");
    assert.ok(alive(unrelated), "a process that is not a runner is never killed");
    assert.deepEqual(readdirSync(registryDir), [`${liveServicesRunner}-${process.ppid}`]);

    registry.record(orphan);
    assert.ok(existsSync(join(registryDir, `${orphan}-${process.pid}`)));
    registry.forget(orphan);
    assert.equal(existsSync(join(registryDir, `${orphan}-${process.pid}`)), false);
  });

  const here = dirname(fileURLToPath(import.meta.url));
  const runnerModule = join(here, "..", "..", "src", "runtime", "component-runner.js");
  const settingsModule = join(here, "..", "helpers", "runner-settings.js");

  /** A throwaway "service" process with a component runner, doing `work` with one runner. */
  async function startService(
    dataDir: string,
    work: string,
    sandbox: "none" | "bwrap" = "none",
  ): Promise<{ child: ChildProcess; runnerPid: number }> {
    const source = `
      import { createComponentRunner } from ${JSON.stringify(runnerModule)};
      import { testRunnerSettings } from ${JSON.stringify(settingsModule)};
      const runner = createComponentRunner({ ...testRunnerSettings(${JSON.stringify(dataDir)}, { runTimeoutSeconds: 60, runMemoryMb: 64 }, ${JSON.stringify(sandbox)}),
        pool: { onSpawn: (_key, pid) => console.log("runner " + pid) } });
      ${work}
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", source], { stdio: ["ignore", "pipe", "inherit"] });
    children.push(child);
    let output = "";
    child.stdout?.on("data", (chunk) => (output += chunk));
    await waitFor(() => output.includes("ready"), 30_000);
    const runnerPid = Number(/runner (\d+)/.exec(output)?.[1]);
    assert.ok(runnerPid > 0 && alive(runnerPid), "a runner is running");
    return { child, runnerPid };
  }

  for (const sandbox of ["none", "bwrap"] as const) {
    it(`a runner whose user code left a timer running exits when its service is killed with SIGKILL (sandbox ${sandbox})`, async (t) => {
      if (sandbox === "bwrap" && probeBwrap().failure) return t.skip(`needs bubblewrap: ${probeBwrap().failure}`);
      const { child, runnerPid } = await startService(
        join(dir, `data-timer-${sandbox}`),
        `await runner.inspectComponent({ userId: "u_test", code: "setInterval(() => {}, 50); export default { name: 'x', run() {} }" });
         console.log("ready");`,
        sandbox,
      );
      child.kill("SIGKILL");
      await waitFor(() => !alive(runnerPid), 10_000);
    });
  }

  it("a runner stuck in user code when its service died is stopped by the next service on the same data directory", async () => {
    const dataDir = join(dir, "data-loop");
    const { child, runnerPid } = await startService(
      dataDir,
      `runner.execute({ userId: "u_test", code: "export default { name: 'x', run() { for (;;) {} } }", entry: "run", props: {}, state: {}, context: { sourceId: "dc_x" } });
       setTimeout(() => console.log("ready"), 500);`,
    );
    child.kill("SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(alive(runnerPid), "a runner busy in a loop does not notice its service is gone");
    const { createComponentRunner } = await import(runnerModule);
    const next = createComponentRunner(testRunnerSettings(dataDir, { runTimeoutSeconds: 5, runMemoryMb: 64 }, "none"));
    try {
      await waitFor(() => !alive(runnerPid), 10_000);
    } finally {
      await next.close();
    }
  });
});

// A runner whose service is gone exits by itself, also when the service went away before the
// runner was even ready: it used to spin at full CPU, reporting the closed channel's error
// over that same channel, forever.
describe("a runner without its service", () => {
  const runner = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "runtime", "child", "runner-entry.js");

  it("exits when the service is gone before the runner is ready", async () => {
    // A stand-in service: starts a runner and exits at once, printing the runner's pid.
    const service = `const { spawn } = require("node:child_process"); const child = spawn(process.execPath, [${JSON.stringify(runner)}], { stdio: ["ignore", "ignore", "ignore", "pipe"] }); console.log(child.pid); process.exit(0);`;
    const pid = Number(spawnSync(process.execPath, ["-e", service], { encoding: "utf8" }).stdout.trim());
    assert.ok(pid > 0);
    try {
      await waitFor(() => !alive(pid), 10_000);
    } finally {
      if (alive(pid)) process.kill(pid, "SIGKILL");
    }
  });
});
