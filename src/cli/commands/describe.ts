// `sluice describe <id-or-name>`: a source, workflow or webhook as readable fields (--json: the
// API's data as it is).
import type { Command } from "commander";
import { PATH_OF_KIND, resolveRef } from "../client/resolve.js";
import { printJson, time } from "../output.js";
import { client, type JsonOption } from "./common.js";

const TIMES = new Set(["created_at", "updated_at"]);

/** One value on one line: text as it is, times as ISO dates, anything else as compact JSON. */
function shown(field: string, value: unknown): string {
  if (TIMES.has(field) && typeof value === "number") return time(value);
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** `field: value` lines, values aligned; objects and lists one level down, indented. */
export function describeLines(data: Record<string, unknown>): string {
  const width = Math.max(...Object.keys(data).map((field) => field.length)) + 2;
  const lines: string[] = [];
  for (const [field, value] of Object.entries(data)) {
    if (value === null || value === undefined || value === "") continue;
    if (Array.isArray(value)) {
      lines.push(`${field}:${value.length === 0 ? " (none)" : ""}`);
      for (const item of value) {
        const named = item && typeof item === "object" ? ((item as any).name ?? (item as any).id) : undefined;
        lines.push(`  - ${typeof named === "string" ? named : shown(field, item)}`);
      }
    } else if (typeof value === "object") {
      const entries = Object.entries(value as Record<string, unknown>);
      lines.push(`${field}:${entries.length === 0 ? " (none)" : ""}`);
      for (const [sub, inner] of entries) lines.push(`  ${sub}: ${shown(sub, inner)}`);
    } else {
      lines.push(`${`${field}:`.padEnd(width)}${shown(field, value)}`);
    }
  }
  return lines.join("\n") + "\n";
}

export function describeCommand(program: Command): void {
  program
    .command("describe")
    .description("show a source, workflow or webhook")
    .argument("<ref>", "an id or a name")
    .option("--json", "print the API's data as JSON")
    .action(async (ref: string, options: JsonOption) => {
      const api = client();
      const { id, kind } = await resolveRef(api, ref, ["source", "workflow", "webhook"]);
      const { data } = await api.get(`${PATH_OF_KIND[kind]}/${id}`);
      if (options.json) printJson(data);
      else process.stdout.write(`${kind}\n${describeLines(data)}`);
    });
}
