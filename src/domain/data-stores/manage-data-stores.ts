// An account's data stores: made, listed, read and deleted (with their records). Every query is
// scoped by the account: another account's store is "record not found".
import type { Actor, Ctx } from "../context.js";
import { newId } from "../../lib/ids.js";
import { notFound } from "../../lib/errors.js";
import { paginateByCreation, type Page, type PageRequest } from "../../store/paginate.js";
import type { DataStoresTable } from "../../store/schema.js";
import { dataStoreView, type DataStoreView } from "./data-store-view.js";
import { checkName } from "./record-limits.js";

export async function createDataStore({ ctx, actor, input }: { ctx: Ctx; actor: Actor; input: { name: unknown } }): Promise<DataStoreView> {
  const row: DataStoresTable = {
    id: newId("ds"),
    user_id: actor.userId,
    name: checkName(input.name),
    bytes: 0,
    created_at: ctx.clock.now(),
  };
  await ctx.db.insertInto("data_stores").values(row).execute();
  return dataStoreView(row);
}

export async function listDataStores({ ctx, actor, page }: { ctx: Ctx; actor: Actor; page: PageRequest }): Promise<Page<DataStoreView>> {
  const query = ctx.db.selectFrom("data_stores").select(["id", "name", "created_at"]).where("user_id", "=", actor.userId);
  const result = await paginateByCreation(query, "data_stores", page);
  return { page_info: result.page_info, data: result.data.map(dataStoreView) };
}

/** The account's store, or a 404. */
export async function findOwnedDataStore(ctx: Ctx, userId: string, id: string): Promise<DataStoresTable> {
  const row = await ctx.db.selectFrom("data_stores").selectAll().where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export async function getDataStore({ ctx, actor, id }: { ctx: Ctx; actor: Actor; id: string }): Promise<DataStoreView> {
  return dataStoreView(await findOwnedDataStore(ctx, actor.userId, id));
}

/** Deletes the store and its records; their bytes leave the account's storage with the row. */
export async function deleteDataStore({ ctx, actor, id }: { ctx: Ctx; actor: Actor; id: string }): Promise<void> {
  await ctx.db.transaction().execute(async (db) => {
    const deleted = await db.deleteFrom("data_stores").where("id", "=", id).where("user_id", "=", actor.userId).executeTakeFirst();
    if (Number(deleted.numDeletedRows) === 0) throw notFound();
    await db.deleteFrom("data_store_records").where("store_id", "=", id).execute();
  });
}
