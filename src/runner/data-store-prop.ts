// The object a `data_store` prop gives user code (this.<prop>), with Pipedream's async API:
// get, set(key, value, {ttl}), has, delete, keys, entries, clear, setTtl, and `for await` over
// its [key, value] pairs. The runner holds no data: each operation is a call to the service
// (service-calls.ts), which checks that the store is the account's and applies it atomically.
// Values travel as JSON text, so what comes back is what JSON makes of what was set (a Date
// becomes its ISO string), as on Pipedream. Used by sources (component-this.ts) and workflow steps.
import { ServiceCallError } from "./service-calls.js";

export type CallService = (method: string, args: unknown) => Promise<unknown>;

/** The configured value of a data store prop: `{dataStoreId: "ds_…"}`. */
export function dataStoreIdOf(configured: unknown): string | undefined {
  const id = (configured as { dataStoreId?: unknown } | null | undefined)?.dataStoreId;
  return typeof id === "string" ? id : undefined;
}

export interface DataStore {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, options?: { ttl?: number | null }): Promise<void>;
  has(key: string): Promise<boolean>;
  delete(key: string): Promise<boolean>;
  keys(): Promise<string[]>;
  entries(): Promise<Array<[string, unknown]>>;
  clear(): Promise<void>;
  setTtl(key: string, ttl: number | null): Promise<boolean>;
  [Symbol.asyncIterator](): AsyncGenerator<[string, unknown]>;
}

/** The prop's object, or undefined when the prop was left unconfigured (an optional prop). */
export function dataStoreProp(configured: unknown, callService: CallService): DataStore | undefined {
  const dataStoreId = dataStoreIdOf(configured);
  if (dataStoreId === undefined) return undefined;
  const call = async (operation: string, args: Record<string, unknown> = {}): Promise<any> => {
    try {
      return await callService(`dataStore.${operation}`, { dataStoreId, ...args });
    } catch (error) {
      // The caller's stack, not the channel's: the error points at the line that awaited it.
      if (error instanceof ServiceCallError) throw dataStoreError(error);
      throw error;
    }
  };
  const store: DataStore = {
    async get(key) {
      const found = (await call("get", { key: String(key) })) as { json?: string };
      return found.json === undefined ? undefined : JSON.parse(found.json);
    },
    async set(key, value, options) {
      const json = JSON.stringify(value) ?? "null";
      const ttl = options && typeof options === "object" && options.ttl !== undefined ? { ttl: options.ttl } : {};
      await call("set", { key: String(key), json, ...ttl });
    },
    has: async (key) => (await call("has", { key: String(key) })) === true,
    delete: async (key) => (await call("delete", { key: String(key) })) === true,
    keys: async () => (await call("keys")) as string[],
    async entries() {
      const pairs = (await call("entries")) as Array<[string, string]>;
      return pairs.map(([key, json]) => [key, JSON.parse(json)] as [string, unknown]);
    },
    async clear() {
      await call("clear");
    },
    setTtl: async (key, ttl) => (await call("setTtl", { key: String(key), ttl: ttl ?? null })) === true,
    async *[Symbol.asyncIterator]() {
      for (const entry of await store.entries()) yield entry;
    },
  };
  return store;
}

function dataStoreError(error: ServiceCallError): Error {
  const named = new Error(error.message);
  named.name = error.code === "LIMIT_EXCEEDED" ? "DataStoreLimitError" : "DataStoreError";
  return named;
}
