// The one-entry account database a sandboxed runner sees: a passwd line for its ids with home
// /tmp, files readable by all, made once and made again when something removed them.
import assert from "node:assert/strict";
import { readFileSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { describe, it } from "node:test";
import { passwdLine, runnerAccountFiles } from "../../src/runtime/sandbox/runner-passwd.js";

describe("a runner's passwd and group files", () => {
  it("name the runner's uid and gid, home /tmp, readable by all; removed, they are written again", () => {
    assert.equal(passwdLine(1234, 5678), "sluice:x:1234:5678:Sluice runner:/tmp:/usr/sbin/nologin\n");
    const files = runnerAccountFiles(1234, 5678);
    assert.equal(readFileSync(files.passwd, "utf8"), passwdLine(1234, 5678));
    assert.equal(readFileSync(files.group, "utf8"), "sluice:x:5678:\n");
    assert.equal(statSync(files.passwd).mode & 0o777, 0o644);
    assert.deepEqual(runnerAccountFiles(1234, 5678), files, "made once per process");
    rmSync(dirname(files.passwd), { recursive: true, force: true });
    const again = runnerAccountFiles(1234, 5678);
    assert.equal(readFileSync(again.passwd, "utf8"), passwdLine(1234, 5678));
    assert.equal(readFileSync(again.group, "utf8"), "sluice:x:5678:\n");
  });
});
