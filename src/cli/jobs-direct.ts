// `sluice jobs dead|retry` without a server: the database the environment names, through
// main.ts's direct context (like `registry list`). Logs go to stderr; stdout is the command's
// output.
import { pino } from "pino";
import type { Config } from "../config.js";
import { listDeadJobs, retryDeadJob } from "../domain/jobs/manage-dead-jobs.js";
import { withDirectContext } from "../main.js";

const stderrLogger = () => pino({ level: "warn" }, pino.destination(2));

/** The page of dead jobs asked for, in the shape the domain verb takes (storage's own types stay out of the CLI). */
type DeadJobsPage = Parameters<typeof listDeadJobs>[0]["page"];

export function listDeadJobsDirectly(config: Config, page: DeadJobsPage): ReturnType<typeof listDeadJobs> {
  return withDirectContext(config, stderrLogger(), (ctx) => listDeadJobs({ ctx, page }));
}

export function retryDeadJobDirectly(config: Config, id: string): Promise<void> {
  return withDirectContext(config, stderrLogger(), (ctx) => retryDeadJob({ ctx, id }));
}
