// Data store operations of user code: the handlers of the runner's "dataStore.*" calls
// (runtime/runner-calls.ts). The runner is hostile, so every argument is checked here as the
// API's are; the account is the runner's own, so a store id of another account is "not found".
// A value arrives as JSON text and is stored only once it parses, re-serialised.
import { invalid, ServiceError } from "../../lib/errors.js";
import type { Ctx } from "../context.js";
import { listEntries, listKeys, readRecord } from "./record-reads.js";
import { checkKey, checkTtl, encodeValue, MAX_VALUE_BYTES } from "./record-limits.js";
import { clearRecords, deleteRecord, setRecord, setRecordTtl } from "./record-writes.js";

type Handler = (userId: string, args: unknown) => Promise<unknown>;

interface Args {
  dataStoreId: string;
  [name: string]: unknown;
}

function argsOf(raw: unknown): Args {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw invalid("a data store call takes an object");
  const args = raw as Record<string, unknown>;
  if (typeof args.dataStoreId !== "string" || args.dataStoreId.length > 128) throw invalid("dataStoreId must be a data store id");
  return args as Args;
}

function parsedJson(json: unknown): unknown {
  if (typeof json !== "string") throw invalid("a data store value must be JSON");
  if (json.length > MAX_VALUE_BYTES && Buffer.byteLength(json) > MAX_VALUE_BYTES)
    throw new ServiceError(
      "PAYLOAD_TOO_LARGE",
      `a data store value of ${Buffer.byteLength(json)} bytes is over the limit of ${MAX_VALUE_BYTES} bytes`,
    );
  try {
    return JSON.parse(json);
  } catch {
    throw invalid("a data store value must be JSON");
  }
}

/** The message user code sees for a store that is not the account's, naming the id it used. */
async function named<T>(storeId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ServiceError && error.code === "NOT_FOUND")
      throw new ServiceError("NOT_FOUND", `data store ${storeId} was not found in this account`);
    throw error;
  }
}

/** The "dataStore.*" entries of the runner's call table (wired in main.ts). */
export function dataStoreCalls(ctx: Ctx): Record<string, Handler> {
  const op =
    (work: (userId: string, args: Args) => Promise<unknown>): Handler =>
    async (userId, raw) => {
      const args = argsOf(raw);
      return named(args.dataStoreId, () => work(userId, args));
    };
  return {
    "dataStore.get": op(async (userId, args) => {
      const row = await readRecord(ctx, userId, args.dataStoreId, checkKey(args.key));
      return row ? { json: row.value } : {};
    }),
    "dataStore.has": op(async (userId, args) => (await readRecord(ctx, userId, args.dataStoreId, checkKey(args.key))) !== undefined),
    "dataStore.set": op(async (userId, args) => {
      const key = checkKey(args.key);
      const json = encodeValue(parsedJson(args.json));
      const ttl = args.ttl === undefined ? "keep" : checkTtl(args.ttl);
      await setRecord(ctx, { userId, storeId: args.dataStoreId, key, json, ttl });
      return null;
    }),
    "dataStore.delete": op(async (userId, args) => deleteRecord(ctx, { userId, storeId: args.dataStoreId, key: checkKey(args.key) })),
    "dataStore.keys": op(async (userId, args) => listKeys(ctx, userId, args.dataStoreId)),
    "dataStore.entries": op(async (userId, args) => listEntries(ctx, userId, args.dataStoreId)),
    "dataStore.clear": op(async (userId, args) => {
      await clearRecords(ctx, { userId, storeId: args.dataStoreId });
      return null;
    }),
    "dataStore.setTtl": op(async (userId, args) =>
      setRecordTtl(ctx, { userId, storeId: args.dataStoreId, key: checkKey(args.key), ttl: checkTtl(args.ttl ?? null) }),
    ),
  };
}
