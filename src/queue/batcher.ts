// Groups work that arrives within one turn of the event loop (and while the previous group
// is being handled) into one call, so many finished jobs cost a few statements, not a few
// each, and many deliveries load in one query. Every caller's promise settles when its item's
// group has been handled, with the item's result when `flush` gives one per item.
export interface Batcher<T, R = void> {
  add(item: T): Promise<R>;
}

/**
 * `lingerMs`: under load (the previous group had several items), how long the first item of
 * a group waits for others; otherwise, and with 0, it waits until the end of this round of
 * I/O. Worth it only for writes nobody waits on to go on, where fewer, larger groups mean
 * fewer commits; a lone write is not held back to land on the path of the next piece of
 * work. A group reaching `maxBatch` is written at once.
 */
export function createBatcher<T, R = void>(flush: (items: T[]) => Promise<R[] | void>, maxBatch = 500, lingerMs = 0): Batcher<T, R> {
  let pending: Array<{ item: T; resolve: (result: R) => void; reject: (error: unknown) => void }> = [];
  let scheduled = false;
  let flushing = false;
  let timer: NodeJS.Timeout | undefined;
  let lastGroupSize = 0;

  async function drain(): Promise<void> {
    flushing = true;
    try {
      while (pending.length > 0) {
        const group = pending.slice(0, maxBatch);
        pending = pending.slice(group.length);
        lastGroupSize = group.length;
        try {
          const results = await flush(group.map((entry) => entry.item));
          group.forEach((entry, i) => entry.resolve(results?.[i] as R));
        } catch (error) {
          for (const entry of group) entry.reject(error);
        }
      }
    } finally {
      flushing = false;
    }
  }

  return {
    add(item: T): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        pending.push({ item, resolve, reject });
        if (flushing) return;
        if (timer && pending.length >= maxBatch) {
          clearTimeout(timer);
          timer = undefined;
          scheduled = false;
        }
        if (scheduled) return;
        scheduled = true;
        const start = () => {
          scheduled = false;
          timer = undefined;
          if (!flushing) void drain();
        };
        if (lingerMs > 0 && lastGroupSize > 1 && pending.length < maxBatch) timer = setTimeout(start, lingerMs);
        else setImmediate(start);
      });
    },
  };
}
