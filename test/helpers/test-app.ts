// Starts the real Sluice (same composition root as `npm start`) on a fresh database and a
// random loopback port, and gives tests HTTP clients for new accounts.
import { pino } from "pino";
import { loadConfig, type Config } from "../../src/config.js";
import { startSluice, type Role, type Sluice, type StartOptions } from "../../src/main.js";
import type { DialectName } from "../../src/store/store.js";
import { createTestDatabase, TEST_SECRET_KEY, type TestDatabase } from "./dialects.js";
import { ApiClient, request } from "./http-client.js";
import { fakeLookup } from "./fake-dns.js";
import type { LookupFunction } from "../../src/egress/egress-target.js";

/**
 * Names the app's own egress checks (a webhook's URL) resolve in tests: a table, so no test sends
 * a DNS query anywhere. Other names do not resolve, which such checks accept.
 */
const TEST_DNS: LookupFunction = fakeLookup({
  addresses: {
    localhost: [
      { address: "127.0.0.1", family: 4 },
      { address: "::1", family: 6 },
    ],
  },
});

export const ADMIN_TOKEN = "test-admin-token-of-at-least-32-characters";

export interface TestApp {
  dialect: DialectName;
  sluice: Sluice;
  config: Config;
  baseUrl: string; // http://127.0.0.1:port/v1
  origin: string; // http://127.0.0.1:port
  database: TestDatabase;
  /** An unauthenticated client. */
  anonymous: ApiClient;
  /** Creates an account through the admin API and returns a client with its key. */
  newAccount(options?: { plan?: "free" | "paid"; username?: string }): Promise<Account>;
  close(): Promise<void>;
}

export interface Account {
  id: string;
  username: string;
  email: string;
  apiKey: string;
  api: ApiClient;
}

let counter = 0;

export async function startTestApp(
  dialect: DialectName,
  overrides: Partial<Config> = {},
  options: {
    roles?: Role[];
    clock?: StartOptions["clock"];
    database?: TestDatabase;
    logger?: StartOptions["logger"];
    jobRetryBackoffMs?: StartOptions["jobRetryBackoffMs"];
    lookup?: LookupFunction;
    hostAddresses?: StartOptions["hostAddresses"];
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase(dialect));
  const config: Config = {
    ...loadConfig({}),
    port: 0,
    host: "127.0.0.1",
    dataDir: database.dataDir,
    databaseUrl: database.databaseUrl,
    adminToken: ADMIN_TOKEN,
    // Many tests send wrong keys on purpose; the limit on failures has tests of its own.
    authFailuresPerMinute: 1_000_000,
    secretKey: database.databaseUrl ? Buffer.from(TEST_SECRET_KEY, "hex") : undefined,
    logLevel: process.env.SLUICE_TEST_LOG_LEVEL ?? "silent",
    ...overrides,
  };
  const sluice = await startSluice(config, {
    roles: options.roles,
    clock: options.clock,
    logger: options.logger ?? pino({ level: config.logLevel }),
    jobRetryBackoffMs: options.jobRetryBackoffMs,
    lookup: options.lookup ?? TEST_DNS,
    hostAddresses: options.hostAddresses,
  });
  const origin = sluice.url ?? "";
  const baseUrl = `${origin}/v1`;
  // Generated URLs (HTTP endpoints) point at the random port once it is known.
  if (!overrides.publicUrl) config.publicUrl = origin;
  const app: TestApp = {
    dialect,
    sluice,
    config,
    baseUrl,
    origin,
    database,
    anonymous: new ApiClient(baseUrl),
    async newAccount(accountOptions = {}) {
      const username = accountOptions.username ?? `user${process.pid}x${++counter}x${Math.floor(Math.random() * 1e6)}`;
      const email = `${username}@example.test`;
      const created = await request(baseUrl, "POST", "/admin/users", {
        key: ADMIN_TOKEN,
        json: { username, email, plan: accountOptions.plan ?? "free" },
      });
      if (created.status !== 200) throw new Error(`could not create account: ${created.status} ${created.text}`);
      const data = created.body.data;
      return { id: data.id, username, email, apiKey: data.api_key, api: new ApiClient(baseUrl, data.api_key) };
    },
    async close() {
      await sluice.close();
      if (!options.database) await database.drop();
    },
  };
  return app;
}
