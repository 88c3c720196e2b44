// `sluice jobs dead` lists the jobs that used up their attempts (SLUICE_JOB_MAX_ATTEMPTS) and
// `sluice jobs retry <id>` sends one back to the queue: through the admin API when
// SLUICE_API_URL and SLUICE_ADMIN_TOKEN are set, otherwise directly in the database the
// environment names, as the registry commands do.
import type { Command } from "commander";
import { loadConfig } from "../../config.js";
import type { DeadJobView } from "../../domain/jobs/manage-dead-jobs.js";
import { UsageError } from "../errors.js";
import { printJson, printTable, time } from "../output.js";
import type { JsonOption } from "./common.js";
import { adminClient, direct } from "./registry.js";

const ERROR_WIDTH = 120;

function limitOf(raw: string | undefined): number {
  const limit = raw === undefined ? 100 : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new UsageError("--limit must be an integer from 1 to 100");
  return limit;
}

export function jobCommands(program: Command): void {
  const jobs = program.command("jobs").description("the queue's dead jobs: those that used up their attempts (admin)");

  jobs
    .command("dead")
    .description("list the dead jobs, newest first, with their attempts and last error")
    .option("--limit <n>", "at most this many (1-100, default 100)")
    .option("--after <cursor>", "the page after this cursor (--json prints page_info)")
    .option("--json", "print the API's answer as JSON")
    .action(async (options: JsonOption & { limit?: string; after?: string }) => {
      const page = { limit: limitOf(options.limit), after: options.after };
      const api = adminClient();
      const listed: { data: DeadJobView[] } = api
        ? await api.get("/admin/jobs", { state: "dead", limit: page.limit, after: page.after })
        : await direct(async () => (await import("../jobs-direct.js")).listDeadJobsDirectly(loadConfig(), page));
      if (options.json) return printJson(listed);
      const oneLine = (text: string | null) => (text ?? "").replace(/\s+/g, " ").slice(0, ERROR_WIDTH);
      printTable(
        ["ID", "TYPE", "ATTEMPTS", "DIED", "LAST ERROR"],
        listed.data.map((job) => [job.id, job.type, String(job.attempts), time(job.died_at / 1000), oneLine(job.last_error)]),
      );
    });

  jobs
    .command("retry")
    .description("send a dead job back to the queue, due now with its attempts reset")
    .argument("<id>", "the job's id (from `sluice jobs dead`)")
    .action(async (id: string) => {
      const api = adminClient();
      if (api) await api.request("POST", `/admin/jobs/${encodeURIComponent(id)}/retry`);
      else await direct(async () => (await import("../jobs-direct.js")).retryDeadJobDirectly(loadConfig(), id));
      process.stdout.write(`${id} is queued again\n`);
    });
}
