// The files of a source's `dir` props, kept under the data directory (one folder per source,
// removed with the source). They travel to the runner with each execution and what it wrote
// comes back with the result, checked whole (source-file-changes.ts) and applied whole:
//   1. stage: the new contents and the plan go into .staging/<id>.<random>/ (nothing visible);
//   2. commit: that folder is renamed to .pending/<id> — the one step that decides;
//   3. replay: each file is renamed into place and each deleted one unlinked, then the journal
//      goes. Every step of the replay can be done twice, so a crash anywhere after the commit
//      is finished by the next read of the source's files (under the source's lock), and a
//      crash before it leaves only a staging folder that the next read removes.
// Deleting a source renames its folder away before removing it, so a run still writing cannot
// make the removal fail; the run finds the source gone and removes what it wrote (run-source.ts).
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Ctx } from "../context.js";
import type { FilePlan } from "./source-file-changes.js";

type Config = Pick<Ctx, "config">;

const filesRoot = (ctx: Config) => join(ctx.config.dataDir, "source-files");
export const sourceFilesDir = (ctx: Config, sourceId: string) => join(filesRoot(ctx), sourceId);
// Source ids never start with a dot, so these never clash with a source's folder.
const pendingDir = (ctx: Config, sourceId: string) => join(filesRoot(ctx), ".pending", sourceId);
const stagingRoot = (ctx: Config) => join(filesRoot(ctx), ".staging");
const trashRoot = (ctx: Config) => join(filesRoot(ctx), ".trash");
const PLAN = "plan.json";

interface Journal {
  /** [path, name of its contents in the journal folder]. */
  written: Array<[string, string]>;
  deleted: string[];
}

/** The source's files, base64 by relative path ("{}" before anything was written). */
export async function readSourceFiles(ctx: Config, sourceId: string): Promise<Record<string, string>> {
  await recoverSourceFiles(ctx, sourceId);
  const root = sourceFilesDir(ctx, sourceId);
  const files: Record<string, string> = {};
  const walk = async (relative: string): Promise<void> => {
    const entries = await readdir(join(root, relative), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [];
      throw error;
    });
    for (const entry of entries) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) files[path] = (await readFile(join(root, path))).toString("base64");
    }
  };
  await walk("");
  return files;
}

/** A checked change set written aside: `commit` makes it the source's files, `discard` drops it. */
export interface StagedFiles {
  commit(): Promise<void>;
  discard(): Promise<void>;
}

/** Writes the plan's contents beside the source's folder; nothing the source sees changes yet. */
export async function stageSourceFiles(ctx: Config, sourceId: string, plan: FilePlan): Promise<StagedFiles> {
  const staging = join(stagingRoot(ctx), `${sourceId}.${randomBytes(6).toString("hex")}`);
  const discard = () => rm(staging, { recursive: true, force: true, maxRetries: 3 });
  try {
    await mkdir(staging, { recursive: true });
    const journal: Journal = { written: plan.written.map(([path], i) => [path, String(i)]), deleted: plan.deleted };
    for (const [i, [, bytes]] of plan.written.entries()) await writeFile(join(staging, String(i)), bytes);
    await writeFile(join(staging, PLAN), JSON.stringify(journal));
  } catch (error) {
    await discard();
    throw error;
  }
  return {
    async commit() {
      const pending = pendingDir(ctx, sourceId);
      await mkdir(dirname(pending), { recursive: true });
      await rename(staging, pending);
      await replay(ctx, sourceId);
    },
    discard,
  };
}

/** Finishes a committed change set a crash interrupted and drops staged ones that never were. */
export async function recoverSourceFiles(ctx: Config, sourceId: string): Promise<void> {
  const staged = await readdir(stagingRoot(ctx)).catch(() => [] as string[]);
  for (const name of staged) if (name.startsWith(`${sourceId}.`)) await rm(join(stagingRoot(ctx), name), { recursive: true, force: true });
  if (await exists(pendingDir(ctx, sourceId))) await replay(ctx, sourceId);
}

async function replay(ctx: Config, sourceId: string): Promise<void> {
  const pending = pendingDir(ctx, sourceId);
  const root = sourceFilesDir(ctx, sourceId);
  const text = await readFile(join(pending, PLAN), "utf8").catch(ignore("ENOENT"));
  if (text === undefined) return void (await rm(pending, { recursive: true, force: true })); // removed with its source meanwhile
  const journal = JSON.parse(text) as Journal;
  for (const path of journal.deleted) {
    await unlink(join(root, path)).catch(ignore("ENOENT", "ENOTDIR"));
    await pruneEmptyFolders(root, path);
  }
  for (const [path, name] of journal.written) {
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    // An empty folder left by files deleted earlier may stand where the file goes (the check
    // saw no file under it, so it holds none).
    if ((await stat(target).catch(ignore("ENOENT")))?.isDirectory()) await rm(target, { recursive: true });
    await rename(join(pending, name), target).catch(ignore("ENOENT")); // moved by the run a crash interrupted
  }
  await rm(pending, { recursive: true, force: true });
}

/** Removes the folders of a deleted file that hold nothing now (each costs an inode). */
async function pruneEmptyFolders(root: string, path: string): Promise<void> {
  for (let folder = dirname(path); folder !== "." && folder !== ""; folder = dirname(folder)) {
    const removed = await rmdir(join(root, folder)).then(
      () => true,
      () => false, // not empty, or gone already
    );
    if (!removed) return;
  }
}

/** Removes the source's files, also while a run of it is applying changes. */
export async function removeSourceFiles(ctx: Config, sourceId: string): Promise<void> {
  const trash = join(trashRoot(ctx), `${sourceId}.${randomBytes(6).toString("hex")}`);
  await mkdir(trashRoot(ctx), { recursive: true });
  // Once renamed, nothing writes there any more (a late write recreates the source's folder,
  // which the run that made it removes when it finds the source gone).
  const moved = await rename(sourceFilesDir(ctx, sourceId), trash).then(() => true, ignore("ENOENT"));
  if (moved) await rm(trash, { recursive: true, force: true, maxRetries: 3 });
  await rm(pendingDir(ctx, sourceId), { recursive: true, force: true, maxRetries: 3 });
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function ignore(...codes: string[]) {
  return (error: NodeJS.ErrnoException): undefined => {
    if (codes.includes(error.code ?? "")) return undefined;
    throw error;
  };
}
