// The key of connected accounts' credentials, settled at start: SLUICE_SECRET_KEY, else a key
// file in the data directory made (mode 0600) on first start. The database keeps a value
// encrypted with the key; a key that does not decrypt it stops the start with a ConfigError
// rather than leaving every stored credential unreadable.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Kysely } from "kysely";
import { ConfigError, parseSecretKey, type Config } from "../../config.js";
import type { Database } from "../../store/schema.js";
import { isUniqueViolation } from "../../store/unique-violation.js";
import { decryptText, encryptText } from "./credential-cipher.js";

export const KEY_FILE = "secret.key";
const CHECK_NAME = "credentials";
const CHECK_TEXT = "sluice credential key check";

export async function loadCredentialKey(
  db: Kysely<Database>,
  config: Pick<Config, "secretKey" | "dataDir" | "databaseUrl">,
): Promise<Buffer> {
  const check = await db.selectFrom("secret_checks").select("value").where("name", "=", CHECK_NAME).executeTakeFirst();
  const key = config.secretKey ?? keyFromFile(config, check !== undefined);
  if (check) {
    assertMatches(key, check.value, config);
    return key;
  }
  try {
    await db
      .insertInto("secret_checks")
      .values({ name: CHECK_NAME, value: encryptText(key, CHECK_TEXT, CHECK_NAME) })
      .execute();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // Another process sharing the database wrote its check first: the keys must agree.
    const written = await db.selectFrom("secret_checks").select("value").where("name", "=", CHECK_NAME).executeTakeFirstOrThrow();
    assertMatches(key, written.value, config);
  }
  return key;
}

/**
 * Whether `key` is the one the database's check value (secret_checks, as read beside the
 * service) was made with; undefined when the database has none yet (no server started on it).
 */
export function keyOpensCheck(key: Buffer, secretChecks: ReadonlyMap<string, string>): boolean | undefined {
  const value = secretChecks.get(CHECK_NAME);
  return value === undefined ? undefined : decryptText(key, value, CHECK_NAME) === CHECK_TEXT;
}

function assertMatches(key: Buffer, checkValue: string, config: Pick<Config, "secretKey">): void {
  if (decryptText(key, checkValue, CHECK_NAME) === CHECK_TEXT) return;
  const source = config.secretKey ? "SLUICE_SECRET_KEY" : `the key file ${KEY_FILE} in the data directory`;
  throw new ConfigError(
    `${source} is not the key the database's connected accounts were encrypted with; start with the original key (nothing was changed)`,
  );
}

function keyFromFile(config: Pick<Config, "dataDir" | "databaseUrl">, databaseHasKey: boolean): Buffer {
  if (config.databaseUrl)
    throw new ConfigError("SLUICE_SECRET_KEY is required when DATABASE_URL is set (32 bytes, base64 or 64 hex digits)");
  const path = join(config.dataDir, KEY_FILE);
  if (existsSync(path)) return parseSecretKey(readFileSync(path, "utf8"), path);
  if (databaseHasKey) {
    throw new ConfigError(
      `the key file ${path} is missing but the database holds credentials encrypted with it; restore the file or set SLUICE_SECRET_KEY to that key`,
    );
  }
  mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32);
  // "wx": two processes starting at once must not overwrite each other's key.
  try {
    writeFileSync(path, key.toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return parseSecretKey(readFileSync(path, "utf8"), path);
  }
  return key;
}
