// SQLite: one process, one writer. A single UPDATE … RETURNING both selects and leases the
// jobs, and Kysely's SQLite driver runs one statement (or transaction) at a time, so two
// claims can never see the same free row. Wake-ups are in-process only (src/queue/wake.ts).
import { sql, type Kysely } from "kysely";
import type { Database, JobsTable } from "../store/schema.js";
import { queryNextDue } from "./next-due-query.js";
import { claimScanSize, type ClaimRequest, type QueueDialect } from "./queue-dialect.js";

export const sqliteQueueDialect: QueueDialect = {
  async claim(db: Kysely<Database>, r: ClaimRequest): Promise<JobsTable[]> {
    // Looks at the earliest due jobs, keeps at most `perKey` per concurrency key (keys this
    // worker has saturated are skipped), and leases the earliest `limit` of those.
    const perKey = r.perKey > 0 ? r.perKey : r.limit;
    const result = await sql<JobsTable>`
      update jobs set lease_token = ${r.token}, locked_until = ${r.now + r.leaseMs}, attempts = attempts + 1
      where id in (
        select id from (
          select id, run_at, row_number() over (partition by coalesce(concurrency_key, id) order by run_at, id) as rn
          from (
            select id, run_at, concurrency_key from jobs
            where type = ${r.type} and run_at <= ${r.now} and (locked_until is null or locked_until < ${r.now})
              and (concurrency_key is null or concurrency_key not in (select value from json_each(${JSON.stringify(r.busyKeys)})))
            order by run_at limit ${claimScanSize(r.limit, r.perKey)}
          )
        )
        where rn <= ${perKey}
        order by run_at limit ${r.limit}
      )
      returning *`.execute(db);
    return result.rows;
  },
  nextDue(db, type, busyKeys) {
    return queryNextDue(db, type, busyKeys, (keys) => sql`select value from json_each(${JSON.stringify(keys)})`);
  },
  async listen() {
    return { close: async () => undefined };
  },
};
