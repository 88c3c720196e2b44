// PostgreSQL: claims take row locks with FOR UPDATE SKIP LOCKED, so concurrent workers in any
// number of processes lease disjoint jobs without waiting on each other; wake-ups travel by
// LISTEN/NOTIFY (a NOTIFY sent inside a transaction is delivered when it commits).
import pg from "pg";
import { CompiledQuery, sql, type Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database, JobsTable } from "../store/schema.js";
import { queryNextDue } from "./next-due-query.js";
import { claimScanSize, JOBS_CHANNEL, type ClaimRequest, type QueueDialect } from "./queue-dialect.js";
import { decodeWakeSignal, THIS_PROCESS, type WakeSignal } from "./wake.js";

const RECONNECT_DELAY_MS = 1000;

/** The claim statement: its text never changes, so it runs prepared (store/postgres.ts, ADR 0016). */
const CLAIM_SQL = `
  update jobs set lease_token = $1, locked_until = $2, attempts = attempts + 1
  where id in (
    select id from jobs
    where id in (
      select id from (
        select id, row_number() over (partition by coalesce(concurrency_key, id) order by run_at, id) as rn
        from (
          select id, run_at, concurrency_key from jobs
          where type = $3 and run_at <= $4 and (locked_until is null or locked_until < $4)
            and (concurrency_key is null or not (concurrency_key = any($5::text[])))
          order by run_at limit $6
        ) scan
      ) ranked
      where rn <= $7
    )
    and (locked_until is null or locked_until < $4)
    order by run_at limit $8
    for update skip locked
  )
  returning *`;

export function postgresQueueDialect(databaseUrl: string, logger: Logger): QueueDialect {
  return {
    async claim(db: Kysely<Database>, r: ClaimRequest): Promise<JobsTable[]> {
      // As on SQLite (at most `perKey` per concurrency key among the earliest due jobs), then
      // row locks skipping jobs another worker is claiming; the lease is re-checked under lock.
      const perKey = r.perKey > 0 ? r.perKey : r.limit;
      const values = [r.token, r.now + r.leaseMs, r.type, r.now, r.busyKeys, claimScanSize(r.limit, r.perKey), perKey, r.limit];
      return (await db.executeQuery(CompiledQuery.raw(CLAIM_SQL, values))).rows as JobsTable[];
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
        next.on("notification", (message) => {
          const signal = decodeWakeSignal(message.payload);
          if (signal?.origin === THIS_PROCESS) return; // woken in-process at its commit already
          onWake(signal);
        });
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
