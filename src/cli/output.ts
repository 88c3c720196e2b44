// How client commands print: --json prints the API's data as JSON; otherwise tables and
// short lines meant for a person.
export function printJson(data: unknown): void {
  process.stdout.write(JSON.stringify(data, null, 2) + "\n");
}

export function printTable(headers: string[], rows: string[][]): void {
  if (rows.length === 0) {
    process.stdout.write("(none)\n");
    return;
  }
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  process.stdout.write([line(headers), ...rows.map(line)].join("\n") + "\n");
}

export const time = (seconds: number | undefined | null): string =>
  seconds ? new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, "Z") : "";

/** One event summary as a line: when, id, stream (unless the default) and the event. */
export function eventLine(summary: { id: string; indexed_at_ms?: number; event?: unknown; metadata?: Record<string, unknown> }): string {
  const at = summary.indexed_at_ms ? new Date(summary.indexed_at_ms).toISOString() : "";
  const stream = typeof summary.metadata?.name === "string" && summary.metadata.name !== "" ? ` ${summary.metadata.name}` : "";
  const event = summary.event as { level?: unknown; message?: unknown } | undefined;
  if (summary.metadata?.name === "$logs" && event && typeof event.message === "string")
    return `${at} ${summary.id}${stream} [${String(event.level ?? "log")}] ${event.message}`;
  return `${at} ${summary.id}${stream} ${JSON.stringify(summary.event)}`;
}
