// Every authenticated /v1 route, for the shared auth and tenant-isolation tests
// (test/http/common-routes.test.ts). Each resource adds its routes here.
//
// `path` may contain `{id}`: the shared tests fill it with an id of a resource that belongs
// to *another* account (made by `makeForeignResource`) and expect 404, and with nothing
// authenticated expect 401.
import type { Account } from "../helpers/test-app.js";
import { fixtureCode } from "../fixtures/components/sources/helpers.js";

export interface RouteCase {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  /** Builds a resource owned by `owner` and returns its id, for `{id}` routes. */
  makeForeignResource?: (owner: Account) => Promise<string>;
  /** For a `{…}` that names nothing an account owns (an OAuth app the operator configured): the value to fill in. */
  notOwned?: string;
  /** Query or JSON the route needs to get past validation (so a 404 is about ownership). */
  query?: (id: string) => Record<string, string>;
  json?: (id: string) => unknown;
}

async function makeSource(owner: Account): Promise<string> {
  const res = await owner.api.post("/sources", { component_code: fixtureCode("http-scripted.cjs") });
  return res.body.data.id;
}

async function makeWebhook(owner: Account): Promise<string> {
  const res = await owner.api.post("/webhooks", undefined, { url: "https://example.test/hook" });
  return res.body.data.id;
}

async function makeApiKey(owner: Account): Promise<string> {
  const res = await owner.api.post("/users/me/api_keys", { name: "foreign" });
  return res.body.data.id;
}

const WORKFLOW_STEP = "export default { async run({ steps, $ }) { return 1; } };";

async function makeWorkflow(owner: Account): Promise<string> {
  const res = await owner.api.post("/workflows", { steps: [{ code: WORKFLOW_STEP }] });
  return res.body.data.id;
}

const COMPONENT_CODE = 'module.exports = { key: "route-table-component", run() {} };';

async function makeComponent(owner: Account): Promise<string> {
  const res = await owner.api.post("/components", { component_code: COMPONENT_CODE });
  return res.body.data.id;
}

/** A saved (not published) component's key: readable by key by its owner only, never in the registry. */
async function makeComponentKey(owner: Account): Promise<string> {
  const key = `rt-component-${Math.random().toString(36).slice(2)}`;
  await owner.api.post("/components", { component_code: `module.exports = { key: "${key}", run() {} };` });
  return key;
}

async function makeAccount(owner: Account): Promise<string> {
  const res = await owner.api.post("/accounts", { app: "demo", credentials: { api_key: "foreign-secret" } });
  return res.body.data.id;
}

async function makeDataStore(owner: Account): Promise<string> {
  const res = await owner.api.post("/data_stores", { name: "foreign" });
  // The record routes' {key} is filled with the store's id too: a record at that key exists.
  await owner.api.put(`/data_stores/${res.body.data.id}/records/${res.body.data.id}`, { value: "theirs" });
  return res.body.data.id;
}

