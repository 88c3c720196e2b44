// The SQLite driver is chosen per Node version (better-sqlite3 13 from Node 22 on, 12 on 20), and
// 12 is an optional dependency that may not have been built: the driver this Node needs, when
// missing, is one clear error that says what to run, not a module-resolution stack.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { SQLite } from "../../src/store/sqlite-driver.js";

describe("the SQLite driver", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-driver-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("opens a database on this Node", () => {
    const db = new SQLite(":memory:");
    assert.equal((db.prepare("select 1 + 1 as two").get() as { two: number }).two, 2);
    db.close();
  });

  it("names the missing driver and what to run when this Node's driver is not installed", () => {
    // The module (and the error code it imports) alone, beside an empty node_modules: neither
    // driver can be found from there.
    mkdirSync(join(dir, "node_modules"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    for (const file of ["store/sqlite-driver.js", "lib/errors.js"]) {
      mkdirSync(join(dir, dirname(file)), { recursive: true });
      copyFileSync(new URL(`../../src/${file}`, import.meta.url), join(dir, file));
    }
    const out = execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import("./store/sqlite-driver.js").then(() => console.log("loaded"), (e) => console.log(e.code, e.message))`,
      ],
      { cwd: dir, encoding: "utf8" },
    );
    const major = Number(process.versions.node.split(".")[0]);
    assert.match(
      out,
      /^SLUICE_SQLITE_DRIVER_MISSING sluice: the SQLite driver for Node\.js v[\d.]+ \(better-sqlite3(-napi)?\) is not installed: /,
    );
    assert.match(out, major >= 22 ? /better-sqlite3-napi.*run `npm install`/ : /\(better-sqlite3\).*install python3, make and g\+\+/);
  });
});
