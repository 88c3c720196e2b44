// Per job type, when its earliest not-yet-claimable job becomes claimable (ms), as last
// queried. A type is re-queried only when its future may have changed — jobs added for
// later, retries, a claim that filled a key, the safety poll, or a remembered time that has
// passed — so a busy stream of due-now jobs does not pay a scan per wake-up.
export class NextDueCache {
  private readonly at = new Map<string, number>();
  private readonly stale = new Set<string>();

  forgetAll(): void {
    this.at.clear();
  }

  markStale(type: string): void {
    this.stale.add(type);
  }

  /** The earliest next-due time over `types`, asking `query` for those not known for sure. */
  async earliest(types: Iterable<string>, now: number, query: (type: string) => Promise<number>): Promise<number> {
    let next = Infinity;
    const stale = new Set(this.stale);
    this.stale.clear();
    for (const type of types) {
      const remembered = this.at.get(type);
      if (remembered !== undefined && remembered > now && !stale.has(type)) {
        next = Math.min(next, remembered);
        continue;
      }
      this.at.delete(type);
      const due = await query(type);
      this.at.set(type, due);
      next = Math.min(next, due);
    }
    return next;
  }
}
