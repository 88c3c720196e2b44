// The web dashboard at /ui: static files built by `npm run build` (scripts/build-ui.mjs) into
// dist/ui, served by this server under a strict Content-Security-Policy. The dashboard calls
// the same /v1 API with the key the user types in; this route needs no key and holds no data.
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply } from "fastify";

// From dist/src/http/ to dist/ui/.
const UI_DIR = join(dirname(fileURLToPath(import.meta.url)), "../../ui");

const FILES: Record<string, string> = {
  "index.html": "text/html; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "app.js.map": "application/json; charset=utf-8",
  "app.css": "text/css; charset=utf-8",
  "favicon.svg": "image/svg+xml",
};

// Scripts only from this origin (no inline script, no eval); data reaches the page only as
// text. CodeMirror's styles are constructed stylesheets, which style-src does not govern.
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

async function sendFile(reply: FastifyReply, name: string) {
  const type = FILES[name];
  if (!type) return reply.status(404).send({ error: "not found", code: "NOT_FOUND" });
  let body: Buffer;
  try {
    body = await readFile(join(UI_DIR, name));
  } catch {
    return reply.status(503).send({ error: "the dashboard is not built: run `npm run build`", code: "UNAVAILABLE" });
  }
  return (
    reply
      .header("content-type", type)
      .header("content-security-policy", DASHBOARD_CSP)
      .header("x-content-type-options", "nosniff")
      .header("referrer-policy", "no-referrer")
      // File names do not change between builds, so the browser asks again each time.
      .header("cache-control", "no-cache")
      .send(body)
  );
}

export function installDashboard(app: FastifyInstance): void {
  // Someone opening the server's address in a browser lands on the dashboard, not a JSON 404.
  app.get("/", { schema: { hide: true } }, (_request, reply) => reply.redirect("/ui", 302));
  app.get("/ui", { schema: { hide: true } }, (_request, reply) => sendFile(reply, "index.html"));
  app.get<{ Params: { file: string } }>("/ui/:file", { schema: { hide: true } }, (request, reply) => sendFile(reply, request.params.file));
}
