// Runs every compiled test file with Node's own test runner. A small script rather than a
// glob on the command line, because `node --test <dir>` and glob support differ between
// Node 20, 22 and 24.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith(".test.js")) found.push(path);
  }
  return found;
}

const sourceOf = (compiled) => compiled.replace(/^dist[\\/]/, "").replace(/\.js$/, ".ts");

// A compiled test whose source was deleted or renamed stays in dist/ until it is cleaned;
// only tests that still have a source run.
const hasSource = (compiled) => existsSync(sourceOf(compiled));

// SLUICE_TEST_DATABASE_FILES_ONLY=1 keeps the files that run once per database (they loop
// over DIALECTS, or ask whether PostgreSQL is among them): a second pass on another database
// need not repeat the rest, which would run exactly as in the first (CI's PostgreSQL pass).
// A file that takes the first database only (DIALECTS[0]: the dashboard's browser tests, the
// CLI's client commands) tests what reaches the database through the API alone, which the
// per-database API tests cover: it runs in the first pass.
const perDatabase = (compiled) => {
  const source = readFileSync(sourceOf(compiled), "utf8");
  return source.includes("DIALECTS") && !source.includes("DIALECTS[0]");
};
// SLUICE_TEST_DATABASE_FILES_SKIP=1 keeps the others: for a pass on a Node that has already run
// the per-database files (CI's Node 22, on PostgreSQL). Unset, both kinds run.
const databaseFiles =
  process.env.SLUICE_TEST_DATABASE_FILES_ONLY === "1" ? true : process.env.SLUICE_TEST_DATABASE_FILES_SKIP === "1" ? false : undefined;

const filter = process.argv[2];
const files = findTests("dist/test")
  .filter(hasSource)
  .filter((f) => !filter || f.includes(filter))
  .filter((f) => databaseFiles === undefined || perDatabase(f) === databaseFiles)
  .sort();
if (files.length === 0) {
  console.error("no test files found");
  process.exit(1);
}
const concurrency = process.env.SLUICE_TEST_CONCURRENCY ?? "2";
// A hung test fails after this long instead of stalling the whole run (and CI) forever.
// Node applies it to each test file as a whole too, so it also caps a file's runtime.
const timeoutMs = process.env.SLUICE_TEST_TIMEOUT_MS ?? "180000";
const result = spawnSync(process.execPath, ["--test", `--test-concurrency=${concurrency}`, `--test-timeout=${timeoutMs}`, ...files], {
  stdio: "inherit",
});
process.exit(result.status ?? 1);
