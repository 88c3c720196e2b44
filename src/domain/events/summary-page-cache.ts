// Pages of event summaries recently sent, kept as their JSON text, on SQLite only. Clients
// poll event_summaries (dashboards, `events -f` style tails), most often the same newest page
// of a stream that did not change; reading it again cost two statements and the page's rows.
//
// Exact, not eventually consistent: on SQLite this process is the only writer of its database,
// every write of events goes through this folder and forgets the emitter's pages
// (forgetEmitterPages), and a page read while its emitter was written is not kept (the
// emitter's generation changed meanwhile). On PostgreSQL other processes write too: no cache.
// One cache per context (Ctx.summaryPages), so per database.
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.js";

const MAX_PAGE_BYTES = 256 * 1024;
const MAX_TOTAL_BYTES = 16 * 1024 * 1024;

interface CachedPage {
  db: Kysely<Database>;
  userId: string;
  json: string;
}

export class SummaryPageCache {
  /** Bumped on every write of an emitter's events (never reset, so a stale read cannot match). */
  private readonly generations = new Map<string, number>();
  /** By emitter, then by page request; the Map's order makes the oldest emitter first out. */
  private readonly pages = new Map<string, Map<string, CachedPage>>();
  private totalBytes = 0;

  generationOf(emitterId: string): number {
    return this.generations.get(emitterId) ?? 0;
  }

  /** Every write of an emitter's events calls this (in its transaction, before it commits). */
  forgetEmitterPages(emitterId: string): void {
    this.generations.set(emitterId, this.generationOf(emitterId) + 1);
    const cached = this.pages.get(emitterId);
    if (!cached) return;
    for (const page of cached.values()) this.totalBytes -= page.json.length;
    this.pages.delete(emitterId);
  }

  cachedPage(db: Kysely<Database>, emitterId: string, userId: string, request: string): string | undefined {
    const cached = this.pages.get(emitterId);
    const page = cached?.get(request);
    // Another account asking for this emitter is told "not found" by the uncached path.
    if (!page || page.db !== db || page.userId !== userId) return undefined;
    this.pages.delete(emitterId); // most recently used: last out
    this.pages.set(emitterId, cached!);
    return page.json;
  }

  /** Keeps a page read at `generation`, unless the emitter was written since. */
  keepPage(db: Kysely<Database>, emitterId: string, userId: string, request: string, generation: number, json: string): void {
    if (this.generationOf(emitterId) !== generation || json.length > MAX_PAGE_BYTES) return;
    let cached = this.pages.get(emitterId);
    if (!cached) this.pages.set(emitterId, (cached = new Map()));
    const previous = cached.get(request);
    if (previous) this.totalBytes -= previous.json.length;
    cached.set(request, { db, userId, json });
    this.totalBytes += json.length;
    for (const [oldest, oldPages] of this.pages) {
      if (this.totalBytes <= MAX_TOTAL_BYTES) break;
      for (const page of oldPages.values()) this.totalBytes -= page.json.length;
      this.pages.delete(oldest);
    }
  }
}
