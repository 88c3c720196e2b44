// Prop definitions of Pipedream's built-in apps that its published apps do not carry. The
// `schedule` app (the sources schedule-custom-interval, -daily, -weekly, -monthly) defines no
// propDefinitions: Pipedream itself makes its `cron` prop a timer. Here it is one too, so such
// a source, which has no run(), emits each timer event as Pipedream does.
const BUILT_IN: Record<string, Record<string, Record<string, unknown>>> = {
  schedule: {
    cron: { type: "$.interface.timer", label: "Schedule", description: "an interval (intervalSeconds) or a cron schedule" },
  },
};

/** The built-in definition of `name` for an app object (`{type: "app", app: "schedule", …}`), if there is one. */
export function builtInDefinition(app: Record<string, any> | undefined, name: string): Record<string, unknown> | undefined {
  const slug = app && typeof app.app === "string" ? app.app : undefined;
  const definition = slug ? BUILT_IN[slug]?.[name] : undefined;
  return definition ? { ...definition } : undefined;
}
