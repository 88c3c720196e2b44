// Names stay usable: a source or workflow created with a name the account already uses is
// named `<name>-2`, `-3`, … instead, so a name given to a command keeps meaning one resource.
import { sql, type Kysely } from "kysely";
import { ServiceError } from "../lib/errors.js";
import { storageOf } from "../store/storage-dialect.js";
import type { Database } from "../store/schema.js";

type NamedTable = "sources" | "workflows";

/**
 * Locks the account's row until the caller's transaction ends, so two creates of one name
 * cannot both see it free (PostgreSQL; SQLite runs its transactions one at a time).
 */
async function lockAccount(tx: Kysely<Database>, userId: string): Promise<void> {
  await storageOf(tx)
    .lockForUpdate(tx.selectFrom("users").select("id").where("id", "=", userId))
    .execute();
}

/** The names of the account's `table` that are `wanted` or start with `wanted-`. */
async function namesLike(tx: Kysely<Database>, table: NamedTable, userId: string, wanted: string): Promise<Set<string>> {
  // substr and code points: the same on both databases, and no LIKE wildcards to escape.
  const prefix = `${wanted}-`;
  const rows = await tx
    .selectFrom(table)
    .select("name")
    .where("user_id", "=", userId)
    .where((eb) => eb.or([eb("name", "=", wanted), eb(sql`substr(name, 1, ${[...prefix].length})`, "=", prefix)]))
    .execute();
  return new Set(rows.map((row) => row.name));
}

/** `wanted`, or the first of `wanted-2`, `wanted-3`, … the account does not use (inside the caller's transaction). */
export async function unusedName(tx: Kysely<Database>, table: NamedTable, userId: string, wanted: string): Promise<string> {
  await lockAccount(tx, userId);
  const taken = await namesLike(tx, table, userId, wanted);
  if (!taken.has(wanted)) return wanted;
  for (let n = 2; ; n++) if (!taken.has(`${wanted}-${n}`)) return `${wanted}-${n}`;
}

/**
 * A rename says what it does: renaming to a name another of the account's sources or
 * workflows uses is refused (409) rather than quietly suffixed, since the caller chose it.
 */
export async function assertNameFree(db: Kysely<Database>, table: NamedTable, userId: string, name: string, id: string): Promise<void> {
  const taken = await db
    .selectFrom(table)
    .select("id")
    .where("user_id", "=", userId)
    .where("name", "=", name)
    .where("id", "!=", id)
    .executeTakeFirst();
  if (taken) throw new ServiceError("CONFLICT", `the name "${name}" is taken by ${taken.id}: choose another`);
}
