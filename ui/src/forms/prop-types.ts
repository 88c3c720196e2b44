// The shapes the props form works with: a prop as the API lists it, a field, an option.
export interface ConfigurableProp {
  name: string;
  type: string;
  label?: string;
  description?: string;
  optional?: boolean;
  default?: unknown;
  options?: unknown[];
  secret?: boolean;
  min?: number;
  max?: number;
  app?: string;
  appProp?: string;
  alertType?: string;
  content?: string;
  remoteOptions?: boolean;
  /** A change of this prop's value asks the API for the props anew (additionalProps()). */
  reloadProps?: boolean;
  useQuery?: boolean;
}

/** A field of the form: its element and how it reads its value (undefined: not configured). */
export interface Field {
  element: HTMLElement;
  read(): unknown;
}

/** An option as Pipedream gives it: a value, or {label, value}. */
export function optionParts(option: unknown): { label: string; value: unknown } {
  if (option && typeof option === "object" && "value" in option) {
    const o = option as { label?: unknown; value: unknown };
    return { label: String(o.label ?? JSON.stringify(o.value)), value: o.value };
  }
  return { label: typeof option === "string" ? option : JSON.stringify(option), value: option };
}
