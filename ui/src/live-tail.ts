// Reads a live tail (Server-Sent Events) with fetch, since EventSource cannot send the
// Authorization header. Reconnects after a drop, resuming after the last event seen.
import { headers } from "./api.js";

export interface TailEvent {
  id: string;
  data: any;
}

export interface TailOptions {
  path: string; // e.g. /sources/<id>/sse?event_name=$logs
  lastEventId?: string;
  onEvent: (event: TailEvent) => void;
  onState?: (state: "open" | "closed" | "error", detail?: string) => void;
  signal: AbortSignal;
}

const RECONNECT_MS = 2_000;

export async function followTail(options: TailOptions): Promise<void> {
  let lastId = options.lastEventId;
  while (!options.signal.aborted) {
    try {
      const res = await fetch(`/v1${options.path}`, {
        headers: { ...headers(), accept: "text/event-stream", ...(lastId ? { "last-event-id": lastId } : {}) },
        signal: options.signal,
      });
      if (!res.ok || !res.body) {
        options.onState?.("error", `${res.status} ${res.statusText}`);
        if (res.status === 401 || res.status === 403 || res.status === 404) return;
      } else {
        options.onState?.("open");
        for await (const event of parseStream(res.body)) {
          lastId = event.id;
          options.onEvent(event);
        }
        options.onState?.("closed");
      }
    } catch (error) {
      if (options.signal.aborted) return;
      options.onState?.("error", error instanceof Error ? error.message : String(error));
    }
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
  }
}

/** Splits an SSE byte stream into events with an id and JSON data; comments are skipped. */
export async function* parseStream(body: ReadableStream<Uint8Array>): AsyncGenerator<TailEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id = "";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("id:")) id = line.slice(3).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length === 0) continue;
      try {
        yield { id, data: JSON.parse(data.join("\n")) };
      } catch {
        yield { id, data: data.join("\n") };
      }
    }
  }
}
