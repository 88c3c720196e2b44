// SQLite: one process, one writer. A single UPDATE … RETURNING both selects and leases the
// jobs, and Kysely's SQLite driver runs one statement (or transaction) at a time, so two
// claims can never see the same free row. Wake-ups are in-process only (src/queue/wake.ts).
import { sql, type Kysely } from "kysely";
import type { Database, JobsTable } from "../store/schema.js";
import type { ClaimRequest, QueueDialect } from "./queue-dialect.js";

export const sqliteQueueDialect: QueueDialect = {
  async claim(db: Kysely<Database>, r: ClaimRequest): Promise<JobsTable[]> {
    const result = await sql<JobsTable>`
      update jobs set lease_token = ${r.token}, locked_until = ${r.now + r.leaseMs}, attempts = attempts + 1
      where id in (
        select id from jobs
        where type = ${r.type} and run_at <= ${r.now} and (locked_until is null or locked_until < ${r.now})
        order by run_at limit ${r.limit}
      )
      returning *`.execute(db);
    return result.rows;
  },
  async notify() {
    // Same process: the in-process signal is enough.
  },
  async listen() {
    return { close: async () => undefined };
  },
};
