// storageOf finds the storage dialect from the Kysely adapter alone (no connection is made):
// SQLite and PostgreSQL are each recognised by their own adapter, and any other database is
// refused with an error that names its adapter, rather than being run with SQLite's SQL.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DummyDriver,
  Kysely,
  MysqlAdapter,
  MysqlIntrospector,
  MysqlQueryCompiler,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseIntrospector,
  type DialectAdapter,
  type QueryCompiler,
} from "kysely";
import { postgresStorage, sqliteStorage, storageOf } from "../../src/store/storage-dialect.js";

function kyselyWith(
  adapter: DialectAdapter,
  compiler: () => QueryCompiler,
  introspector: (db: Kysely<any>) => DatabaseIntrospector,
): Kysely<any> {
  return new Kysely<any>({
    dialect: {
      createAdapter: () => adapter,
      createDriver: () => new DummyDriver(),
      createQueryCompiler: compiler,
      createIntrospector: introspector,
    },
  });
}

describe("storageOf", () => {
  it("recognises SQLite and PostgreSQL by their adapters", () => {
    assert.equal(
      storageOf(
        kyselyWith(
          new SqliteAdapter(),
          () => new SqliteQueryCompiler(),
          (db) => new SqliteIntrospector(db),
        ),
      ),
      sqliteStorage,
    );
    assert.equal(
      storageOf(
        kyselyWith(
          new PostgresAdapter(),
          () => new PostgresQueryCompiler(),
          (db) => new PostgresIntrospector(db),
        ),
      ),
      postgresStorage,
    );
  });

  it("refuses any other adapter, naming it", () => {
    const mysql = kyselyWith(
      new MysqlAdapter(),
      () => new MysqlQueryCompiler(),
      (db) => new MysqlIntrospector(db),
    );
    assert.throws(
      () => storageOf(mysql),
      /no storage dialect for the database adapter MysqlAdapter: Sluice stores its data in SQLite or PostgreSQL/,
    );
  });
});
