// What client commands share: the client from the settings, --prop parsing, and the
// --json switch.
import { ApiClient } from "../client/api-client.js";
import { UsageError } from "../errors.js";
import { loadClientSettings } from "../client/settings.js";

export const client = (): ApiClient => new ApiClient(loadClientSettings());

/** Collects repeated `--prop key=value`; the value is JSON when it parses, else the string. */
export function collectProp(value: string, previous: Record<string, unknown> = {}): Record<string, unknown> {
  const at = value.indexOf("=");
  if (at <= 0) throw new UsageError(`--prop takes key=value, got "${value}"`);
  const raw = value.slice(at + 1);
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // a plain string
  }
  return { ...previous, [value.slice(0, at)]: parsed };
}

export interface JsonOption {
  json?: boolean;
}

/** Source fields shown after deploy and update: where it takes HTTP requests and e-mail. */
export function sourceLines(source: { id: string; name: string; configured_props?: Record<string, any>; active?: boolean }): string {
  const shown = (field: string): string | undefined =>
    Object.values(source.configured_props ?? {}).find((value) => value && typeof value === "object" && typeof value[field] === "string")?.[
      field
    ];
  const endpoint = shown("endpoint_url");
  const email = shown("email_address");
  return (
    [
      `id:       ${source.id}`,
      `name:     ${source.name}`,
      ...(endpoint ? [`endpoint: ${endpoint}`] : []),
      ...(email ? [`email:    ${email}`] : []),
      ...(source.active === false ? ["active:   false"] : []),
    ].join("\n") + "\n"
  );
}
