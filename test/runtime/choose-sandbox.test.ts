// How the sandbox mode is chosen at start, against a probe that says what this machine can do.
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.js";
import { chooseSandbox, probeBwrapOnce, SandboxUnavailableError } from "../../src/runtime/sandbox/choose-sandbox.js";

const works = () => ({ features: { tmpfsSize: true, disableUserns: true } });
const refused = () => ({
  features: { tmpfsSize: true, disableUserns: true },
  failure: "bwrap cannot create the sandbox here (setting up uid map: Permission denied)",
});

describe("choosing the sandbox", () => {
  it("auto uses bubblewrap where a sandboxed runner starts", () => {
    assert.deepEqual(chooseSandbox("auto", works), { mode: "bwrap", features: works().features });
  });

  it("auto falls back to no sandbox with a warning naming the cause", () => {
    const choice = chooseSandbox("auto", refused);
    assert.equal(choice.mode, "none");
    assert.match(
      choice.warning ?? "",
      /WITHOUT the OS sandbox: bwrap cannot create the sandbox here \(setting up uid map: Permission denied\)/,
    );
    assert.match(
      choice.warning ?? "",
      /Tenants are then NOT isolated from each other's data: every account's runner runs as the same host user/,
    );
  });

  it("bwrap refuses to start without it, saying why (a configuration error: the CLI exits 2)", () => {
    assert.throws(
      () => chooseSandbox("bwrap", refused),
      (error: Error) =>
        error instanceof SandboxUnavailableError &&
        error instanceof ConfigError &&
        /SLUICE_SANDBOX=bwrap, but bwrap cannot create/.test(error.message),
    );
  });

  it("none never probes", () => {
    assert.equal(chooseSandbox("none", () => assert.fail("probed")).mode, "none");
  });

  it("SLUICE_SANDBOX takes auto, bwrap or none", () => {
    assert.equal(loadConfig({}).sandbox, "auto");
    assert.equal(loadConfig({ SLUICE_SANDBOX: "BWRAP" }).sandbox, "bwrap");
    assert.throws(() => loadConfig({ SLUICE_SANDBOX: "docker" }), /SLUICE_SANDBOX must be one of auto, bwrap, none/);
  });
});

describe("probing bubblewrap once per process", () => {
  const folder = mkdtempSync(join(tmpdir(), "sluice-fake-bwrap-"));
  after(() => rmSync(folder, { recursive: true, force: true }));

  /** A `bwrap` first on PATH that notes each run in `runs` and exits with `status` (0 for --help). */
  function fakeBwrap(name: string, status: number): { path: string; runs: () => number } {
    const dir = join(folder, name);
    const runs = join(dir, "runs");
    const script = join(dir, "bwrap");
    mkdirSync(dir);
    writeFileSync(runs, "");
    writeFileSync(
      script,
      `#!/bin/sh\necho run >> '${runs}'\n[ "$1" = --help ] && { echo '--size --disable-userns'; exit 0; }\nexit ${status}\n`,
    );
    chmodSync(script, 0o755);
    return { path: `${dir}:${process.env.PATH ?? ""}`, runs: () => readFileSync(runs, "utf8").split("\n").filter(Boolean).length };
  }

  function withPath<T>(path: string, run: () => T): T {
    const saved = process.env.PATH;
    process.env.PATH = path;
    try {
      return run();
    } finally {
      process.env.PATH = saved;
    }
  }

  it("a sandbox that started is not probed again: the service's later starts in the process reuse the answer", () => {
    const bwrap = fakeBwrap("works", 0);
    const first = withPath(bwrap.path, () => probeBwrapOnce());
    assert.deepEqual(first, { features: { tmpfsSize: true, disableUserns: true } });
    assert.equal(bwrap.runs(), 2, "bwrap --help, then the sandboxed node -e 0");
    assert.deepEqual(
      withPath(bwrap.path, () => chooseSandbox("auto")),
      { mode: "bwrap", features: first.features },
    );
    assert.equal(bwrap.runs(), 2, "the second start did not run bwrap");
  });

  it("a probe that failed is made again at the next start (the cause may have passed)", () => {
    const bwrap = fakeBwrap("refuses", 1);
    for (let start = 1; start <= 2; start++) {
      const choice = withPath(bwrap.path, () => chooseSandbox("auto"));
      assert.equal(choice.mode, "none");
      assert.equal(bwrap.runs(), 2 * start);
    }
  });
});
