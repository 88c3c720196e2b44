// `npm start`'s build step: builds only when something the build reads changed since the last
// build, so a second start with nothing changed goes straight to the server. What the build
// reads is fingerprinted by path, size and modification time (cheap: no file is read); the
// fingerprint is taken before building, so a file saved during a build is built next time.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

const INPUT_FOLDERS = ["src", "ui", "test", "bench", "scripts"];
const INPUT_FILES = ["package.json", "package-lock.json", "tsconfig.json"];
const STAMP = join("dist", ".build-fingerprint");

function listFiles(dir) {
  const found = [];
  if (!existsSync(dir)) return found;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...listFiles(path));
    else if (entry.isFile()) found.push(path);
  }
  return found;
}

function fingerprint() {
  const hash = createHash("sha256").update(process.version);
  const files = [...INPUT_FOLDERS.flatMap(listFiles), ...INPUT_FILES.filter((file) => existsSync(file))].sort();
  for (const file of files) {
    const stat = statSync(file);
    hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  return hash.digest("hex");
}

const current = fingerprint();
const built = existsSync(STAMP) && existsSync(join("dist", "src", "cli", "main.js")) ? readFileSync(STAMP, "utf8") : "";
if (built === current) process.exit(0);

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const result = spawnSync(npm, ["run", "build", "--silent"], { stdio: "inherit" });
if (result.status !== 0) process.exit(result.status ?? 1);
writeFileSync(STAMP, current);
