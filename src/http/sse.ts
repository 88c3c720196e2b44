// Server-Sent Events for live tails of sources and workflows (docs/architecture.md, "Events"): `id:` is the
// event id, `data:` the summary as JSON; a comment line every 15 s keeps the connection open.
// New events arrive by an in-process wake-up, and by a slow poll for other processes' events.
import type { FastifyReply, FastifyRequest } from "fastify";
import { TAIL_BATCH, type LiveTail } from "../domain/events/live-tail.js";
import { actorOf } from "./auth.js";

const LOOKBACK_MS = 3_000;

/** Event ids are "<ms>-<seq>"; anything else sorts first. */
function keyOf(id: string): [number, number] {
  const [ms, seq] = id.split("-").map(Number);
  return [Number.isFinite(ms) ? (ms as number) : 0, Number.isFinite(seq) ? (seq as number) : 0];
}

const compareKeys = (a: [number, number], b: [number, number]) => a[0] - b[0] || a[1] - b[1];

export interface SseOptions {
  keepaliveMs?: number;
  pollMs?: number;
}

export function streamEvents(request: FastifyRequest, reply: FastifyReply, tail: LiveTail, options: SseOptions = {}): void {
  const keepaliveMs = options.keepaliveMs ?? 15_000;
  const pollMs = options.pollMs ?? 1_000;
  // Before the response starts, so a refusal is an ordinary 429.
  const freeSlot = request.server.liveTailSlots.take(actorOf(request).userId);
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

  // Events of one emitter written by concurrent transactions may commit slightly out of id
  // order, so each read looks back a few seconds and skips what this stream already sent.
  const floor = tail.startAfter ? keyOf(tail.startAfter) : undefined;
  const sent = new Map<string, number>();
  let newestMs = floor?.[0] ?? 0;
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
        const lookback = newestMs > 0 ? `${newestMs - LOOKBACK_MS}-0` : undefined;
        let cursor = !lookback ? tail.startAfter : !floor || compareKeys(keyOf(lookback), floor) > 0 ? lookback : tail.startAfter;
        for (;;) {
          const batch = await tail.fetchAfter(cursor);
          for (const item of batch) {
            if (closed) return;
            cursor = item.id;
            const key = keyOf(item.id);
            if (sent.has(item.id) || (floor && compareKeys(key, floor) <= 0)) continue;
            res.write(`id: ${item.id}\ndata: ${JSON.stringify(item.data)}\n\n`);
            sent.set(item.id, key[0]);
            newestMs = Math.max(newestMs, key[0]);
          }
          if (batch.length < TAIL_BATCH) break;
        }
        for (const [id, ms] of sent) if (ms < newestMs - 2 * LOOKBACK_MS) sent.delete(id);
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
    freeSlot();
    unsubscribe();
    clearInterval(poll);
    clearInterval(keepalive);
  };
  request.raw.on("close", close);
  res.on("close", close);
  res.on("error", close);
  void read();
}
