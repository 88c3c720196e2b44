// Where a relative import of component code leads: next to the URL the importing module came
// from (component_url, fetched), or, for code deployed from local files, to one of the files
// sent with it (component_files, by path relative to the entry module's folder; "../" may
// lead above it, as it did on the deployer's disk).
import { posix } from "node:path";
import { invalid } from "../../lib/errors.js";
import { fetchCodeIfFound } from "./fetch-code.js";

/** Where a module came from: a URL, or a path among the component's files ("" for the entry). */
export type ModuleOrigin = { url: string } | { path: string };

export interface RelativeTarget {
  /** Names the import before resolution: imports with the same key lead to the same module. */
  key: string;
  resolve(): Promise<ResolvedModule>;
}

export interface ResolvedModule {
  /** Names the imported module among all a component imports. */
  id: string;
  origin: ModuleOrigin;
  code: string;
}

export const ENTRY_PATH = "";

/** The files with their paths normalized ("./lib/a.js" → "lib/a.js"). */
export function normalizeFiles(files: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(files).map(([path, code]) => [posix.normalize(path), code]));
}

// In the order Node tries them for an import without an extension: the file, then these.
const SUFFIXES = ["", ".js", ".mjs", ".cjs", ".json", "/index.js", "/index.mjs", "/index.cjs", "/index.json"];

export function relativeTarget(
  specifier: string,
  origin: ModuleOrigin | undefined,
  files: Map<string, string> | undefined,
  allowPrivate: boolean,
): RelativeTarget {
  if (!origin) throw invalid(`cannot resolve the relative import "${specifier}" without a component_url or component_files`);
  if ("url" in origin) {
    const base = new URL(specifier, origin.url);
    const key = base.toString();
    return { key, resolve: () => resolveUrl(specifier, base, allowPrivate) };
  }
  if (specifier.startsWith("/")) throw invalid(`cannot import "${specifier}": component_files are named by relative paths`);
  const wanted = posix.normalize(posix.join(posix.dirname(origin.path || "entry"), specifier));
  const path = SUFFIXES.map((suffix) => wanted + suffix).find((candidate) => files?.has(candidate));
  if (path === undefined) throw invalid(`cannot resolve the relative import "${specifier}": component_files has no "${wanted}"`);
  const code = files!.get(path)!;
  return { key: `file:${path}`, resolve: async () => ({ id: `file:${path}`, origin: { path }, code }) };
}

/** The first candidate URL the server has (one request at a time, in Node's order); other failures end the search. */
async function resolveUrl(specifier: string, base: URL, allowPrivate: boolean): Promise<ResolvedModule> {
  const tried: string[] = [];
  for (const url of candidateUrls(base)) {
    tried.push(url);
    const code = await fetchCodeIfFound(url, { allowPrivate });
    if (code !== undefined) return { id: url, origin: { url }, code };
  }
  throw invalid(`cannot resolve the relative import "${specifier}": none of these was found (HTTP 404): ${tried.join(", ")}`);
}

function candidateUrls(base: URL): string[] {
  const path = base.pathname.replace(/\/+$/, "");
  return SUFFIXES.map((suffix) => {
    const url = new URL(base);
    url.pathname = suffix === "" ? base.pathname : path + suffix;
    return url.toString();
  }).filter((url, index, all) => all.indexOf(url) === index);
}
