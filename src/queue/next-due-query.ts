// The next-due query shared by both dialects (they differ only in how a list of keys becomes
// rows). Without busy keys it reads every job of the type; with them, the jobs of keys this
// worker cannot take more of are left out by index ranges (jobs_by_key: type, concurrency_key,
// run_at) on either side of and between those keys, in the database's own key order, so a
// slow endpoint's long backlog is never read while its key is busy.
import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Database } from "../store/schema.js";
import { CLAIMABLE_AT } from "./queue-dialect.js";

const claimableAt = sql.raw(CLAIMABLE_AT);

export async function queryNextDue(
  db: Kysely<Database>,
  type: string,
  busyKeys: string[],
  keyRows: (keys: string[]) => RawBuilder<unknown>,
): Promise<number | null> {
  if (busyKeys.length === 0) {
    const { rows } = await sql<{ next: number | null }>`select min(${claimableAt}) as next from jobs where type = ${type}`.execute(db);
    return toMs(rows[0]?.next);
  }
  // Every range is closed on both sides (the outer ones by the type's own first and last
  // key): PostgreSQL then estimates it as narrow and reads it through the index, where a
  // one-sided bound it cannot see at planning time would be guessed at a third of the table.
  const typeKeys = (end: "min" | "max") => sql`select ${sql.raw(end)}(concurrency_key) from jobs where type = ${type}`;
  const { rows } = await sql<{ next: number | null }>`
    with busy(k) as (${keyRows(busyKeys)}),
    gaps(lo, hi) as (select k, lead(k) over (order by k) from busy)
    select min(next) as next from (
      select min(${claimableAt}) as next from jobs where type = ${type} and concurrency_key is null
      union all
      select min(${claimableAt}) from jobs where type = ${type} and concurrency_key >= (${typeKeys("min")}) and concurrency_key < (select min(k) from busy)
      union all
      select (select min(${claimableAt}) from jobs where type = ${type} and concurrency_key > gaps.lo and concurrency_key < gaps.hi) from gaps where gaps.hi is not null
      union all
      select min(${claimableAt}) from jobs where type = ${type} and concurrency_key > (select max(k) from busy) and concurrency_key <= (${typeKeys("max")})
    ) ranges`.execute(db);
  return toMs(rows[0]?.next);
}

function toMs(value: number | string | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
}
