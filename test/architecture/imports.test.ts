// The import structure of src/: no file reaches itself through its imports, every import
// between top-level parts points down the layers listed below, and no file is imported for
// its side effects (behaviour is passed in by the composition root, main.ts). Imports of types
// count as imports: a cycle of types still ties the files together.
//
// The runner (src/runner) is what a runner process executes, and the sandbox grants runners its
// compiled folder alone (runtime/component-runner.ts, runnerCode()): so its files import only
// each other, the egress guard's two pure files and Node's built-ins, and the service reaches
// into it only through its wire protocol (src/runner/protocol).
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../../src");

/**
 * Top-level parts of src/, lowest first. A file may import from its own part and from parts
 * of a lower layer, never from its own layer's other parts or a higher layer.
 */
const LAYERS: string[][] = [
  ["lib"],
  ["config.ts"],
  ["egress", "store", "mail"],
  ["runner"],
  ["queue", "runtime"],
  ["domain"],
  ["delivery-worker", "scheduler"],
  ["services.ts"],
  ["http", "smtp-inbound"],
  ["main.ts"],
  ["cli"],
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Files outside src/runner that a runner may load: the egress guard's pure parts. */
const RUNNER_MAY_IMPORT = ["egress/egress-guard.ts", "egress/egress-protocol.ts"].map((file) => join(SRC, file));
const RUNNER = join(SRC, "runner");
const PROTOCOL = join(RUNNER, "protocol");
const inside = (file: string, dir: string) => file.startsWith(dir + sep);

/** Every module specifier a file names (static and literal dynamic imports, re-exports). */
function specifiersOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(
    /^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"|^\s*import\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)|\brequire\(\s*"([^"]+)"\s*\)/gms,
  )) {
    found.push((match[1] ?? match[2] ?? match[3] ?? match[4])!);
  }
  return found;
}

interface Import {
  target: string;
  sideEffectOnly: boolean;
}

/** Relative imports and re-exports of a file, as repository paths of .ts files. */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, "utf8");
  const found: Import[] = [];
  for (const match of text.matchAll(/^\s*(import|export)\b([^;]*?)\bfrom\s+"(\.{1,2}\/[^"]+)"|^\s*import\s+"(\.{1,2}\/[^"]+)"/gms)) {
    const specifier = match[3] ?? match[4]!;
    found.push({ target: resolve(dirname(file), specifier).replace(/\.js$/, ".ts"), sideEffectOnly: match[4] !== undefined });
  }
  return found;
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file).filter((i) => i.target.startsWith(SRC))]));
const name = (file: string) => relative(join(SRC, ".."), file);
const partOf = (file: string) => relative(SRC, file).split(/[\\/]/)[0]!;
const layerOf = (part: string) => LAYERS.findIndex((layer) => layer.includes(part));

/** Strongly connected components with more than one file (Tarjan), or a file importing itself. */
function cycles(): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const { target } of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(name(member));
    } while (member !== file);
    const selfImport = graph.get(file)!.some((i) => i.target === file);
    if (component.length > 1 || selfImport) found.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

describe("import structure of src/", () => {
  it("has no import cycles", () => {
    assert.deepEqual(cycles(), []);
  });

  it("places every top-level part in a layer", () => {
    const parts = [...new Set(files.map(partOf))];
    assert.deepEqual(
      parts.filter((part) => layerOf(part) < 0),
      [],
    );
  });

  it("imports only downward between parts", () => {
    const upward: string[] = [];
    for (const [file, imports] of graph) {
      for (const { target } of imports) {
        const from = partOf(file);
        const to = partOf(target);
        if (from !== to && layerOf(to) >= layerOf(from)) upward.push(`${name(file)} -> ${name(target)}`);
      }
    }
    assert.deepEqual(upward, []);
  });

  it("imports no file only for its side effects", () => {
    const bare = [...graph].flatMap(([file, imports]) =>
      imports.filter((i) => i.sideEffectOnly).map((i) => `${name(file)} -> ${name(i.target)}`),
    );
    assert.deepEqual(bare, []);
  });

  it("keeps the runner to itself: its files import only src/runner, the egress guard's pure parts and Node's built-ins", () => {
    // Followed through the allowed egress files too: what a runner loads must all be granted.
    const reached = new Set(files.filter((file) => inside(file, RUNNER)));
    const outside: string[] = [];
    for (const file of reached) {
      for (const specifier of specifiersOf(file)) {
        if (specifier.startsWith(".")) {
          const target = resolve(dirname(file), specifier).replace(/\.js$/, ".ts");
          if (inside(target, RUNNER) || RUNNER_MAY_IMPORT.includes(target)) reached.add(target);
          else outside.push(`${name(file)} -> ${name(target)}`);
        } else if (!specifier.startsWith("node:") && !builtinModules.includes(specifier)) {
          outside.push(`${name(file)} -> ${specifier}`);
        }
      }
    }
    assert.deepEqual(outside, []);
  });

  it("lets the service import only the runner's protocol, never the files a runner executes", () => {
    const reaching: string[] = [];
    for (const [file, imports] of graph) {
      if (inside(file, RUNNER)) continue;
      for (const { target } of imports)
        if (inside(target, RUNNER) && !inside(target, PROTOCOL)) reaching.push(`${name(file)} -> ${name(target)}`);
    }
    assert.deepEqual(reaching, []);
  });
});
