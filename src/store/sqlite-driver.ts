// The SQLite driver for this Node.js. better-sqlite3 13 is built on Node-API and ships one
// prebuilt binary per platform that every Node from 22 on loads, with no compiler and no
// rebuild after a Node upgrade; 12 is built per Node ABI and is the newest that runs on Node 20.
// On Node 24, 12 aborts at exit (a statement collected after its environment is gone), so both
// are installed and the one this Node supports is loaded. Same API, same types. 12 is an
// optional dependency: where it cannot be built (no compiler, no prebuilt binary reachable) the
// install still succeeds, and only Node 20, which needs it, says so here.
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import { SQLITE_DRIVER_MISSING } from "../lib/errors.js";

const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split(".")[0]);

/** The package to load on this Node: the Node-API build from Node 22 on. */
const SQLITE_DRIVER = nodeMajor >= 22 ? "better-sqlite3-napi" : "better-sqlite3";

function loadDriver(): typeof BetterSqlite3 {
  try {
    return require(SQLITE_DRIVER);
  } catch (error) {
    if ((error as { code?: unknown }).code !== "MODULE_NOT_FOUND" || !String((error as Error).message).includes(`'${SQLITE_DRIVER}'`))
      throw error;
    throw Object.assign(
      new Error(
        `sluice: the SQLite driver for Node.js ${process.version} (${SQLITE_DRIVER}) is not installed: ` +
          (nodeMajor >= 22
            ? "run `npm install` in Sluice's folder"
            : "on Node 20 it is built at install; install python3, make and g++ and run `npm install` again, or use Node.js 22 or 24, which need no build"),
      ),
      { code: SQLITE_DRIVER_MISSING },
    );
  }
}

export const SQLite: typeof BetterSqlite3 = loadDriver();
