// What `sluice init` writes: a small working component of each kind, meant to be edited.
export const TEMPLATES = {
  source: (key: string) => `// A source: it takes HTTP requests at its own URL and, once an hour, emits a heartbeat.
// Deploy it with \`sluice deploy <this file>\`; \`sluice dev <this file>\` redeploys on every save.
export default {
  key: "${key}",
  name: "${key}",
  version: "0.0.1",
  type: "source",
  props: {
    http: "$.interface.http",
    timer: { type: "$.interface.timer", default: { intervalSeconds: 3600 } },
  },
  async run(event) {
    if (event && event.method) {
      // An HTTP request: its body becomes the event.
      this.$emit({ body: event.body, path: event.path }, { summary: \`\${event.method} \${event.path}\` });
      return;
    }
    this.$emit({ heartbeat: Date.now() }, { summary: "heartbeat" });
  },
};
`,
  action: (key: string) => `// An action: run once per call with the props it is given, and returns its result.
// Save it to your account with \`sluice publish <this file>\`.
export default {
  key: "${key}",
  name: "${key}",
  version: "0.0.1",
  type: "action",
  props: {
    greeting: { type: "string", label: "Greeting", default: "hello" },
  },
  async run({ $ }) {
    $.export("$summary", \`said \${this.greeting}\`);
    return { said: this.greeting };
  },
};
`,
  step: (key: string) => `// A workflow step: it reads what the trigger and the steps before it returned (steps)
// and returns what the steps after it read.
import { defineComponent } from "@sluice/sdk";

export default defineComponent({
  key: "${key}",
  name: "${key}",
  version: "0.0.1",
  type: "action",
  props: {
    field: { type: "string", label: "Field of the trigger's event to pick", default: "body" },
  },
  async run({ steps, $ }) {
    const picked = steps.trigger?.event?.[this.field];
    $.export("$summary", \`picked \${this.field}\`);
    return picked;
  },
});
`,
} as const;

export type TemplateKind = keyof typeof TEMPLATES;
