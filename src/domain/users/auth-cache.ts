// Keys that authenticated recently, remembered per process: API reads are hot and a key lookup
// is a database round trip. An entry lives less than 5 s (and never past the key's expiry), so
// a key revoked by another process sharing the database is refused within 5 s; the process
// that revoked it forgets the key at once.

/** The account and key a cached key stands for (an Actor of context.ts). */
export interface CachedActor {
  userId: string;
  keyId?: string;
}

export const AUTH_CACHE_TTL_MS = 4_000;
const MAX_KEYS = 10_000;

export interface AuthCache {
  get(apiKey: string, nowMs: number): CachedActor | undefined;
  set(apiKey: string, actor: CachedActor, untilMs: number): void;
  /** Forgets a revoked key (by its id: the key itself is not known after creation). */
  forgetKey(keyId: string): void;
}

export function createAuthCache(): AuthCache {
  const entries = new Map<string, { actor: CachedActor; until: number }>();
  return {
    get(apiKey, nowMs) {
      const entry = entries.get(apiKey);
      if (!entry) return undefined;
      if (entry.until > nowMs) return entry.actor;
      entries.delete(apiKey);
      return undefined;
    },
    set(apiKey, actor, untilMs) {
      if (entries.size >= MAX_KEYS) entries.clear();
      entries.set(apiKey, { actor, until: untilMs });
    },
    forgetKey(keyId) {
      for (const [apiKey, entry] of entries) if (entry.actor.keyId === keyId) entries.delete(apiKey);
    },
  };
}
