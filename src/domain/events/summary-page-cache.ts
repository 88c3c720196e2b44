// Pages of event summaries recently sent, kept as their JSON text, on SQLite only. Clients
// poll event_summaries (dashboards, `events -f` style tails), most often the same newest page
// of a stream that did not change; reading it again cost two statements and the page's rows.
//
// Exact, not eventually consistent: on SQLite this process is the only writer of its database,
// every write of events goes through this folder and forgets the emitter's pages
// (forgetEmitterPages), and a page read while its emitter was written is not kept (the
// emitter's generation changed meanwhile). On PostgreSQL other processes write too: no cache.
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.js";

const MAX_PAGE_BYTES = 256 * 1024;
const MAX_TOTAL_BYTES = 16 * 1024 * 1024;

interface CachedPage {
  db: Kysely<Database>;
  userId: string;
  json: string;
}

/** Bumped on every write of an emitter's events (never reset, so a stale read cannot match). */
const generations = new Map<string, number>();
/** By emitter, then by page request; the Map's order makes the oldest emitter first out. */
const pages = new Map<string, Map<string, CachedPage>>();
let totalBytes = 0;

export function generationOf(emitterId: string): number {
  return generations.get(emitterId) ?? 0;
}

/** Every write of an emitter's events calls this (in its transaction, before it commits). */
export function forgetEmitterPages(emitterId: string): void {
  generations.set(emitterId, generationOf(emitterId) + 1);
  const cached = pages.get(emitterId);
  if (!cached) return;
  for (const page of cached.values()) totalBytes -= page.json.length;
  pages.delete(emitterId);
}

export function cachedPage(db: Kysely<Database>, emitterId: string, userId: string, request: string): string | undefined {
  const cached = pages.get(emitterId);
  const page = cached?.get(request);
  // Another account asking for this emitter is told "not found" by the uncached path.
  if (!page || page.db !== db || page.userId !== userId) return undefined;
  pages.delete(emitterId); // most recently used: last out
  pages.set(emitterId, cached!);
  return page.json;
}

/** Keeps a page read at `generation`, unless the emitter was written since. */
export function keepPage(db: Kysely<Database>, emitterId: string, userId: string, request: string, generation: number, json: string): void {
  if (generationOf(emitterId) !== generation || json.length > MAX_PAGE_BYTES) return;
  let cached = pages.get(emitterId);
  if (!cached) pages.set(emitterId, (cached = new Map()));
  const previous = cached.get(request);
  if (previous) totalBytes -= previous.json.length;
  cached.set(request, { db, userId, json });
  totalBytes += json.length;
  for (const [oldest, oldPages] of pages) {
    if (totalBytes <= MAX_TOTAL_BYTES) break;
    for (const page of oldPages.values()) totalBytes -= page.json.length;
    pages.delete(oldest);
  }
}
