// Emits an increasing counter on a schedule, kept in the source's $.service.db.
export default {
  key: "counter-timer",
  name: "Counter Timer",
  version: "1.0.0",
  description: "Emits {count} on a schedule; the count survives restarts in the source's db.",
  dedupe: "greatest",
  props: {
    db: "$.service.db",
    timer: { type: "$.interface.timer", default: { intervalSeconds: 60 } },
    start: { type: "integer", label: "Start", description: "The first count", default: 1, optional: true },
  },
  run() {
    const count = this.db.get("count") ?? Number(this.start ?? 1);
    this.db.set("count", count + 1);
    this.$emit({ count }, { id: count, summary: `count ${count}` });
  },
};
