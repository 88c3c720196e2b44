// Upgrades: a database as the previous release left it — its schema (the migrations up to
// PREVIOUS_RELEASE) filled with one of everything (accounts, API keys, components, sources,
// events, deliveries and their attempts, jobs, webhooks, subscriptions, connected accounts with
// encrypted credentials) — is opened by the current code, which migrates it with nothing lost:
// every row reads back as written, the key still opens the credentials, the API key is found.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { loadConfig } from "../../src/config.js";
import { encryptText, decryptText } from "../../src/domain/accounts/credential-cipher.js";
import { loadCredentialKey } from "../../src/domain/accounts/credential-key.js";
import { hashApiKey } from "../../src/domain/users/api-keys.js";
import { knownMigrations, migrateUpTo } from "../../src/store/migrate.js";
import { openPostgres } from "../../src/store/postgres.js";
import { openSqlite } from "../../src/store/sqlite.js";
import { openStore, type Store } from "../../src/store/store.js";
import { createTestDatabase, DIALECTS, TEST_SECRET_KEY, type TestDatabase } from "../helpers/dialects.js";

/**
 * The last migration of the previous release. Moved forward when a release is cut, so the test
 * always crosses the migrations made since (here 012 apphooks to 016 dead jobs, with the data
 * migration of 015).
 */
const PREVIOUS_RELEASE = "011-connected-accounts";

const T = 1_764_000_000_000;
const API_KEY = `sk_sluice_${"U".repeat(36)}grad`;
const CREDENTIALS = { token: "upgrade-secret-4c2f", refresh: "r-1" };

/** The fixture: table → rows, in the previous release's columns. */
function fixture(key: Buffer): Array<[string, Record<string, unknown>[]]> {
  const event = (seq: number) => ({
    emitter_id: "dc_up1",
    ms: T + seq,
    seq: 0,
    id: `${T + seq}-0`,
    user_id: "u_up1",
    stream: "default",
    event: JSON.stringify({ n: seq }),
    metadata: JSON.stringify({ ts: T + seq }),
  });
  return [
    [
      "users",
      [
        { id: "u_up1", username: "ursula", email: "ursula@example.test", plan: "paid", created_at: T, updated_at: T + 1 },
        { id: "u_up2", username: "uwe", email: "uwe@example.test", plan: "free", created_at: T, updated_at: T },
      ],
    ],
    [
      "api_keys",
      [
        {
          id: "key_up1",
          user_id: "u_up1",
          key_hash: hashApiKey(API_KEY),
          key_hint: "grad",
          created_at: T,
          name: "ci",
          expires_at: T + 86_400_000,
          last_used_at: T + 5,
        },
      ],
    ],
    [
      "components",
      [
        {
          id: "c_up1",
          user_id: "u_up1",
          key: "up-echo",
          name: "Up Echo",
          version: "1.0.0",
          code: "export default { run() {} }",
          code_hash: "a".repeat(64),
          component_url: null,
          metadata: JSON.stringify({ props: [] }),
          created_at: T,
          updated_at: T,
          files: JSON.stringify({ "lib/x.mjs": "export const x = 1;" }),
        },
        // A published registry component: 015 makes its key stand for it.
        {
          id: "c_pub1",
          user_id: null,
          key: "http-new-requests",
          name: "New Requests",
          version: "0.1.0",
          code: "export default { run() {} }",
          code_hash: "b".repeat(64),
          component_url: null,
          metadata: "{}",
          created_at: T,
          updated_at: T,
          files: null,
        },
      ],
    ],
    [
      "sources",
      [
        {
          id: "dc_up1",
          user_id: "u_up1",
          component_id: "c_up1",
          name: "up-echo",
          name_slug: "up-echo",
          configured_props: JSON.stringify({ http: {} }),
          active: 1,
          endpoint_key: "enupgrade1",
          custom_response: 0,
          timer_interval_seconds: 60,
          timer_cron: null,
          next_run_at: T + 60_000,
          state: JSON.stringify({ cursor: 7 }),
          dedupe_state: "{}",
          run_lock_until: null,
          created_at: T,
          updated_at: T,
        },
      ],
    ],
    ["events", [event(1), event(2), event(3)]],
    [
      "webhooks",
      [
        {
          id: "wh_up1",
          user_id: "u_up1",
          name: "hook",
          description: "d",
          url: "https://hooks.example.test/in",
          active: 1,
          signing_secret: "whsec_up",
          previous_secret: null,
          previous_secret_expires_at: null,
          created_at: T,
          updated_at: T,
        },
      ],
    ],
    ["subscriptions", [{ id: "sub_up1", user_id: "u_up1", emitter_id: "dc_up1", listener_id: "wh_up1", event_name: "", created_at: T }]],
    [
      "deliveries",
      [
        {
          id: "dl_up1",
          user_id: "u_up1",
          listener_id: "wh_up1",
          emitter_id: "dc_up1",
          event_id: `${T + 1}-0`,
          stream: "default",
          event: JSON.stringify({ n: 1 }),
          hops: 0,
          status: "pending",
          attempts: 1,
          next_attempt_at: T + 10,
          last_attempt_at: T + 5,
          created_at: T,
          updated_at: T + 5,
        },
      ],
    ],
    [
      "delivery_attempts",
      [
        {
          id: "da_up1",
          delivery_id: "dl_up1",
          attempted_at: T + 5,
          status_code: 503,
          duration_ms: 12,
          response_excerpt: "busy",
          error: null,
        },
      ],
    ],
    [
      "jobs",
      [
        {
          id: "job_up1",
          type: "deliver",
          payload: JSON.stringify({ deliveryId: "dl_up1" }),
          user_id: "u_up1",
          concurrency_key: "wh_up1",
          run_at: T + 10,
          attempts: 1,
          lease_token: null,
          locked_until: null,
          last_error: "HTTP 503",
          created_at: T,
        },
      ],
    ],
    [
      "connected_accounts",
      [
        {
          id: "apn_up1",
          user_id: "u_up1",
          app: "demo",
          name: "demo account",
          fields: JSON.stringify(Object.keys(CREDENTIALS)),
          credentials: encryptText(key, JSON.stringify(CREDENTIALS), "apn_up1"),
          source_id: null,
          prop_name: null,
          created_at: T,
          updated_at: T,
        },
      ],
    ],
    ["usage_daily", [{ user_id: "u_up1", day: "2025-11-24", invocations: 42, compute_ms: 1234 }]],
  ];
}

