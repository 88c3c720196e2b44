// A component in a local file and the files its relative imports name, recursively: what
// deploy and dev send as component_code and component_files (paths relative to the file's
// folder, resolved as Node resolves them), with the nearest package.json of a file that imports
// npm packages, whose declared ranges the service then installs (as npm would).
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { findSpecifiers, kindOf } from "../../runtime/modules/specifiers.js";
import { UsageError } from "../errors.js";

export interface LocalComponent {
  code: string;
  /** Relative path (forward slashes) → code; empty when the file imports nothing relative. */
  files: Record<string, string>;
  /** Every file read, absolute: what dev watches. */
  paths: string[];
}

const SUFFIXES = ["", ".js", ".mjs", ".cjs", ".json", "/index.js", "/index.mjs", "/index.cjs"];
const MAX_FILES = 100;
/** How far up from a file's folder its package.json is looked for (as the service does). */
const MAX_LEVELS = 8;

function nearestPackageJson(folder: string): string | undefined {
  let current = folder;
  for (let level = 0; level <= MAX_LEVELS; level++) {
    const candidate = resolve(current, "package.json");
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
  return undefined;
}

export function readLocalComponent(file: string): LocalComponent {
  const entry = resolve(file);
  if (!existsSync(entry) || !statSync(entry).isFile()) throw new UsageError(`no such file: ${file}`);
  const root = dirname(entry);
  const code = readFileSync(entry, "utf8");
  const files: Record<string, string> = {};
  const paths = [entry];
  const visit = (from: string, text: string) => {
    const specifiers = findSpecifiers(text);
    if (specifiers.some((specifier) => kindOf(specifier.value) === "package")) {
      const manifest = nearestPackageJson(dirname(from));
      const key = manifest && relative(root, manifest).split(sep).join("/");
      if (manifest && key && !(key in files) && Object.keys(files).length < MAX_FILES) {
        files[key] = readFileSync(manifest, "utf8");
        paths.push(manifest);
      }
    }
    for (const specifier of specifiers) {
      if (kindOf(specifier.value) !== "relative" || specifier.value.startsWith("/")) continue;
      const wanted = resolve(dirname(from), specifier.value);
      const found = SUFFIXES.map((suffix) => wanted + suffix).find((path) => existsSync(path) && statSync(path).isFile());
      if (!found) throw new UsageError(`${relative(process.cwd(), from) || from} imports "${specifier.value}", which is not a file`);
      const key = relative(root, found).split(sep).join("/");
      if (key in files || found === entry) continue;
      if (Object.keys(files).length >= MAX_FILES) throw new UsageError(`${file} imports more than ${MAX_FILES} files`);
      const content = readFileSync(found, "utf8");
      files[key] = content;
      paths.push(found);
      if (!found.endsWith(".json")) visit(found, content);
    }
  };
  visit(entry, code);
  return { code, files, paths };
}
