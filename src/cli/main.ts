#!/usr/bin/env node
// The `sluice` command (program.ts): reads .env from the working directory when there is one,
// then runs the command line. Anything unexpected is printed whole and exits 1, but for a native
// module built for another Node.js (after switching Node versions) or a SQLite driver that could
// not be installed, which say in one line what to run.
import { existsSync } from "node:fs";
import { SQLITE_DRIVER_MISSING } from "../lib/errors.js";
import { runSluice } from "./program.js";

if (existsSync(".env")) process.loadEnvFile?.(".env");
runSluice(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(driverMissing(error) ?? nativeModuleMismatch(error) ?? error);
    process.exit(1);
  },
);

/** The SQLite driver's own one-line message when the driver this Node needs is not installed (store/sqlite-driver.ts). */
function driverMissing(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === SQLITE_DRIVER_MISSING && typeof message === "string" ? message : undefined;
}

/** One line for a native module (better-sqlite3) built for another Node.js, else undefined. */
function nativeModuleMismatch(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== "ERR_DLOPEN_FAILED" || typeof message !== "string" || !message.includes("NODE_MODULE_VERSION")) return undefined;
  const module = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(message)?.[1] ?? "a native module";
  return `sluice: ${module} was built for another Node.js version than ${process.version}: run \`npm rebuild\` (or \`npm install\`) with this Node, then start again`;
}
