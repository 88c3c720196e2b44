// Groups writes that arrive within one turn of the event loop (and while the previous group
// is being written) into one call, so many finished jobs cost a few statements, not a few
// each. Every caller's promise settles when its item's group has been written.
export interface Batcher<T> {
  add(item: T): Promise<void>;
}

export function createBatcher<T>(flush: (items: T[]) => Promise<void>, maxBatch = 500): Batcher<T> {
  let pending: Array<{ item: T; resolve: () => void; reject: (error: unknown) => void }> = [];
  let scheduled = false;
  let flushing = false;

  async function drain(): Promise<void> {
    flushing = true;
    try {
      while (pending.length > 0) {
        const group = pending.slice(0, maxBatch);
        pending = pending.slice(group.length);
        try {
          await flush(group.map((entry) => entry.item));
          for (const entry of group) entry.resolve();
        } catch (error) {
          for (const entry of group) entry.reject(error);
        }
      }
    } finally {
      flushing = false;
    }
  }

  return {
    add(item: T): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        pending.push({ item, resolve, reject });
        if (flushing || scheduled) return;
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          if (!flushing) void drain();
        });
      });
    },
  };
}
