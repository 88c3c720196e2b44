// The SQLite driver for this Node.js. better-sqlite3 13 is built on Node-API and ships one
// prebuilt binary per platform that every Node from 22 on loads, with no compiler and no
// rebuild after a Node upgrade; 12 is built per Node ABI and is the newest that runs on Node 20.
// On Node 24, 12 aborts at exit (a statement collected after its environment is gone), so both
// are installed and the one this Node supports is loaded. Same API, same types.
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split(".")[0]);

/** The package to load on this Node: the Node-API build from Node 22 on. */
const SQLITE_DRIVER = nodeMajor >= 22 ? "better-sqlite3-napi" : "better-sqlite3";

export const SQLite: typeof BetterSqlite3 = require(SQLITE_DRIVER);
