// Finds the module specifiers of a piece of code (static and dynamic import, export … from,
// require) without evaluating it, so the service can fetch relative files and install npm
// packages before the code runs, and rewrite the specifiers to what it prepared.
import { builtinModules } from "node:module";

export interface Specifier {
  value: string;
  /** Offsets of the string's contents (without quotes) in the code. */
  start: number;
  end: number;
  /** Loaded by require(): it must be CommonJS on this Node (declared-versions.ts). */
  viaRequire?: boolean;
}

/** The code with comments blanked out (same length), so commented-out imports are ignored. */
function withoutComments(code: string): string {
  const out = code.split("");
  let i = 0;
  while (i < code.length) {
    const c = code[i];
    const next = code[i + 1];
    if (c === "/" && next === "/") {
      while (i < code.length && code[i] !== "\n") out[i++] = " ";
    } else if (c === "/" && next === "*") {
      const end = code.indexOf("*/", i + 2);
      const stop = end < 0 ? code.length : end + 2;
      for (; i < stop; i++) if (code[i] !== "\n") out[i] = " ";
    } else if (c === '"' || c === "'" || c === "`") {
      i++;
      while (i < code.length && code[i] !== c) i += code[i] === "\\" ? 2 : 1;
      i++;
    } else {
      i++;
    }
  }
  return out.join("");
}

const PATTERNS = [
  /\b(?:import|export)\s[^;'"`]*?\bfrom\s*(['"])([^'"\n]+)\1/g,
  /\bimport\s*(['"])([^'"\n]+)\1/g,
  /\b(?:require|import)\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g,
];

export function findSpecifiers(code: string): Specifier[] {
  const text = withoutComments(code);
  const found = new Map<number, Specifier>();
  for (const pattern of PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const value = match[2]!;
      const start = match.index! + match[0].lastIndexOf(match[1]! + value) + 1;
      const viaRequire = match[0].startsWith("require");
      found.set(start, { value, start, end: start + value.length, ...(viaRequire ? { viaRequire } : {}) });
    }
  }
  return [...found.values()].sort((a, b) => a.start - b.start);
}

export function rewriteSpecifiers(code: string, replacements: Map<number, string>, specifiers: Specifier[]): string {
  let out = "";
  let at = 0;
  for (const specifier of specifiers) {
    const replacement = replacements.get(specifier.start);
    if (replacement === undefined) continue;
    out += code.slice(at, specifier.start) + replacement;
    at = specifier.end;
  }
  return out + code.slice(at);
}

/** ESM when the code has import/export statements; CommonJS otherwise. */
export function looksLikeEsm(code: string): boolean {
  return /(^|[\n;])\s*(import\s*[\w{*'"]|export\s+(default\b|const\b|let\b|var\b|function\b|class\b|async\b|\{|\*))/.test(
    withoutComments(code),
  );
}

export type SpecifierKind = "builtin" | "relative" | "sdk" | "package" | "unsupported";

export const SDK_MODULES = ["@sluice/sdk", "@pipedream/types"];

export function kindOf(value: string): SpecifierKind {
  if (value.startsWith("node:") || builtinModules.includes(value) || builtinModules.includes(value.split("/")[0]!)) return "builtin";
  if (value.startsWith("./") || value.startsWith("../") || value.startsWith("/")) return "relative";
  if (SDK_MODULES.includes(value)) return "sdk";
  if (/^[a-z][a-z0-9+.-]*:/i.test(value)) return "unsupported"; // https:, file:, data: …
  return "package";
}

export interface PackageRequest {
  name: string;
  version: string | undefined;
  subpath: string; // "" or "/lib/x"
}

const NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i;
const VERSION = /^[a-z0-9^~<>=*.|+ -]+$/i;

/** `axios@0.19.2`, `@scope/pkg@^1/sub/path`, `is-odd` → name, version and subpath. */
export function parsePackageSpecifier(value: string): PackageRequest | undefined {
  const parts = value.split("/");
  const scoped = value.startsWith("@");
  const head = scoped ? `${parts[0]}/${parts[1] ?? ""}` : parts[0]!;
  const rest = parts.slice(scoped ? 2 : 1);
  const at = head.lastIndexOf("@");
  const hasVersion = at > 0;
  const name = hasVersion ? head.slice(0, at) : head;
  const version = hasVersion ? head.slice(at + 1) : undefined;
  if (!NAME.test(name) || (version !== undefined && (!VERSION.test(version) || version.trim() === ""))) return undefined;
  return { name, version: version?.trim(), subpath: rest.length ? `/${rest.join("/")}` : "" };
}
