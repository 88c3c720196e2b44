// Service-side fetches of component code (component_url and the relative imports it makes).
// Every request goes through the egress guard: the literal host is checked first, and names
// are checked after resolution by the guarded lookup the connection itself uses.
import http from "node:http";
import https from "node:https";
import { assertEgressAllowed, guardedLookup, type AddressSet } from "../../egress/egress-guard.js";
import { systemHostAddresses } from "../../egress/host-addresses.js";
import { ServiceError, invalid } from "../../lib/errors.js";

const MAX_CODE_BYTES = 2 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 5;

/** GitHub `blob` page URLs point at HTML; the raw file lives on raw.githubusercontent.com. */
export function rawCodeUrl(url: string): string {
  const match = /^https?:\/\/(?:www\.)?github\.com\/([^/]+)\/([^/]+)\/blob\/(.+)$/i.exec(url);
  if (!match) return url;
  const [, owner, repo, rest] = match;
  return `https://raw.githubusercontent.com/${owner}/${repo}/${rest!.replace(/[?#].*$/, "")}`;
}

export function parseCodeUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(rawCodeUrl(url));
  } catch {
    throw invalid(`component_url is not a valid URL: ${url}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw invalid("component_url must use http or https");
  return parsed;
}

/** Fetches the text at `url`: a VALIDATION error when it cannot be had (bad URL, refused, non-2xx). */
export interface FetchCodeOptions {
  allowPrivate: boolean;
  /** The host's own addresses, refused like private ones (the system's interfaces by default). */
  hostAddresses?: AddressSet;
}

export async function fetchComponentCode(url: string, options: FetchCodeOptions): Promise<string> {
  const found = await fetchCodeIfFound(url, options);
  if (found === undefined) throw invalid(`could not fetch ${url}: HTTP 404`);
  return found;
}

/** As fetchComponentCode, but undefined when the server has no such file (404 or 410). */
export async function fetchCodeIfFound(url: string, options: FetchCodeOptions): Promise<string | undefined> {
  const hostAddresses = options.hostAddresses ?? systemHostAddresses();
  let target = parseCodeUrl(url);
  for (let redirects = 0; ; redirects++) {
    try {
      await assertEgressAllowed(target, options.allowPrivate, hostAddresses);
    } catch (error) {
      throw invalid(`could not fetch ${url}: ${(error as Error).message}`);
    }
    const result = await get(target, options.allowPrivate, hostAddresses).catch((error: Error) => {
      throw invalid(`could not fetch ${url}: ${error.message}`);
    });
    if (result.location && redirects < MAX_REDIRECTS) {
      target = parseCodeUrl(new URL(result.location, target).toString());
      continue;
    }
    if (result.status === 404 || result.status === 410) return undefined;
    if (result.status < 200 || result.status > 299) throw invalid(`could not fetch ${url}: HTTP ${result.status}`);
    return result.body;
  }
}

function get(url: URL, allowPrivate: boolean, hostAddresses: AddressSet): Promise<{ status: number; location?: string; body: string }> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(
      url,
      { lookup: guardedLookup(allowPrivate, hostAddresses) as any, timeout: FETCH_TIMEOUT_MS },
      (response) => {
        const status = response.statusCode ?? 0;
        const location = status >= 300 && status < 400 ? response.headers.location : undefined;
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_CODE_BYTES) request.destroy(new ServiceError("PAYLOAD_TOO_LARGE", "component code is larger than 2 MB"));
          else chunks.push(chunk);
        });
        response.on("end", () => resolve({ status, location, body: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", reject);
      },
    );
    request.on("timeout", () => request.destroy(new Error("timed out")));
    request.on("error", reject);
  });
}
