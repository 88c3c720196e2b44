// A per-endpoint cap on concurrent requests, so a slow or dead endpoint holds at most a few
// of the worker's delivery slots and never delays deliveries to other endpoints. A delivery
// that finds its endpoint busy is put back in the queue for a moment instead of waiting.
export class EndpointLimiter {
  private readonly inUse = new Map<string, number>();
  constructor(private readonly perEndpoint: number) {}

  tryAcquire(key: string): boolean {
    const used = this.inUse.get(key) ?? 0;
    if (used >= this.perEndpoint) return false;
    this.inUse.set(key, used + 1);
    return true;
  }

  release(key: string): void {
    const used = (this.inUse.get(key) ?? 1) - 1;
    if (used <= 0) this.inUse.delete(key);
    else this.inUse.set(key, used);
  }
}
