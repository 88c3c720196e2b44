// Whether a database error is a conflict between transactions that running the same transaction
// again resolves: a PostgreSQL deadlock (40P01; two processes' group commits taking the same
// emitters' rows in another order) or serialization failure (40001). SQLite has one writer and
// waits on its busy timeout, so it has none.
const TRANSIENT_CODES = new Set(["40P01", "40001"]);

export function isTransientConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && TRANSIENT_CODES.has(code);
}

/** Tries a transaction this many times in all before its conflict is the caller's. */
export const TRANSIENT_ATTEMPTS = 5;

/** Runs `transaction` again after a transient conflict, a few times, after a short random pause. */
export async function retryTransientConflicts<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (!isTransientConflict(error) || attempt >= TRANSIENT_ATTEMPTS) throw error;
      // Apart in time, the two transactions that met will most likely not meet again.
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
  }
}
