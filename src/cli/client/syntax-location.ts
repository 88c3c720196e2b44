// Where a syntax error is, as file:line:column of the local file. The server's runner learns of
// a syntax error from import(), whose error carries no position for an ES module on Node 20, so
// when the server refuses code for a SyntaxError the CLI asks `node --check` about each local
// file it sent (as an ES module or CommonJS, decided as the server decides) and names the file.
import { spawnSync } from "node:child_process";
import { relative } from "node:path";
import { looksLikeEsm } from "../../runtime/modules/specifiers.js";
import { CommandFailed } from "../errors.js";
import type { LocalComponent } from "./local-files.js";

/** `line`, `column` (1-based) and the message of the first syntax error in `code`, if any. */
export function syntaxErrorIn(code: string): { line: number; column: number; message: string } | undefined {
  const check = spawnSync(process.execPath, ["--check", `--input-type=${looksLikeEsm(code) ? "module" : "commonjs"}`], {
    input: code,
    encoding: "utf8",
    timeout: 10_000,
  });
  if (check.status === 0 || typeof check.stderr !== "string") return undefined;
  // [stdin]:LINE, the line, a caret line under the offending token, a blank line, then "SyntaxError: …".
  const lines = check.stderr.split("\n");
  const line = Number(/^\[stdin\]:(\d+)/.exec(lines[0] ?? "")?.[1]);
  const caret = (lines[2] ?? "").indexOf("^");
  const message = lines.find((text) => /^SyntaxError: /.test(text));
  if (!Number.isInteger(line) || !message) return undefined;
  return { line, column: caret >= 0 ? caret + 1 : 1, message };
}

/** The server's refusal, with file:line:column in front when it is a syntax error of a local file. */
export function withSyntaxLocation(error: unknown, local: LocalComponent): unknown {
  if (!(error instanceof CommandFailed) || !/SyntaxError/.test(error.message)) return error;
  const [entry, ...imported] = local.paths;
  // local-files.ts records each imported file's path and code in the same order.
  const codes = Object.values(local.files);
  const sources = [[entry!, local.code], ...imported.map((path, i) => [path, codes[i] ?? ""])].filter(
    ([path]) => !path!.endsWith(".json"),
  ) as Array<[string, string]>;
  for (const [path, code] of sources) {
    const found = syntaxErrorIn(code);
    if (found)
      return new CommandFailed(
        `${relative(process.cwd(), path) || path}:${found.line}:${found.column}: ${found.message}\n(${error.message})`,
      );
  }
  return error;
}
