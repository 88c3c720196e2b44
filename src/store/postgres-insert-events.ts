// PostgreSQL: one statement stores an emitter's events above its newest stored key and reads
// the subscriptions their fan-out needs (the caller's `listening` query) — otherwise three
// round trips to the server at the start of every emit's transaction (newest key, INSERT,
// subscriptions).
//
// The events take the keys from `first` on, moved above the emitter's newest stored key when
// another process (or a clock that went back) stored higher; one call's keys are consecutive,
// so the first key decides them all. A concurrent writer may still pick the same key, which
// the unique key refuses (the caller stores again). The read in the same statement sees the
// same snapshot as a statement of its own would have.
import { CompiledQuery, type Kysely } from "kysely";
import { shiftParameters } from "./shift-parameters.js";
import type { Database } from "./schema.js";

const INSERT_SQL = `
  with newest as (
    select ms, seq from events where emitter_id = $1 order by ms desc, seq desc limit 1
  ), first as (
    select case when n.ms is null or ($2::bigint, $3::integer) > (n.ms, n.seq) then $2::bigint else n.ms end as ms,
           case when n.ms is null or ($2::bigint, $3::integer) > (n.ms, n.seq) then $3::integer else n.seq + 1 end as seq
    from (select 1) one left join newest n on true
  ), inserted as (
    insert into events (emitter_id, ms, seq, id, user_id, stream, event, metadata)
    select $1, f.ms, f.seq + r.i - 1, f.ms || '-' || (f.seq + r.i - 1), $4, r.stream, r.event, r.metadata
    from first f, unnest($5::text[], $6::text[], $7::text[]) with ordinality as r(stream, event, metadata, i)
    returning ms, seq
  )`;
const PARAMETERS = 7;

export interface EventRowsAboveNewest {
  emitterId: string;
  userId: string;
  /** The key of the first event when nothing higher is stored. */
  first: { ms: number; seq: number };
  streams: string[];
  events: string[];
  metadata: string[];
}

/** Stores the events; returns the first key they got and the rows of `listening`. */
export async function insertEventsAboveNewest<Row>(
  db: Kysely<Database>,
  rows: EventRowsAboveNewest,
  listening: CompiledQuery,
): Promise<{ start: { ms: number; seq: number }; listening: Row[] }> {
  const text = `${INSERT_SQL}, listening as (${shiftParameters(listening.sql, PARAMETERS)})
    select (select min(ms) from inserted) as ms, (select min(seq) from inserted) as seq,
           (select coalesce(json_agg(l), '[]') from listening l) as listening`;
  const parameters = [
    rows.emitterId,
    rows.first.ms,
    rows.first.seq,
    rows.userId,
    rows.streams,
    rows.events,
    rows.metadata,
    ...listening.parameters,
  ];
  const row = (await db.executeQuery<{ ms: number | string; seq: number | string; listening: Row[] }>(CompiledQuery.raw(text, parameters)))
    .rows[0]!;
  return { start: { ms: Number(row.ms), seq: Number(row.seq) }, listening: row.listening };
}
