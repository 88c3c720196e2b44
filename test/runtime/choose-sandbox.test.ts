// How the sandbox mode is chosen at start, against a probe that says what this machine can do.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.js";
import { chooseSandbox, SandboxUnavailableError } from "../../src/runtime/sandbox/choose-sandbox.js";

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
