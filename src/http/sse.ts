// Server-Sent Events for live tails of sources and workflows (DESIGN.md §2): `id:` is the
// event id, `data:` the summary as JSON; a comment line every 15 s keeps the connection open.
// New events arrive by an in-process wake-up, and by a slow poll for other processes' events.
import type { FastifyReply, FastifyRequest } from "fastify";

export interface TailSource {
  startAfter: string | undefined;
  fetchAfter(afterId: string | undefined): Promise<Array<{ id: string; data: unknown }>>;
  subscribe(wake: () => void): () => void;
}

export interface SseOptions {
  keepaliveMs?: number;
  pollMs?: number;
}

export function streamEvents(request: FastifyRequest, reply: FastifyReply, tail: TailSource, options: SseOptions = {}): void {
  const keepaliveMs = options.keepaliveMs ?? 15_000;
  const pollMs = options.pollMs ?? 1_000;
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
    "x-request-id": request.id,
  });
  res.write(": connected\n\n");

  let lastId = tail.startAfter;
  let closed = false;
  let reading = false;
  let again = false;
  const read = async () => {
    if (closed) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        for (;;) {
          const batch = await tail.fetchAfter(lastId);
          for (const item of batch) {
            if (closed) return;
            res.write(`id: ${item.id}\ndata: ${JSON.stringify(item.data)}\n\n`);
            lastId = item.id;
          }
          if (batch.length < 100) break;
        }
      } while (again && !closed);
    } catch (error) {
      request.log.warn({ err: error }, "live tail read failed");
    } finally {
      reading = false;
    }
  };
  const unsubscribe = tail.subscribe(() => void read());
  const poll = setInterval(() => void read(), pollMs);
  const keepalive = setInterval(() => res.write(": keepalive\n\n"), keepaliveMs);
  const close = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    clearInterval(poll);
    clearInterval(keepalive);
  };
  request.raw.on("close", close);
  res.on("close", close);
  res.on("error", close);
  void read();
}
