// OAuth 2 apps the operator configures (client id, sealed client secret, endpoints, scopes), and
// the connects in flight: one row per `state` handed to a provider, kept by its SHA-256 (a
// reader of the database cannot finish someone's connect with it), with the PKCE verifier
// sealed, the user it belongs to and when it expires. A callback deletes its row: single use.
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("oauth_apps")
    .addColumn("app", "text", (c) => c.primaryKey())
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("client_secret", "text", (c) => c.notNull())
    .addColumn("authorize_url", "text", (c) => c.notNull())
    .addColumn("token_url", "text", (c) => c.notNull())
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("oauth_connects")
    .addColumn("state_hash", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("app", "text", (c) => c.notNull())
    .addColumn("name", "text")
    .addColumn("code_verifier", "text", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("oauth_connects_by_expiry").on("oauth_connects").column("expires_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("oauth_connects").execute();
  await db.schema.dropTable("oauth_apps").execute();
}