/** Opens the database without migrating it, as the previous release's tables are filled. */
function openRaw(database: TestDatabase) {
  if (database.databaseUrl) return openPostgres(database.databaseUrl).db;
  return openSqlite(database.dataDir, { checkpoints: false }).db;
}

for (const dialect of DIALECTS) {
  describe(`upgrade from the previous release's schema [${dialect}]`, () => {
    let database: TestDatabase;
    let store: Store;
    let rows: Array<[string, Record<string, unknown>[]]>;
    // The key file's key on SQLite (made by the previous release's first start), SLUICE_SECRET_KEY on PostgreSQL.
    const env = (db: TestDatabase) =>
      db.databaseUrl ? { DATABASE_URL: db.databaseUrl, SLUICE_SECRET_KEY: TEST_SECRET_KEY } : { SLUICE_DATA_DIR: db.dataDir };
    let key: Buffer;

    before(async () => {
      database = await createTestDatabase(dialect);
      const old = openRaw(database);
      await migrateUpTo(old, PREVIOUS_RELEASE);
      // The previous release wrote its key check at first start (secret_checks exists since 011).
      key = await loadCredentialKey(old, loadConfig(env(database)));
      rows = fixture(key);
      for (const [table, values] of rows) await (old as any).insertInto(table).values(values).execute();
      await old.destroy();
      store = await openStore({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, logger: pino({ level: "silent" }) });
    });
    after(async () => {
      await store?.close();
      await database?.drop();
    });

    it("applies every migration made since", async () => {
      assert.ok(knownMigrations().indexOf(PREVIOUS_RELEASE) < knownMigrations().length - 1, "the fixture is older than the current schema");
      const applied = (await (store.db as any).selectFrom("kysely_migration").select("name").orderBy("name").execute()).map(
        (r: { name: string }) => r.name,
      );
      assert.deepEqual(applied, knownMigrations());
    });

    it("keeps every row the previous release wrote, value for value", async () => {
      for (const [table, values] of rows) {
        const stored = await (store.db as any).selectFrom(table).selectAll().execute();
        assert.equal(stored.length, values.length, `${table}: row count`);
        for (const value of values) {
          const match = stored.find((row: Record<string, unknown>) => Object.entries(value).every(([column, v]) => row[column] === v));
          assert.ok(match, `${table}: ${JSON.stringify(value)} is there unchanged (found ${JSON.stringify(stored)})`);
        }
      }
    });

    it("the key still opens the database and the credentials; the API key is found; 015 published the registry component", async () => {
      assert.deepEqual(await loadCredentialKey(store.db, loadConfig(env(database))), key);
      const account = await store.db.selectFrom("connected_accounts").selectAll().where("id", "=", "apn_up1").executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(decryptText(key, account.credentials, "apn_up1")!), CREDENTIALS);
      assert.ok(await store.db.selectFrom("api_keys").select("id").where("key_hash", "=", hashApiKey(API_KEY)).executeTakeFirst());
      const published = await store.db
        .selectFrom("registry_components")
        .selectAll()
        .where("key", "=", "http-new-requests")
        .executeTakeFirst();
      assert.equal(published?.component_id, "c_pub1");
    });

    it("a key other than the previous release's is refused, not silently used", async () => {
      const wrong = randomBytes(32).toString("hex");
      await assert.rejects(
        loadCredentialKey(store.db, { ...loadConfig(env(database)), secretKey: Buffer.from(wrong, "hex") }),
        /not the key the database's connected accounts were encrypted with/,
      );
    });
  });
}
