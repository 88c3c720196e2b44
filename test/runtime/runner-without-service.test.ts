// A runner whose service is gone exits by itself, also when the service went away before the
// runner was even ready: it used to spin at full CPU, reporting the closed channel's error
// over that same channel, forever.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

const RUNNER = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "runtime", "child", "main.js");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("a runner without its service", () => {
  it("exits when the service is gone before the runner is ready", async () => {
    // A stand-in service: starts a runner and exits at once, printing the runner's pid.
    const service = `const { fork } = require("node:child_process"); const child = fork(${JSON.stringify(RUNNER)}, [], { stdio: ["ignore", "ignore", "ignore", "ipc"], serialization: "json" }); console.log(child.pid); process.exit(0);`;
    const pid = Number(spawnSync(process.execPath, ["-e", service], { encoding: "utf8" }).stdout.trim());
    assert.ok(pid > 0);
    const deadline = Date.now() + 10_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const stillAlive = alive(pid);
    if (stillAlive) process.kill(pid, "SIGKILL");
    assert.equal(stillAlive, false, "the runner exited by itself");
  });
});
