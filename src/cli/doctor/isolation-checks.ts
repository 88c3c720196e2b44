// The sandbox (bubblewrap and user namespaces) and the runners' resource caps (cgroups): the
// server decides both at start; the doctor asks the same probes and says what a start would.
import type { Config } from "../../config.js";
import { fail, ok, warn, type CheckResult } from "./check.js";

/** Why a sandboxed runner cannot start here, or undefined when it can (probeBwrap). */
export type BwrapProbe = () => string | undefined;

/** Which mechanism holds a runner's memory, and why better ones were not used. */
export interface CgroupFindings {
  memory: "cgroup-v2" | "cgroup-v1" | "watchdog" | "none";
  description: string;
  notes: readonly string[];
}

const NAMESPACES_FIX =
  "install bubblewrap (apt-get install bubblewrap) and allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; " +
  "Ubuntu 24.04: kernel.apparmor_restrict_unprivileged_userns=0; Docker: a seccomp profile that allows them), or set SLUICE_SANDBOX=none to accept running without";

export function sandboxCheck(config: Pick<Config, "sandbox">, probe: BwrapProbe): CheckResult {
  if (config.sandbox === "none") {
    return warn(
      "sandbox",
      "SLUICE_SANDBOX=none: user code runs without the OS sandbox, and tenants are not isolated from each other",
      "install bubblewrap and unset SLUICE_SANDBOX (or set it to bwrap)",
    );
  }
  const failure = probe();
  if (failure === undefined) return ok("sandbox", "bubblewrap runs a sandboxed Node here (user namespaces allowed)");
  // auto would start, but without the sandbox: what is wrong is the same.
  return fail(
    "sandbox",
    `${failure}${config.sandbox === "bwrap" ? " (SLUICE_SANDBOX=bwrap: the server will not start)" : " (the server would run user code WITHOUT the sandbox)"}`,
    NAMESPACES_FIX,
  );
}

export function cgroupCheck(findings: CgroupFindings): CheckResult {
  if (findings.memory === "cgroup-v2" || findings.memory === "cgroup-v1") return ok("cgroups", findings.description);
  const why = findings.notes.join("; ") || "no cgroup could be used";
  const fix = "run the service with a delegated cgroup v2 (systemd: Delegate=memory pids) or as root with a writable /sys/fs/cgroup";
  if (findings.memory === "watchdog")
    return warn("cgroups", `runner memory is held by a watchdog polling /proc, threads are not capped (${why})`, fix);
  return warn("cgroups", `runner memory is not capped beyond the V8 heap (${why})`, "run on Linux");
}
