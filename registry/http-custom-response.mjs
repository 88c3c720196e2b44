// Emits every HTTP request and answers it with a configurable status and body.
export default {
  key: "http-custom-response",
  name: "HTTP Webhook with Custom Response",
  version: "1.0.0",
  description: "Emits each HTTP request and answers with the configured status code and JSON body.",
  props: {
    http: { type: "$.interface.http", customResponse: true },
    status: { type: "integer", label: "Status code", description: "The HTTP status of the answer", default: 200, optional: true },
    body: { type: "string", label: "Response body", description: "The body of the answer", default: "{\"ok\":true}", optional: true },
  },
  run(event) {
    this.http.respond({ status: this.status, headers: { "content-type": "application/json" }, body: this.body });
    this.$emit(event, { summary: `${event.method} ${event.path}` });
  },
};
