// Shared auth and tenant-isolation tests, applied to every route of test/http/route-table.ts
// (each resource adds its routes there): no, malformed or unknown key → JSON 401; another
// account's id → 404; another account's resources never appear in lists.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { request, type TestResponse } from "../helpers/http-client.js";
import { ADMIN_TOKEN, startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { ROUTES, type RouteCase } from "./route-table.js";

const BAD_AUTH: Record<string, Record<string, string>> = {
  "no key": {},
  "empty bearer": { authorization: "Bearer " },
  "another scheme": { authorization: "Basic dXNlcjpwYXNz" },
  "malformed key": { authorization: "Bearer not-a-key" },
  "key with trailing junk": { authorization: `Bearer sk_sluice_${"a".repeat(40)}%00` },
  "unknown key": { authorization: `Bearer sk_sluice_${"A".repeat(40)}` },
  "the admin token": { authorization: `Bearer ${ADMIN_TOKEN}` },
};

const label = (route: RouteCase) => `${route.method} ${route.path}`;
const fill = (path: string, id: string) => path.replace(/\{[^}]+\}/g, encodeURIComponent(id));

function send(app: TestApp, route: RouteCase, id: string, headers: Record<string, string>): Promise<TestResponse> {
  return request(app.baseUrl, route.method, fill(route.path, id), {
    headers,
    query: route.query?.(id),
    json: route.json?.(id),
  });
}

function assertJsonError(res: TestResponse, status: number, what: string): void {
  assert.equal(res.status, status, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
  assert.match(res.headers.get("content-type") ?? "", /application\/json/, what);
  assert.equal(typeof res.body?.error, "string", what);
}

for (const dialect of DIALECTS) {
  describe(`common route tests [${dialect}]`, () => {
    let app: TestApp;
    let owner: Account;
    let stranger: Account;
    /** Ids of `owner`'s resources, made for the {id} routes, by route. */
    const foreignIds = new Map<RouteCase, string>();

    before(async () => {
      app = await startTestApp(dialect);
      owner = await app.newAccount();
      stranger = await app.newAccount();
      for (const route of ROUTES) {
        if (route.makeForeignResource) foreignIds.set(route, await route.makeForeignResource(owner));
      }
    });
    after(async () => app.close());

    it("the route table is not empty and every {id} route can make a resource", () => {
      assert.ok(ROUTES.length >= 10);
      for (const route of ROUTES) {
        if (!/\{[^}]+\}/.test(route.path)) continue;
        if (route.notOwned !== undefined) continue;
        assert.ok(route.makeForeignResource, `${label(route)} needs makeForeignResource`);
        assert.equal(typeof foreignIds.get(route), "string", `${label(route)}: makeForeignResource returned an id`);
      }
    });

    it("every route answers a JSON 401 to a missing, malformed or unknown key", async () => {
      for (const route of ROUTES) {
        const id = foreignIds.get(route) ?? route.notOwned ?? "wh_unknown";
        for (const [what, headers] of Object.entries(BAD_AUTH)) {
          const res = await send(app, route, id, headers);
          assertJsonError(res, 401, `${label(route)} with ${what}`);
        }
      }
    });

    it("{id} routes answer 404 'record not found' for another account's id, and leave it alone", async () => {
      for (const route of ROUTES) {
        const id = foreignIds.get(route);
        if (!id) continue;
        const res = await send(app, route, id, { authorization: `Bearer ${stranger.apiKey}` });
        assertJsonError(res, 404, `${label(route)} by another account`);
        assert.equal(res.body.error, "record not found");
      }
      // Nothing was deleted by those requests: the owner still reads each resource, through
      // a GET route of the same kind (one whose resource is made by the same function).
      for (const route of ROUTES) {
        const id = foreignIds.get(route);
        const reader = ROUTES.find((r) => r.method === "GET" && r.makeForeignResource === route.makeForeignResource);
        if (!id || !reader) continue;
        const res = await send(app, reader, id, { authorization: `Bearer ${owner.apiKey}` });
        assert.ok(
          res.status >= 200 && res.status < 300,
          `${label(reader)} by the owner after ${label(route)}: ${res.status} ${res.text.slice(0, 200)}`,
        );
      }
    });

    it("{id} routes answer 404 for an id that does not exist", async () => {
      for (const route of ROUTES) {
        const id = foreignIds.get(route);
        if (!id) continue;
        const unknown = `${id.slice(0, id.indexOf("_") + 1)}doesnotexist0000`;
        const res = await send(app, route, unknown, { authorization: `Bearer ${stranger.apiKey}` });
        assertJsonError(res, 404, `${label(route)} with an unknown id`);
      }
    });

    it("another account's resources never appear in lists", async () => {
      const ids = [...foreignIds.values()];
      assert.ok(ids.length > 0);
      // Another resource of the owner made with the list routes' own POSTs is not needed:
      // every {id} route made one above, and those are what a leak would show.
      for (const route of ROUTES) {
        if (route.method !== "GET" || /\{[^}]+\}/.test(route.path)) continue;
        const res = await send(app, route, "", { authorization: `Bearer ${stranger.apiKey}` });
        assert.equal(res.status, 200, `${label(route)}: ${res.text.slice(0, 200)}`);
        for (const id of ids) assert.ok(!res.text.includes(id), `${label(route)} shows another account's ${id}`);
        assert.ok(!res.text.includes(owner.id), `${label(route)} shows another account's user id`);
      }
    });

    it("every authenticated /v1 route in the OpenAPI document is in the route table", async () => {
      const doc = (await request(app.baseUrl, "GET", "/openapi.json")).body;
      const shape = (path: string) => path.replace(/\{[^}]+\}/g, "{}").replace(/\/+$/, "");
      const known = new Set(ROUTES.map((r) => `${r.method} ${shape(r.path)}`));
      const missing: string[] = [];
      for (const [path, operations] of Object.entries<Record<string, unknown>>(doc.paths)) {
        if (!path.startsWith("/v1/") || path.startsWith("/v1/admin/")) continue;
        for (const method of Object.keys(operations)) {
          const upper = method.toUpperCase();
          if (!["GET", "POST", "PUT", "DELETE", "PATCH"].includes(upper)) continue;
          const relative = path.slice("/v1".length);
          if (known.has(`${upper} ${shape(relative)}`)) continue;
          // Not in the table: only allowed for routes that need no API key.
          const res = await request(app.baseUrl, upper, fill(relative, "x_unknown"));
          if (res.status === 401) missing.push(`${upper} ${relative}`);
        }
      }
      assert.deepEqual(missing, [], "add these routes to test/http/route-table.ts");
    });
  });
}