export const ROUTES: RouteCase[] = [
  { method: "GET", path: "/users/me" },
  { method: "POST", path: "/users/me/api_keys", json: () => ({ name: "shared tests" }) },
  { method: "GET", path: "/users/me/api_keys" },
  { method: "DELETE", path: "/users/me/api_keys/{id}", makeForeignResource: makeApiKey },
  { method: "POST", path: "/webhooks", query: () => ({ url: "https://example.test/x" }) },
  { method: "GET", path: "/users/me/webhooks" },
  { method: "GET", path: "/webhooks/{id}", makeForeignResource: makeWebhook },
  { method: "PUT", path: "/webhooks/{id}", makeForeignResource: makeWebhook, json: () => ({ name: "mine now" }) },
  { method: "DELETE", path: "/webhooks/{id}", makeForeignResource: makeWebhook },
  { method: "GET", path: "/webhooks/{id}/deliveries", makeForeignResource: makeWebhook },
  { method: "POST", path: "/webhooks/{id}/deliveries/resend", makeForeignResource: makeWebhook },
  { method: "POST", path: "/webhooks/{id}/deliveries/{delivery_id}/resend", makeForeignResource: makeWebhook },
  { method: "POST", path: "/webhooks/{id}/rotate_secret", makeForeignResource: makeWebhook },
  { method: "GET", path: "/users/me/subscriptions" },
  { method: "POST", path: "/subscriptions", query: () => ({ emitter_id: "dc_*", listener_id: "wh_unknown" }) },
  { method: "DELETE", path: "/subscriptions", query: () => ({ emitter_id: "dc_*", listener_id: "wh_unknown", event_name: "" }) },
  { method: "POST", path: "/auto_subscriptions", query: () => ({ listener_id: "wh_unknown", event_name: "default" }) },
  { method: "POST", path: "/workflows", json: () => ({ steps: [{ code: WORKFLOW_STEP }] }) },
  { method: "GET", path: "/users/me/workflows" },
  { method: "GET", path: "/workflows/{id}", makeForeignResource: makeWorkflow },
  { method: "PUT", path: "/workflows/{id}", makeForeignResource: makeWorkflow, json: () => ({ name: "mine now" }) },
  { method: "DELETE", path: "/workflows/{id}", makeForeignResource: makeWorkflow },
  { method: "GET", path: "/workflows/{id}/event_summaries", makeForeignResource: makeWorkflow },
  { method: "GET", path: "/workflows/{id}/$errors/event_summaries", makeForeignResource: makeWorkflow },
  { method: "POST", path: "/workflows/{id}/$errors/{event_id}/replay", makeForeignResource: makeWorkflow },
  { method: "GET", path: "/workflows/{id}/sse", makeForeignResource: makeWorkflow },
  { method: "GET", path: "/workflows/{id}/runs", makeForeignResource: makeWorkflow },
  { method: "GET", path: "/workflows/{id}/runs/{run_id}", makeForeignResource: makeWorkflow },
  { method: "POST", path: "/workflows/{id}/runs/{run_id}/resume", makeForeignResource: makeWorkflow, json: () => ({ data: 1 }) },
  { method: "POST", path: "/workflows/{id}/runs/{run_id}/cancel", makeForeignResource: makeWorkflow },
  { method: "POST", path: "/workflows/{id}/test", makeForeignResource: makeWorkflow, json: () => ({ event: {} }) },
  { method: "POST", path: "/components", json: () => ({ component_code: COMPONENT_CODE }) },
  { method: "GET", path: "/components/{id}", makeForeignResource: makeComponent },
  { method: "GET", path: "/components/{key}", makeForeignResource: makeComponentKey },
  { method: "GET", path: "/components/registry" },
  { method: "GET", path: "/components/registry/{key}", makeForeignResource: makeComponentKey },
  { method: "POST", path: "/components/{id}/props/{prop}/options", makeForeignResource: makeComponent, json: () => ({}) },
  { method: "POST", path: "/components/{id}/props/reload", makeForeignResource: makeComponent, json: () => ({}) },
  { method: "POST", path: "/components/registry/{key}/props/{prop}/options", makeForeignResource: makeComponentKey, json: () => ({}) },
  { method: "POST", path: "/components/registry/{key}/props/reload", makeForeignResource: makeComponentKey, json: () => ({}) },
  { method: "POST", path: "/accounts", json: () => ({ app: "demo", credentials: { api_key: "k" } }) },
  { method: "GET", path: "/users/me/accounts" },
  { method: "GET", path: "/accounts/{id}", makeForeignResource: makeAccount },
  { method: "PUT", path: "/accounts/{id}", makeForeignResource: makeAccount, json: () => ({ name: "mine now" }) },
  { method: "DELETE", path: "/accounts/{id}", makeForeignResource: makeAccount },
  { method: "GET", path: "/accounts/oauth_apps" },
  { method: "GET", path: "/accounts/oauth/{app}/start", notOwned: "unconfigured-app" },
  { method: "GET", path: "/users/me/sources" },
  { method: "GET", path: "/users/me/components" },
  { method: "POST", path: "/sources", json: () => ({ component_id: "sc_unknown" }) },
  { method: "GET", path: "/sources/{id}", makeForeignResource: makeSource },
  { method: "PUT", path: "/sources/{id}", makeForeignResource: makeSource, json: () => ({ component_id: "sc_unknown" }) },
  { method: "DELETE", path: "/sources/{id}", makeForeignResource: makeSource },
  { method: "GET", path: "/sources/{id}/event_summaries", makeForeignResource: makeSource },
  { method: "DELETE", path: "/sources/{id}/events", makeForeignResource: makeSource },
  { method: "GET", path: "/sources/{id}/sse", makeForeignResource: makeSource },
  { method: "POST", path: "/data_stores", json: () => ({ name: "shared tests" }) },
  { method: "GET", path: "/users/me/data_stores" },
  { method: "GET", path: "/data_stores/{id}", makeForeignResource: makeDataStore },
  { method: "DELETE", path: "/data_stores/{id}", makeForeignResource: makeDataStore },
  { method: "GET", path: "/data_stores/{id}/records", makeForeignResource: makeDataStore },
  { method: "GET", path: "/data_stores/{id}/records/{key}", makeForeignResource: makeDataStore },
  { method: "PUT", path: "/data_stores/{id}/records/{key}", makeForeignResource: makeDataStore, json: () => ({ value: "mine now" }) },
  { method: "DELETE", path: "/data_stores/{id}/records/{key}", makeForeignResource: makeDataStore },
];
