// Events of a source or workflow: the newest N of a stream, then (with follow) the live tail
// until Ctrl-C. Shared by `events`, `logs` and `errors`.
import type { ApiClient } from "../client/api-client.js";
import type { Resolved } from "../client/resolve.js";
import { PATH_OF_KIND } from "../client/resolve.js";
import { followTail } from "../client/sse.js";
import { eventLine, printJson } from "../output.js";

export interface ShowOptions {
  stream: string;
  count: number;
  follow: boolean;
  json: boolean;
}

export async function showEvents(api: ApiClient, target: Resolved, options: ShowOptions): Promise<void> {
  const base = `${PATH_OF_KIND[target.kind]}/${target.id}`;
  const eventName = options.stream === "" ? undefined : options.stream;
  const page =
    options.count > 0
      ? await api.get(`${base}/event_summaries`, { limit: Math.min(options.count, 100), expand: "event", event_name: eventName })
      : { data: [] };
  const newestFirst: any[] = page.data;
  if (options.json && !options.follow) return printJson(newestFirst);
  const print = (summary: any) => process.stdout.write((options.json ? JSON.stringify(summary) : eventLine(summary)) + "\n");
  for (const summary of [...newestFirst].reverse()) print(summary);
  if (!options.follow) return;
  await followUntilInterrupted(
    api,
    `${base}/sse`,
    { event_name: eventName },
    newestFirst[0]?.id,
    print,
    `following ${target.id}${eventName ? ` ${eventName}` : ""} (Ctrl-C to stop)`,
  );
}

/** Follows a tail until SIGINT or SIGTERM; `banner` goes to stderr once connected. */
export async function followUntilInterrupted(
  api: ApiClient,
  path: string,
  query: Record<string, string | undefined>,
  lastEventId: string | undefined,
  print: (summary: any) => void,
  banner: string,
): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  let announced = false;
  try {
    await followTail(api, path, {
      query,
      lastEventId,
      signal: controller.signal,
      onConnected: () => {
        if (!announced) process.stderr.write(banner + "\n");
        announced = true;
      },
      onEvent: (event) => print(event.data),
    });
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
