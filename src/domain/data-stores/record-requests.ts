// The API's verbs on one record: checked input in, the record as the API shows it out.
import { notFound } from "../../lib/errors.js";
import type { Ctx } from "../context.js";
import type { RecordView } from "./data-store-view.js";
import { getRecord } from "./record-reads.js";
import { checkKey, checkTtl, encodeValue } from "./record-limits.js";
import { deleteRecord, setRecord } from "./record-writes.js";

/** PUT replaces the record whole: without ttl_seconds it does not expire. */
export async function putRecord(
  ctx: Ctx,
  input: { userId: string; storeId: string; key: string; value: unknown; ttlSeconds?: number | null },
): Promise<RecordView> {
  const key = checkKey(input.key);
  const json = encodeValue(input.value);
  const ttl = checkTtl(input.ttlSeconds ?? null);
  await setRecord(ctx, { userId: input.userId, storeId: input.storeId, key, json, ttl });
  return getRecord(ctx, input.userId, input.storeId, key);
}

export async function deleteRecordOrNotFound(ctx: Ctx, input: { userId: string; storeId: string; key: string }): Promise<void> {
  if (!(await deleteRecord(ctx, { ...input, key: checkKey(input.key) }))) throw notFound();
}
