// Which credential fields an app's accounts hold, learned from the components the user can
// see: an app prop ({type: "app", app: "github"}) whose code reads `this.$auth.<field>` (or
// `$auth["<field>"]`) tells that a github account needs <field>. Apps no component describes
// get free key/value pairs instead.
import { api, enc, session } from "../api.js";

/** Components read at most, so that opening the page stays one quick round of requests. */
const MAX_COMPONENTS = 25;

/** Field names a component's code reads from `$auth`, in order of first use. */
export function authFieldsIn(code: string): string[] {
  const fields = new Set<string>();
  for (const match of code.matchAll(/\$auth(?:\??\.([A-Za-z_$][\w$]*)|\[\s*["'`]([^"'`]{1,128})["'`]\s*\])/g)) {
    fields.add((match[1] ?? match[2])!);
  }
  return [...fields];
}

/** How long what was learned is reused: the page is rendered again after every change. */
const REUSE_MS = 60_000;
let learned: { at: number; key: string | null; fields: Promise<Map<string, string[]>> } | undefined;

/** Known apps and their fields, from the user's own components (their app props and code). */
export function knownAppFields(): Promise<Map<string, string[]>> {
  // Learned anew for another key (another user logged in on this tab).
  if (!learned || learned.key !== session.key() || Date.now() - learned.at > REUSE_MS) {
    const fields = learnAppFields();
    learned = { at: Date.now(), key: session.key(), fields };
    fields.catch(() => (learned = undefined));
  }
  return learned.fields;
}

async function learnAppFields(): Promise<Map<string, string[]>> {
  const known = new Map<string, string[]>();
  const { data } = await api<{ data: { id: string }[] }>("GET", `/users/me/components?limit=${MAX_COMPONENTS}`);
  const components = await Promise.all(
    data.map((c) => api<{ data: { code: string; configurable_props: any[] } }>("GET", `/components/${enc(c.id)}`).catch(() => undefined)),
  );
  for (const component of components) {
    if (!component) continue;
    const { code, configurable_props } = component.data;
    const apps = configurable_props.filter((p) => p.type === "app").map((p) => String(p.app ?? p.name));
    if (apps.length === 0) continue;
    const fields = authFieldsIn(code).filter((f) => !f.startsWith("oauth_"));
    for (const app of apps) known.set(app, [...new Set([...(known.get(app) ?? []), ...fields])]);
  }
  return known;
}
