// Decides, once at start, how runner processes are isolated. `auto` uses bubblewrap when a
// sandboxed Node actually starts here (bwrap installed, user namespaces allowed: Docker's
// default seccomp profile, for one, refuses them) and otherwise runs runners without it, with a
// warning naming the cause; `bwrap` refuses to start without it; `none` never uses it.
import { spawnSync } from "node:child_process";
import { ConfigError, type SandboxSetting } from "../../config.js";
import { bwrapArguments, type BwrapFeatures } from "./bwrap-arguments.js";
import { NEUTRAL } from "./runner-places.js";

export type SandboxMode = "bwrap" | "none";

export interface SandboxChoice {
  mode: SandboxMode;
  features: BwrapFeatures;
  /** Set when `auto` fell back to no sandbox: why, for a loud warning at start. */
  warning?: string;
}

/** A configuration the machine cannot honour: the CLI prints it and exits 2. */
export class SandboxUnavailableError extends ConfigError {}

const NO_FEATURES: BwrapFeatures = { tmpfsSize: false, disableUserns: false };

/** Why a sandboxed `node -e 0` does not run here, or undefined when it does. */
export function probeBwrap(nodePath: string = process.execPath): { features: BwrapFeatures; failure?: string } {
  const help = spawnSync("bwrap", ["--help"], { encoding: "utf8", timeout: 5000 });
  if (help.error) {
    const missing = (help.error as NodeJS.ErrnoException).code === "ENOENT";
    return {
      features: NO_FEATURES,
      failure: missing
        ? "bubblewrap (bwrap) is not installed (Debian and Ubuntu: apt-get install bubblewrap)"
        : `bwrap could not be run: ${help.error.message}`,
    };
  }
  const text = `${help.stdout}${help.stderr}`;
  const features: BwrapFeatures = { tmpfsSize: text.includes("--size"), disableUserns: text.includes("--disable-userns") };
  const args = bwrapArguments({
    binds: [{ host: nodePath, runner: NEUTRAL.node }],
    tmpBytes: 1024 * 1024,
    env: {},
    unprivilegedIds: process.getuid?.() === 0,
    features,
  });
  const probe = spawnSync("bwrap", [...args, NEUTRAL.node, "-e", "0"], { encoding: "utf8", timeout: 10_000 });
  if (probe.error) return { features, failure: `a sandboxed runner could not start: ${probe.error.message}` };
  if (probe.status !== 0) {
    const said = (probe.stderr || "").trim().split("\n").slice(-2).join(" ") || `exit code ${probe.status ?? probe.signal}`;
    return {
      features,
      failure: `bwrap cannot create the sandbox here (${said}); user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, or a container's seccomp profile)`,
    };
  }
  return { features };
}

// A probe that succeeded, by the Node binary and the PATH it found bwrap on. A process that
// starts the service many times (a test file does, dozens of times) would otherwise start two
// more processes each time to learn the same answer. A failure is not kept: it may be passing.
const sandboxFeatures = new Map<string, BwrapFeatures>();

/** probeBwrap, once per process while it keeps succeeding. */
export function probeBwrapOnce(nodePath: string = process.execPath): ReturnType<typeof probeBwrap> {
  const key = `${nodePath}\0${process.env.PATH ?? ""}`;
  const features = sandboxFeatures.get(key);
  if (features) return { features };
  const found = probeBwrap(nodePath);
  if (!found.failure) sandboxFeatures.set(key, found.features);
  return found;
}

export function chooseSandbox(setting: SandboxSetting, probe: typeof probeBwrap = probeBwrapOnce): SandboxChoice {
  if (setting === "none") return { mode: "none", features: NO_FEATURES };
  const { features, failure } = probe();
  if (!failure) return { mode: "bwrap", features };
  if (setting === "bwrap") throw new SandboxUnavailableError(`SLUICE_SANDBOX=bwrap, but ${failure}`);
  return {
    mode: "none",
    features,
    warning:
      `user code runs WITHOUT the OS sandbox: ${failure}. Tenants are then NOT isolated from each other's data: ` +
      `every account's runner runs as the same host user on the host's file system and network, so one flaw in Node's permission model lets a tenant read other accounts' code and packages ` +
      `(and, on a service not running as root, the database and secret.key with every account's credentials). ` +
      `Set SLUICE_SANDBOX=none to accept this, or SLUICE_SANDBOX=bwrap to refuse to start without it`,
  };
}
