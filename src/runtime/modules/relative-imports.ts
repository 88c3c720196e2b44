// Where a relative import of component code leads: next to the URL the importing module came
// from (component_url, fetched), or, for code deployed from local files, to one of the files
// sent with it (component_files, by path relative to the entry module's folder; "../" may
// lead above it, as it did on the deployer's disk).
import { posix } from "node:path";
import { invalid } from "../../lib/errors.js";
import { fetchComponentCode } from "./fetch-code.js";

/** Where a module came from: a URL, or a path among the component's files ("" for the entry). */
export type ModuleOrigin = { url: string } | { path: string };

export interface RelativeTarget {
  /** Names the imported module among all a component imports. */
  id: string;
  origin: ModuleOrigin;
  load(): Promise<string>;
}

export const ENTRY_PATH = "";

/** The files with their paths normalized ("./lib/a.js" → "lib/a.js"). */
export function normalizeFiles(files: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(files).map(([path, code]) => [posix.normalize(path), code]));
}

// As Node resolves an import without an extension: the file, then these.
const SUFFIXES = ["", ".js", ".mjs", ".cjs", ".json", "/index.js", "/index.mjs", "/index.cjs"];

export function relativeTarget(specifier: string, origin: ModuleOrigin | undefined, files: Map<string, string> | undefined, allowPrivate: boolean): RelativeTarget {
  if (!origin) throw invalid(`cannot resolve the relative import "${specifier}" without a component_url or component_files`);
  if ("url" in origin) {
    const url = new URL(specifier, origin.url).toString();
    return { id: url, origin: { url }, load: () => fetchComponentCode(url, { allowPrivate }) };
  }
  if (specifier.startsWith("/")) throw invalid(`cannot import "${specifier}": component_files are named by relative paths`);
  const wanted = posix.normalize(posix.join(posix.dirname(origin.path || "entry"), specifier));
  const path = SUFFIXES.map((suffix) => wanted + suffix).find((candidate) => files?.has(candidate));
  if (path === undefined) throw invalid(`cannot resolve the relative import "${specifier}": component_files has no "${wanted}"`);
  const code = files!.get(path)!;
  return { id: `file:${path}`, origin: { path }, load: async () => code };
}
