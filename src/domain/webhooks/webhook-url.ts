import { invalid } from "../../lib/errors.js";

const MAX_URL_LENGTH = 2048;
/** Scheme, "//" and the first character of a host, as written (before any normalisation). */
const HTTP_URL_START = /^https?:\/\/[^/?#\\\s]/i;

/**
 * The spec's rule: a protocol, http or https, and a hostname; a path and a port are allowed.
 * The raw text is checked before parsing because the WHATWG parser repairs sloppy input
 * ("http:example.com", "https:///path", leading spaces) into a URL the user never wrote.
 * Where the URL may point (loopback, private ranges) is not a syntax question: the egress
 * guard decides it after DNS resolution (webhook-target.ts when the URL is set, the sender at
 * each attempt).
 */
export function validateWebhookUrl(raw: string): string {
  if (raw.length > MAX_URL_LENGTH) throw invalid(`url must be at most ${MAX_URL_LENGTH} characters`);
  if (!/^[a-z][a-z0-9+.-]*:/i.test(raw)) throw invalid("url must start with a protocol, http:// or https://");
  if (!/^https?:/i.test(raw)) throw invalid("url must use the http or https protocol");
  if (!HTTP_URL_START.test(raw)) throw invalid("url must be an absolute http or https URL with a hostname");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid("url must be an absolute http or https URL with a hostname");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid("url must use the http or https protocol");
  if (!url.hostname) throw invalid("url must include a hostname");
  return url.toString();
}
