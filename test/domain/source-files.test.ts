// The service's side of `dir` props without a runner: the check of a change set as a hostile
// runner could send it, and the journal that makes applying it all-or-nothing across a crash.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { loadConfig } from "../../src/config.js";
import { DirFiles } from "../../src/runner/dir-interface.js";
import { checkFileChanges } from "../../src/domain/sources/source-file-changes.js";
import { readSourceFiles, removeSourceFiles, sourceFilesDir, stageSourceFiles } from "../../src/domain/sources/source-files.js";

const caps = { maxFiles: 3, maxBytes: 3 * 4096 + 10 };
const b64 = (text: string) => Buffer.from(text).toString("base64");

describe("checking a source's file changes", () => {
  it("refuses the same path twice, written and deleted, or through ./ and ..", () => {
    assert.match(
      checkFileChanges({}, { written: { "a/b": b64("1"), "a/./b": b64("2") }, deleted: [] }, caps) as string,
      /names "a\/b" twice/,
    );
    assert.match(checkFileChanges({ a: b64("1") }, { written: { a: b64("2") }, deleted: ["a"] }, caps) as string, /names "a" twice/);
    assert.match(checkFileChanges({}, { written: { "a/../../x": b64("") }, deleted: [] }, caps) as string, /outside its folder/);
    assert.match(checkFileChanges({}, { written: {}, deleted: ["/../x"] }, caps) as string, /outside its folder/);
  });

  it("refuses a clash with a kept file or folder, but not one the same change set removes", () => {
    assert.match(
      checkFileChanges({ "x/y": b64("") }, { written: { x: b64("") }, deleted: [] }, caps) as string,
      /"x" would be both a file and the folder of "x\/y"/,
    );
    assert.match(
      checkFileChanges({ x: b64("") }, { written: { "x/y/z": b64("") }, deleted: [] }, caps) as string,
      /"x" would be both a file/,
    );
    const plan = checkFileChanges({ "x/y": b64("") }, { written: { x: b64("now a file") }, deleted: ["x/y"] }, caps);
    assert.deepEqual(plan, { written: [["x", Buffer.from("now a file")]], deleted: ["x/y"] });
  });

  it("counts files and 4 KB per file; a source over a lowered cap may still shrink", () => {
    assert.match(
      checkFileChanges({ a: b64(""), b: b64("") }, { written: { c: b64(""), d: b64("") }, deleted: [] }, caps) as string,
      /4 files, over the limit of 3/,
    );
    assert.match(
      checkFileChanges({}, { written: { a: b64("12345678901") }, deleted: [] }, { maxFiles: 3, maxBytes: 4096 + 10 }) as string,
      /4107 bytes \(4096 counted per file and per folder\)/,
    );
    const over = { a: b64(""), b: b64(""), c: b64(""), d: b64(""), e: b64("") };
    assert.equal(typeof checkFileChanges(over, { written: {}, deleted: ["a"] }, caps), "object");
    assert.equal(typeof checkFileChanges(over, { written: { f: b64("") }, deleted: [] }, caps), "string");
  });
});

describe("folders count against the bytes", () => {
  // One file 4 levels deep is 1 file and 3 folders: 4 entries of 4 KB.
  const caps = { maxFiles: 10, maxBytes: 4 * 4096 };
  it("in the service: a deep path costs a 4 KB entry per folder", () => {
    assert.equal(typeof checkFileChanges({}, { written: { "a/b/c/d": b64("") }, deleted: [] }, caps), "object");
    assert.match(
      checkFileChanges({}, { written: { "a/b/c/d/e": b64("") }, deleted: [] }, caps) as string,
      /20480 bytes \(4096 counted per file and per folder\)/,
    );
    // Folders shared by files are counted once.
    assert.equal(typeof checkFileChanges({}, { written: { "a/x": b64(""), "a/y": b64(""), z: b64("") }, deleted: [] }, caps), "object");
  });
  it("in the runner: a write whose new folders pass the bytes fails there", () => {
    const dir = new DirFiles({}, caps);
    dir.set("a/b/c/d", Buffer.alloc(0));
    assert.throws(() => dir.set("a/b/e/f", Buffer.alloc(0)), /24576 bytes \(4096 counted per file and per folder\)/);
  });
});

describe("applying a source's file changes", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "sluice-source-files-"));
  const ctx = { config: { ...loadConfig({}), dataDir } };
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const root = join(dataDir, "source-files");

  it("a staged change set changes nothing until committed, and nothing when discarded", async () => {
    const staged = await stageSourceFiles(ctx, "dc_stage", { written: [["a/b.txt", Buffer.from("b")]], deleted: [] });
    assert.deepEqual(await readSourceFiles(ctx, "dc_stage"), {});
    await staged.discard();
    assert.deepEqual(readdirSync(join(root, ".staging")), []);
    const kept = await stageSourceFiles(ctx, "dc_stage", { written: [["a/b.txt", Buffer.from("b")]], deleted: [] });
    await kept.commit();
    assert.deepEqual(await readSourceFiles(ctx, "dc_stage"), { "a/b.txt": b64("b") });
  });

  it("the next read finishes a change set a crash interrupted after its commit, and drops one staged before it", async () => {
    const id = "dc_crash";
    mkdirSync(join(sourceFilesDir(ctx, id), "old"), { recursive: true });
    writeFileSync(join(sourceFilesDir(ctx, id), "old", "gone.txt"), "old");
    writeFileSync(join(sourceFilesDir(ctx, id), "moved.txt"), "new 1"); // renamed into place before the crash
    const pending = join(root, ".pending", id);
    mkdirSync(pending, { recursive: true });
    writeFileSync(join(pending, "1"), "new 2");
    writeFileSync(
      join(pending, "plan.json"),
      JSON.stringify({
        written: [
          ["moved.txt", "0"],
          ["later/here.txt", "1"],
        ],
        deleted: ["old/gone.txt"],
      }),
    );
    const staging = join(root, ".staging", `${id}.abc`);
    mkdirSync(staging, { recursive: true });
    writeFileSync(join(staging, "0"), "never committed");

    assert.deepEqual(await readSourceFiles(ctx, id), { "moved.txt": b64("new 1"), "later/here.txt": b64("new 2") });
    assert.equal(existsSync(pending), false);
    assert.equal(existsSync(staging), false);
    assert.equal(existsSync(join(sourceFilesDir(ctx, id), "old")), false, "the emptied folder is pruned");
  });

  it("removing a source's files takes its pending changes too", async () => {
    const staged = await stageSourceFiles(ctx, "dc_gone", { written: [["f", Buffer.from("f")]], deleted: [] });
    await staged.commit();
    mkdirSync(join(root, ".pending", "dc_gone"), { recursive: true });
    await removeSourceFiles(ctx, "dc_gone");
    assert.equal(existsSync(sourceFilesDir(ctx, "dc_gone")), false);
    assert.equal(existsSync(join(root, ".pending", "dc_gone")), false);
    assert.deepEqual(readdirSync(join(root, ".trash")), []);
  });
});
