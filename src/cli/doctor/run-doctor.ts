// `sluice doctor`: every check, each printed as one line (and a line with the fix when it is
// not ok); 0 when nothing failed, 1 otherwise. Checks that ask the machine (npm, bubblewrap,
// cgroups, free space) are passed in, so tests can stand in for a machine they cannot choose.
import { execFile } from "node:child_process";
import { ConfigError, loadConfig, type Config } from "../../config.js";
import { fail, messageOf, type CheckResult } from "./check.js";
import { describeOrFail, databaseCheck, keyCheck } from "./database-checks.js";
import { diskCheck, freeBytesAt } from "./disk-check.js";
import { cgroupCheck, sandboxCheck, type BwrapProbe, type CgroupFindings } from "./isolation-checks.js";
import { portChecks } from "./ports-check.js";
import { publicUrlCheck } from "./public-url-check.js";
import { nodeCheck, npmCheck } from "./runtime-checks.js";

export interface DoctorMachine {
  nodeVersion: string;
  npmVersion(): Promise<string | undefined>;
  bwrap: BwrapProbe;
  cgroups(config: Config): Promise<CgroupFindings>;
  freeBytes(path: string): number;
}

export interface DoctorOptions {
  env: Record<string, string | undefined>;
  write(text: string): void;
  machine?: Partial<DoctorMachine>;
}

async function npmVersion(): Promise<string | undefined> {
  const { npmCommand } = await import("../../runtime/modules/npm-cache.js");
  let npm: ReturnType<typeof npmCommand>;
  try {
    npm = npmCommand();
  } catch {
    return undefined; // not installed: the check says what to run
  }
  return new Promise((resolve) =>
    execFile(npm.file, [...npm.prefix, "--version"], { timeout: 30_000 }, (error, stdout) =>
      resolve(error ? undefined : String(stdout).trim()),
    ),
  );
}

async function bwrapFailure(): Promise<BwrapProbe> {
  const { probeBwrap } = await import("../../runtime/sandbox/choose-sandbox.js");
  return () => probeBwrap().failure;
}

/** Probes cgroups as the server's start does: a trial runner cgroup, made and removed. */
async function cgroups(config: Config): Promise<CgroupFindings> {
  const { createRunnerLimits } = await import("../../runtime/limits/runner-limits.js");
  const limits = createRunnerLimits({
    memoryMb: config.runMemoryMb,
    maxThreads: config.runMaxThreads,
    maxOpenFiles: config.runMaxOpenFiles,
  });
  await limits.close();
  const { memory, threads } = limits.mechanisms;
  // The trial cgroup is gone again: say what a start gets, not where the trial was.
  return {
    memory,
    description: `runner memory capped by ${memory}, threads ${threads === "none" ? "not capped" : `capped by ${threads}`}`,
    notes: limits.notes,
  };
}

async function realMachine(given: Partial<DoctorMachine>): Promise<DoctorMachine> {
  return {
    nodeVersion: given.nodeVersion ?? process.version,
    npmVersion: given.npmVersion ?? npmVersion,
    bwrap: given.bwrap ?? (await bwrapFailure()),
    cgroups: given.cgroups ?? cgroups,
    freeBytes: given.freeBytes ?? freeBytesAt,
  };
}

async function settle(name: string, check: () => CheckResult | Promise<CheckResult>): Promise<CheckResult> {
  try {
    return await check();
  } catch (error) {
    return fail(name, `the check itself failed: ${messageOf(error)}`, "report this, with the line above");
  }
}

export async function doctorChecks(options: DoctorOptions): Promise<CheckResult[]> {
  const machine = await realMachine(options.machine ?? {});
  const results: CheckResult[] = [nodeCheck(machine.nodeVersion), await settle("npm", async () => npmCheck(await machine.npmVersion()))];
  let config: Config;
  try {
    config = loadConfig(options.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // The rest reads the configuration: with a bad setting they could only guess.
    results.push(fail("configuration", error.message, "correct that setting (README, Configuration), then run sluice doctor again"));
    return results;
  }
  results.push(await settle("sandbox", () => sandboxCheck(config, machine.bwrap)));
  results.push(await settle("cgroups", async () => cgroupCheck(await machine.cgroups(config))));
  results.push(await settle("disk", () => diskCheck(config.dataDir, machine.freeBytes)));
  const database = await describeOrFail(config);
  const described = "status" in database ? undefined : database;
  results.push(described ? databaseCheck(config, described) : (database as CheckResult));
  results.push(await settle("key", () => keyCheck(config, described)));
  results.push(await settle("public URL", () => publicUrlCheck(config, Boolean(options.env.SLUICE_PUBLIC_URL))));
  results.push(...(await portChecks(config)));
  return results;
}

const LABEL: Record<CheckResult["status"], string> = { ok: "ok  ", warn: "WARN", fail: "FAIL" };

/** Runs every check, prints them, and answers the exit code. */
export async function runDoctor(options: DoctorOptions): Promise<number> {
  const results = await doctorChecks(options);
  const width = Math.max(...results.map((r) => r.name.length));
  for (const result of results) {
    options.write(`${LABEL[result.status]}  ${result.name.padEnd(width)}  ${result.detail}\n`);
    if (result.fix) options.write(`${" ".repeat(width + 8)}fix: ${result.fix}\n`);
  }
  const failed = results.filter((r) => r.status === "fail").length;
  const warned = results.filter((r) => r.status === "warn").length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  options.write(
    failed === 0
      ? `nothing is wrong${warned ? ` (${plural(warned, "warning")})` : ""}\n`
      : `${plural(failed, "problem")} to fix${warned ? `, ${plural(warned, "warning")}` : ""}\n`,
  );
  return failed === 0 ? 0 : 1;
}
