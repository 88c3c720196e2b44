// Dedupe strategies on meta.id (docs/components.md, "Dedupe"). Pure: takes the stored state, returns the
// emits to keep and the next state.
import type { EmitRecord } from "../../runtime/code-runner.js";

export type DedupeStrategy = "unique" | "greatest" | "last" | null;
export const UNIQUE_IDS_KEPT = 100;

export interface DedupeState {
  unique?: string[];
  greatest?: string | number;
  last?: string;
}

const key = (id: string | number) => String(id);

function greater(a: string | number, b: string | number): boolean {
  const na = Number(a);
  const nb = Number(b);
  if (Number.isFinite(na) && Number.isFinite(nb) && String(a).trim() !== "" && String(b).trim() !== "") return na > nb;
  return String(a) > String(b);
}

export function applyDedupe(
  strategy: DedupeStrategy,
  emits: EmitRecord[],
  state: DedupeState,
): { emits: EmitRecord[]; state: DedupeState } {
  if (!strategy) return { emits, state };
  if (strategy === "unique") {
    const seen = [...(state.unique ?? [])];
    const set = new Set(seen);
    const kept = emits.filter((emit) => {
      if (emit.meta.id === undefined) return true;
      const id = key(emit.meta.id);
      if (set.has(id)) return false;
      set.add(id);
      seen.push(id);
      return true;
    });
    return { emits: kept, state: { ...state, unique: seen.slice(-UNIQUE_IDS_KEPT) } };
  }
  if (strategy === "greatest") {
    let greatest = state.greatest;
    const kept = emits.filter((emit) => {
      if (emit.meta.id === undefined) return true;
      if (greatest !== undefined && !greater(emit.meta.id, greatest)) return false;
      greatest = emit.meta.id;
      return true;
    });
    return { emits: kept, state: { ...state, greatest } };
  }
  // "last": only the emits after the one whose id was emitted last; all when none matches.
  const at = state.last === undefined ? -1 : emits.findIndex((emit) => emit.meta.id !== undefined && key(emit.meta.id) === state.last);
  const kept = at >= 0 ? emits.slice(at + 1) : emits;
  const withId = kept.filter((emit) => emit.meta.id !== undefined);
  const lastEmit = withId[withId.length - 1];
  return { emits: kept, state: lastEmit ? { ...state, last: key(lastEmit.meta.id as string | number) } : state };
}
