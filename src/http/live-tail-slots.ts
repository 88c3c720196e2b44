// Open live tails (SSE) per account, in this process: each holds a connection and polls the
// database, so an account may hold at most SLUICE_MAX_SSE_PER_ACCOUNT at once. A slot is freed
// when its connection closes.
import { ServiceError } from "../lib/errors.js";

export interface LiveTailSlots {
  /** Takes a slot for the account or throws a 429; the returned function frees it (once). */
  take(userId: string): () => void;
}

declare module "fastify" {
  interface FastifyInstance {
    liveTailSlots: LiveTailSlots;
  }
}

export function createLiveTailSlots(maxPerAccount: number): LiveTailSlots {
  const open = new Map<string, number>();
  return {
    take(userId) {
      const count = open.get(userId) ?? 0;
      if (count >= maxPerAccount) {
        throw new ServiceError(
          "LIMIT_EXCEEDED",
          `too many open live tails for this account (SLUICE_MAX_SSE_PER_ACCOUNT=${maxPerAccount}); close one first`,
          { retryAfterSeconds: 5 },
        );
      }
      open.set(userId, count + 1);
      let freed = false;
      return () => {
        if (freed) return;
        freed = true;
        const left = (open.get(userId) ?? 1) - 1;
        if (left > 0) open.set(userId, left);
        else open.delete(userId);
      };
    },
  };
}
