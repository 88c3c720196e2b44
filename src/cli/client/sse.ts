// Follows a live tail (Server-Sent Events). A dropped connection is opened again with
// Last-Event-ID set to the last event seen, so the server resumes right after it: no event
// is shown twice or lost.
import { CommandFailed } from "../errors.js";
import type { ApiClient, Query } from "./api-client.js";

export interface TailEvent {
  id: string;
  data: any;
}

export interface FollowOptions {
  query?: Query;
  /** Resume after this event id (e.g. the newest one already printed). */
  lastEventId?: string;
  signal: AbortSignal;
  /** Called each time the stream is (re)connected. */
  onConnected?(): void;
  onEvent(event: TailEvent): void;
}

const MAX_BACKOFF_MS = 5_000;

/** Resolves when `signal` aborts; rejects on a refusal (bad id, bad key). */
export async function followTail(client: ApiClient, path: string, options: FollowOptions): Promise<void> {
  let lastEventId = options.lastEventId;
  let backoff = 250;
  while (!options.signal.aborted) {
    try {
      const headers: Record<string, string> = { authorization: `Bearer ${client.settings.apiKey}`, accept: "text/event-stream" };
      if (lastEventId) headers["last-event-id"] = lastEventId;
      const response = await client.fetch(client.url(path, options.query), { headers, signal: options.signal });
      if (!response.ok) {
        const text = await response.text();
        let message = text;
        try {
          message = JSON.parse(text).error ?? text;
        } catch {
          // not JSON: the text itself
        }
        throw new CommandFailed(`the server refused: ${message} (HTTP ${response.status})`);
      }
      backoff = 250;
      options.onConnected?.();
      for await (const event of parseEvents(response.body!)) {
        lastEventId = event.id;
        options.onEvent(event);
      }
    } catch (error) {
      if (options.signal.aborted) return;
      // A refusal will not change by trying again; a dropped connection may.
      if (error instanceof CommandFailed && /refused/.test(error.message)) throw error;
    }
    if (options.signal.aborted) return;
    await sleep(backoff, options.signal);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}

async function* parseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<TailEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
      let id = "";
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(":")) continue; // a comment: connected, keepalive
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "id") id = value;
        else if (field === "data") data.push(value);
      }
      if (data.length === 0) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(data.join("\n"));
      } catch {
        parsed = data.join("\n");
      }
      yield { id, data: parsed };
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
