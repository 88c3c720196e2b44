// PostgreSQL: one statement stores an emitter's events above its newest stored id and reads
// the subscriptions their fan-out needs — before, these were three round trips to the server
// at the start of every emit's transaction (newest id, INSERT, subscriptions).
//
// The events get this process's next keys, moved above the emitter's newest stored key when
// another process (or a clock that went back) stored higher. As with the separate read
// before, a concurrent writer may still pick the same key, which the unique key refuses and
// retryOnEventIdClash stores again. One execution's keys are consecutive in one millisecond
// (event-ids.ts), so the first key decides them all. Reading the subscriptions in the same
// statement gives them the same snapshot as a statement of their own would have had.
import { CompiledQuery, type Kysely } from "kysely";
import { listeningStatement, type Listening } from "../deliveries/fan-out.js";
import { shiftParameters } from "../../store/deferred-writes.js";
import type { Database } from "../../store/schema.js";
import { nextEventKey, noteEventKey, type EventKey } from "./event-ids.js";

export interface EventDraft {
  stream: string;
  json: string;
  metadataJson: string;
}

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

export async function insertAboveNewest(
  db: Kysely<Database>,
  input: { userId: string; emitterId: string; nowMs: number },
  drafts: EventDraft[],
): Promise<{ keys: EventKey[]; listening: Listening }> {
  const first = nextEventKey(input.nowMs);
  for (let i = 1; i < drafts.length; i++) nextEventKey(input.nowMs);
  const listening = listeningStatement(db, input.userId, input.emitterId);
  const text = `${INSERT_SQL}, listening as (${shiftParameters(listening.sql, PARAMETERS)})
    select (select min(ms) from inserted) as ms, (select min(seq) from inserted) as seq,
           (select coalesce(json_agg(l), '[]') from listening l) as listening`;
  const parameters = [input.emitterId, first.ms, first.seq, input.userId, drafts.map((d) => d.stream), drafts.map((d) => d.json), drafts.map((d) => d.metadataJson), ...listening.parameters];
  const row = (await db.executeQuery<{ ms: number | string; seq: number | string; listening: Listening }>(CompiledQuery.raw(text, parameters))).rows[0]!;
  const start = { ms: Number(row.ms), seq: Number(row.seq) };
  const keys = drafts.map((_, i) => ({ ms: start.ms, seq: start.seq + i }));
  noteEventKey(keys[keys.length - 1]!);
  return { keys, listening: row.listening };
}
