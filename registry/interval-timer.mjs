// Emits the timer's run event on a schedule (every 15 minutes unless configured otherwise).
export default {
  key: "interval-timer",
  name: "Interval Timer",
  version: "1.0.0",
  description: "Emits an event on an interval or a cron schedule (UTC).",
  props: {
    timer: { type: "$.interface.timer", default: { intervalSeconds: 15 * 60 } },
  },
  run(event) {
    this.$emit(event, { id: event.timestamp, summary: `timer fired at ${new Date(event.timestamp * 1000).toISOString()}`, ts: event.timestamp * 1000 });
  },
};
