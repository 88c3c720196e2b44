// The runner isolation modes a test runs in: always without the OS sandbox, and with bubblewrap
// where it works here. Where it does not, the bwrap runs are skipped saying why, except in CI
// (CI=true), which installs bubblewrap and must run them: there they fail instead.
import { probeBwrapOnce } from "../../src/runtime/sandbox/choose-sandbox.js";

export interface SandboxModeRun {
  mode: "none" | "bwrap";
  /** Why this mode cannot run here (for node:test's `skip`), or undefined. */
  skip?: string;
}

function bwrapSkip(): string | undefined {
  if (process.env.CI) return undefined;
  const { failure } = probeBwrapOnce();
  return failure ? `needs bubblewrap, which cannot run here: ${failure}` : undefined;
}

export const BWRAP_SKIP = bwrapSkip();

export const SANDBOX_MODES: SandboxModeRun[] = [{ mode: "none" }, { mode: "bwrap", skip: BWRAP_SKIP }];
