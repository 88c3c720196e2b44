// PostgreSQL storage for scaled-out deployments. bigint columns (int8) are read as numbers:
// every bigint here is a millisecond timestamp or a counter well below 2^53.
import pg from "pg";
import { Kysely, PostgresDialect } from "kysely";
import type { Database } from "./schema.js";

const INT8_OID = 20;

export function createPgPool(databaseUrl: string, max = 10): pg.Pool {
  return new pg.Pool({
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
