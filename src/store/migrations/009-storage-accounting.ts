// Bytes of stored events per emitter, kept by triggers in the transaction that inserts or
// deletes events (appends, trims, deletions, emitters deleted), whatever the code path. An
// account's usage is the sum over its emitters; one row per emitter (not per account) keeps
// concurrent writers of different emitters off each other's row. PostgreSQL adds up each
// statement's rows at once (transition tables); SQLite has only row triggers, which cost no
// round trip.
import { sql, type Kysely } from "kysely";
import { storageOf } from "../storage-dialect.js";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("emitter_storage")
    .addColumn("emitter_id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("bytes", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("emitter_storage_by_user").on("emitter_storage").columns(["user_id"]).execute();

  if (storageOf(db).name === "postgres") {
    await sql`insert into emitter_storage (emitter_id, user_id, bytes)
      select emitter_id, min(user_id), sum(octet_length(event) + octet_length(metadata)) from events group by emitter_id`.execute(db);
    await sql`create function events_storage_added() returns trigger language plpgsql as $$
      begin
        insert into emitter_storage (emitter_id, user_id, bytes)
          select emitter_id, min(user_id), sum(octet_length(event) + octet_length(metadata)) from added group by emitter_id order by emitter_id
          on conflict (emitter_id) do update set bytes = emitter_storage.bytes + excluded.bytes;
        return null;
      end $$`.execute(db);
    await sql`create function events_storage_removed() returns trigger language plpgsql as $$
      begin
        update emitter_storage s set bytes = s.bytes - r.bytes
          from (select emitter_id, sum(octet_length(event) + octet_length(metadata)) as bytes from removed group by emitter_id) r
          where s.emitter_id = r.emitter_id;
        return null;
      end $$`.execute(db);
    await sql`create trigger events_storage_insert after insert on events referencing new table as added for each statement execute function events_storage_added()`.execute(
      db,
    );
    await sql`create trigger events_storage_delete after delete on events referencing old table as removed for each statement execute function events_storage_removed()`.execute(
      db,
    );
    return;
  }
  await sql`insert into emitter_storage (emitter_id, user_id, bytes)
    select emitter_id, min(user_id), sum(length(cast(event as blob)) + length(cast(metadata as blob))) from events group by emitter_id`.execute(
    db,
  );
  await sql`create trigger events_storage_insert after insert on events begin
      insert into emitter_storage (emitter_id, user_id, bytes)
        values (new.emitter_id, new.user_id, length(cast(new.event as blob)) + length(cast(new.metadata as blob)))
        on conflict (emitter_id) do update set bytes = bytes + excluded.bytes;
    end`.execute(db);
  await sql`create trigger events_storage_delete after delete on events begin
      update emitter_storage set bytes = bytes - (length(cast(old.event as blob)) + length(cast(old.metadata as blob)))
        where emitter_id = old.emitter_id;
    end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger events_storage_insert${storageOf(db).name === "postgres" ? sql` on events` : sql``}`.execute(db);
  await sql`drop trigger events_storage_delete${storageOf(db).name === "postgres" ? sql` on events` : sql``}`.execute(db);
  if (storageOf(db).name === "postgres") {
    await sql`drop function events_storage_added()`.execute(db);
    await sql`drop function events_storage_removed()`.execute(db);
  }
  await db.schema.dropTable("emitter_storage").execute();
}
