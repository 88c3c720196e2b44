// PostgreSQL storage for scaled-out deployments. bigint columns (int8) are read as numbers:
// every bigint here is a millisecond timestamp or a counter well below 2^53.
import pg from "pg";
import { Kysely, PostgresDialect } from "kysely";
import type { Database } from "./schema.js";

const INT8_OID = 20;

/** A statement text is prepared once it has run this many times in this process. */
const PREPARE_AFTER_RUNS = 3;
/** At most this many texts are prepared (per connection, on the server): the hot ones. */
const MAX_PREPARED = 200;

/**
 * Kysely sends every statement unprepared, so PostgreSQL parses and plans it on each run:
 * for the statements of an emit and a delivery, more time than their execution (about
 * 1.3 ms → 0.5 ms for the events INSERT). Texts that come back — Kysely compiles the same
 * query shape to the same text — become named prepared statements, planned once per
 * connection. Texts seen fewer times (migrations, one-off reads, lists of rare lengths) stay
 * unprepared, and the number prepared is bounded, so the server's per-connection statement
 * cache stays small.
 */
export class PreparingPgClient extends pg.Client {
  private static readonly runs = new Map<string, number>();
  private static readonly names = new Map<string, string>();

  static statementName(text: string): string | undefined {
    const known = PreparingPgClient.names.get(text);
    if (known) return known;
    if (PreparingPgClient.names.size >= MAX_PREPARED) return undefined;
    const runs = (PreparingPgClient.runs.get(text) ?? 0) + 1;
    if (runs < PREPARE_AFTER_RUNS) {
      // Bounded too: past many distinct texts, counting starts over.
      if (PreparingPgClient.runs.size >= 10 * MAX_PREPARED) PreparingPgClient.runs.clear();
      PreparingPgClient.runs.set(text, runs);
      return undefined;
    }
    PreparingPgClient.runs.delete(text);
    const name = `sluice_auto_${PreparingPgClient.names.size + 1}`;
    PreparingPgClient.names.set(text, name);
    return name;
  }

  override query(...args: unknown[]): any {
    // (text, values) from Kysely, (text, values, callback) from pg.Pool#query.
    const [text, values, callback] = args;
    if (
      typeof text === "string" &&
      Array.isArray(values) &&
      values.length > 0 &&
      (args.length === 2 || (args.length === 3 && typeof callback === "function"))
    ) {
      const name = PreparingPgClient.statementName(text);
      if (name) return (super.query as (...rest: unknown[]) => unknown)({ name, text, values }, ...args.slice(2));
    }
    return (super.query as (...rest: unknown[]) => unknown)(...args);
  }
}

export function createPgPool(databaseUrl: string, max = 10): pg.Pool {
  return new pg.Pool({
    Client: PreparingPgClient,
    connectionString: databaseUrl,
    max,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as any)) as any,
    },
  });
}

export function openPostgres(databaseUrl: string): { db: Kysely<Database>; pool: pg.Pool } {
  const pool = createPgPool(databaseUrl);
  // An idle client that loses its connection must not crash the process.
  pool.on("error", () => undefined);
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), pool };
}
