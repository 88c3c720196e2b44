// The lint rule that keeps the transports away from storage (eslint.config.js): a file in
// src/http/, src/cli/ or src/smtp-inbound/ that imports the store or Kysely is an error, while
// the domain below them may. Run through ESLint's API on snippets, so the test fails when the
// rule is dropped or narrowed, not only when today's files happen to obey it.
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** The messages of the import rule for `code` placed at `path` (a file that need not exist). */
async function restrictedImports(path: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

const OPENS_STORE = (up: string) => `import { openStore } from "${up}store/store.js";\nexport const open = openStore;\n`;
const USES_KYSELY = `import type { Kysely } from "kysely";\nexport type Db = Kysely<object>;\n`;

describe("storage stays out of the transports (lint)", () => {
  for (const [path, up] of [
    ["src/http/routes/probe.ts", "../../"],
    ["src/cli/probe.ts", "../"],
    ["src/cli/commands/probe.ts", "../../"],
    ["src/smtp-inbound/probe.ts", "../"],
  ] as const) {
    it(`refuses an import of the store or Kysely in ${path}`, async () => {
      assert.equal((await restrictedImports(path, OPENS_STORE(up))).length, 1, "the store");
      assert.equal((await restrictedImports(path, USES_KYSELY)).length, 1, "Kysely");
    });
  }

  it("lets the domain import the store (the rule is about the transports only)", async () => {
    assert.deepEqual(await restrictedImports("src/domain/probe.ts", OPENS_STORE("../")), []);
  });
});
