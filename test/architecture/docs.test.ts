// Keeps the documentation honest: every setting the code reads has a row in
// docs/configuration.md, and every relative link in the README and docs/ reaches a file that
// exists. Both drift silently otherwise: a new variable nobody can find, a page moved away.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** Variables src/config.ts reads (by name in a call, or as `env.NAME`) and those the CLI's client settings read. */
function variablesRead(): string[] {
  const names = new Set<string>();
  for (const match of read("src/config.ts").matchAll(/"((?:SLUICE|DATABASE|NODE|LOG)_[A-Z0-9_]+|PORT|HOST)"|\benv\.([A-Z][A-Z0-9_]+)/g)) {
    names.add((match[1] ?? match[2])!);
  }
  for (const match of read("src/cli/client/settings.ts").matchAll(/\benv\.(SLUICE_[A-Z0-9_]+)/g)) names.add(match[1]!);
  return [...names].sort();
}

/** Markdown files whose links must resolve: the README and every page under docs/, ADRs included. */
function documents(): string[] {
  const pages = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return pages(path);
      return entry.name.endsWith(".md") ? [path] : [];
    });
  return ["README.md", ...pages("docs")];
}

/** Relative link targets of a Markdown file (inline links and images), outside code blocks and spans. */
function relativeLinks(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  const targets: string[] = [];
  for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) continue;
    targets.push(target);
  }
  return targets;
}

describe("documentation", () => {
  it("docs/configuration.md names every variable the code reads", () => {
    const page = read("docs/configuration.md");
    const read_ = variablesRead();
    assert.ok(
      read_.includes("SLUICE_DATA_DIR") && read_.includes("SLUICE_PROFILE"),
      `the scan of src/config.ts found too little: ${read_.join(", ")}`,
    );
    const missing = read_.filter((name) => !page.includes(`\`${name}\``));
    assert.deepEqual(missing, [], `add a row to docs/configuration.md for: ${missing.join(", ")}`);
  });

  it("every relative link in README.md and docs/ points to a file that exists", () => {
    const broken: string[] = [];
    for (const doc of documents()) {
      for (const target of relativeLinks(read(doc))) {
        const path = decodeURIComponent(target.split("#")[0]!);
        if (!existsSync(resolve(ROOT, dirname(doc), path))) broken.push(`${doc}: ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });
});
