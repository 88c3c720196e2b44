// The one way the dashboard builds DOM: data only ever becomes text nodes or attribute values,
// never markup, so whatever user code emits is shown as text and never runs.
export type Child = Node | string | number | null | undefined | false | Child[];

type Attrs = Record<string, string | boolean | number | undefined | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") node.addEventListener(name.replace(/^on/, ""), value);
    else if (name === "value" && "value" in node) (node as HTMLInputElement).value = String(value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replaces a node's content. */
export function mount(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

export const json = (value: unknown) => JSON.stringify(value, null, 2);

/** Timestamps in the API are Unix seconds in some places and milliseconds in others. */
export const time = (t: number) =>
  new Date(t < 1e11 ? t * 1000 : t)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "Z");

/** A collapsed JSON view: the first line shows a preview, opening it shows everything. */
export function jsonView(value: unknown, label?: string): HTMLElement {
  const preview = JSON.stringify(value) ?? "undefined";
  return h(
    "details",
    { class: "json" },
    h("summary", {}, label ? h("b", {}, label, " ") : null, preview.length > 120 ? `${preview.slice(0, 120)}…` : preview),
    h("pre", {}, json(value)),
  );
}

export function errorBox(error: unknown): HTMLElement {
  return h("p", { class: "error", role: "alert" }, error instanceof Error ? error.message : String(error));
}
