// `sluice runs <workflow> [run]`: a workflow's newest runs (status, start, duration, summary),
// or one run step by step; -f follows, printing each run again as it changes (runs have no
// live tail of their own, so the list is read every second).
import { setTimeout as sleep } from "node:timers/promises";
import { type Command, InvalidArgumentError } from "commander";
import type { ApiClient } from "../client/api-client.js";
import { resolveRef } from "../client/resolve.js";
import { printJson } from "../output.js";
import { client } from "./common.js";

const count = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new InvalidArgumentError("a whole number from 1 to 100");
  return n;
};

type Options = { n: number; follow?: boolean; json?: boolean };

interface Run {
  id: string;
  status: string;
  summary: string | null;
  started_at: number;
  duration_ms: number | null;
  steps?: Array<{ name: string; status: string; duration_ms: number | null; return_value: unknown; error: { message?: string } | null }>;
}

const FOLLOW_INTERVAL_MS = 1000;

export function runLine(run: Run): string {
  const took = run.duration_ms === null ? "" : ` ${run.duration_ms} ms`;
  return `${new Date(run.started_at).toISOString()} ${run.id} ${run.status}${took}${run.summary ? ` ${run.summary}` : ""}`;
}

function stepLines(run: Run): string[] {
  return (run.steps ?? []).map((step) => {
    const took = step.duration_ms === null ? "" : ` ${step.duration_ms} ms`;
    const outcome = step.error
      ? ` error: ${step.error.message ?? JSON.stringify(step.error)}`
      : step.status === "succeeded"
        ? ` ${JSON.stringify(step.return_value)}`
        : "";
    return `  ${step.name} ${step.status}${took}${outcome}`;
  });
}

export function runsCommand(program: Command): void {
  program
    .command("runs")
    .description("show a workflow's newest runs, or one run step by step; -f follows them as they change")
    .argument("<workflow>", "a workflow: id or name")
    .argument("[run]", "a run id (run_…): its steps")
    .option("-n <count>", "how many of the newest runs to show (1-100)", count, 10)
    .option("-f, --follow", "keep showing runs as they start and change (Ctrl-C to stop)")
    .option("--json", "print the API's data as JSON")
    .action(async (ref: string, runId: string | undefined, options: Options) => {
      const api = client();
      const workflow = await resolveRef(api, ref, ["workflow"]);
      const base = `/workflows/${workflow.id}/runs`;
      if (runId) return showRun(api, `${base}/${encodeURIComponent(runId)}`, options);
      const page = await api.get(base, { limit: options.n });
      const runs: Run[] = page.data;
      if (options.json && !options.follow) return printJson(runs);
      const print = (run: Run) => process.stdout.write((options.json ? JSON.stringify(run) : runLine(run)) + "\n");
      for (const run of [...runs].reverse()) print(run);
      if (options.follow) await follow(api, base, runs, print);
    });
}

async function showRun(api: ApiClient, path: string, options: Options): Promise<void> {
  let last = "";
  for (;;) {
    const run: Run = (await api.get(path)).data;
    if (options.json) {
      if (!options.follow) return printJson(run);
    } else {
      const text = [runLine(run), ...stepLines(run)].join("\n");
      if (text !== last) process.stdout.write(text + "\n");
      last = text;
    }
    if (!options.follow || ["succeeded", "failed", "cancelled"].includes(run.status)) return;
    await sleep(FOLLOW_INTERVAL_MS);
  }
}

/** Prints each run again whenever its status changes, until SIGINT or SIGTERM. */
async function follow(api: ApiClient, base: string, shown: Run[], print: (run: Run) => void): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const seen = new Map(shown.map((run) => [run.id, run.status]));
  process.stderr.write(`following the runs (Ctrl-C to stop)\n`);
  try {
    while (!controller.signal.aborted) {
      await sleep(FOLLOW_INTERVAL_MS, undefined, { signal: controller.signal }).catch(() => undefined);
      if (controller.signal.aborted) break;
      const runs: Run[] = (await api.get(base, { limit: 100 })).data;
      for (const run of [...runs].reverse()) {
        if (seen.get(run.id) === run.status) continue;
        seen.set(run.id, run.status);
        print(run);
      }
    }
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
