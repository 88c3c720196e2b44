// Values computed once per key and kept for the next time, at most `max` of them: the oldest
// goes when a new one would exceed it. For hot paths that meet the same few keys over and
// over (signing keys per secret, parsed webhook URLs, statement texts) but must not grow
// without bound if the keys turn out to be many.
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly max: number) {}

  /** The value of `key`, made by `make` the first time (and again after it was dropped). */
  get(key: K, make: (key: K) => V): V {
    let value = this.entries.get(key);
    if (value === undefined) {
      value = make(key);
      if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as K);
      this.entries.set(key, value);
    }
    return value;
  }
}
