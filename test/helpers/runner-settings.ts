// Settings of a component runner outside a whole app, as the composition root makes them: the
// default configuration on a data directory, in the sandbox mode given (auto: bwrap when it works).
import { loadConfig, type SandboxSetting } from "../../src/config.js";
import { runnerSettings, type RunnerSettings } from "../../src/runtime/component-runner.js";
import { chooseSandbox } from "../../src/runtime/sandbox/choose-sandbox.js";

export function testRunnerSettings(
  dataDir: string,
  overrides: Partial<RunnerSettings> = {},
  sandbox: SandboxSetting = "auto",
): RunnerSettings {
  return { ...runnerSettings({ ...loadConfig({}), dataDir }, chooseSandbox(sandbox)), ...overrides };
}
