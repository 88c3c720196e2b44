// PostgreSQL: claims take row locks with FOR UPDATE SKIP LOCKED, so concurrent workers in any
// number of processes lease disjoint jobs without waiting on each other; wake-ups travel by
// LISTEN/NOTIFY (a NOTIFY sent inside a transaction is delivered when it commits).
import pg from "pg";
import { sql, type Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database, JobsTable } from "../store/schema.js";
import { queryNextDue } from "./next-due-query.js";
import { claimScanSize, JOBS_CHANNEL, type ClaimRequest, type QueueDialect } from "./queue-dialect.js";
import { decodeWakeSignal, type WakeSignal } from "./wake.js";

const RECONNECT_DELAY_MS = 1000;

export function postgresQueueDialect(databaseUrl: string, logger: Logger): QueueDialect {
  return {
    async claim(db: Kysely<Database>, r: ClaimRequest): Promise<JobsTable[]> {
      // As on SQLite (at most `perKey` per concurrency key among the earliest due jobs), then
      // row locks skipping jobs another worker is claiming; the lease is re-checked under lock.
      const perKey = r.perKey > 0 ? r.perKey : r.limit;
      const result = await sql<JobsTable>`
        update jobs set lease_token = ${r.token}, locked_until = ${r.now + r.leaseMs}, attempts = attempts + 1
        where id in (
          select id from jobs
          where id in (
            select id from (
              select id, row_number() over (partition by coalesce(concurrency_key, id) order by run_at, id) as rn
              from (
                select id, run_at, concurrency_key from jobs
                where type = ${r.type} and run_at <= ${r.now} and (locked_until is null or locked_until < ${r.now})
                  and (concurrency_key is null or not (concurrency_key = any(${r.busyKeys}::text[])))
                order by run_at limit ${claimScanSize(r.limit, r.perKey)}
              ) scan
            ) ranked
            where rn <= ${perKey}
          )
          and (locked_until is null or locked_until < ${r.now})
          order by run_at limit ${r.limit}
          for update skip locked
        )
        returning *`.execute(db);
      return result.rows;
    },
    nextDue(db, type, busyKeys) {
      return queryNextDue(db, type, busyKeys, (keys) => sql`select unnest(${keys}::text[])`);
    },
    async listen(onWake: (signal?: WakeSignal) => void) {
      let client: pg.Client | undefined;
      let closed = false;
      let retry: NodeJS.Timeout | undefined;
      const connect = async (): Promise<void> => {
        const next = new pg.Client({ connectionString: databaseUrl });
        next.on("notification", (message) => onWake(decodeWakeSignal(message.payload)));
        next.on("error", (error) => {
          logger.warn({ err: error }, "queue LISTEN connection lost; reconnecting");
          next.end().catch(() => undefined);
          if (!closed) retry = setTimeout(() => void connect().catch(() => undefined), RECONNECT_DELAY_MS);
        });
        try {
          await next.connect();
          await next.query(`LISTEN ${JOBS_CHANNEL}`);
        } catch (error) {
          next.end().catch(() => undefined);
          if (closed) return;
          logger.warn({ err: error }, "queue LISTEN failed; retrying");
          retry = setTimeout(() => void connect().catch(() => undefined), RECONNECT_DELAY_MS);
          return;
        }
        if (closed) {
          await next.end().catch(() => undefined);
          return;
        }
        client = next;
        onWake(); // catch up on anything sent while disconnected
      };
      await connect();
      return {
        async close() {
          closed = true;
          if (retry) clearTimeout(retry);
          await client?.end().catch(() => undefined);
        },
      };
    },
  };
}
