// Emits every HTTP request its endpoint receives; the endpoint answers 200 at once.
export default {
  key: "http-webhook",
  name: "HTTP Webhook",
  version: "1.0.0",
  description: "Emits each HTTP request sent to the source's endpoint (method, path, query, headers, body).",
  props: {
    http: "$.interface.http",
  },
  run(event) {
    const summary = `${event.method} ${event.path}`;
    this.$emit(event, { summary, ts: Date.now() });
  },
};
