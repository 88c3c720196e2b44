// SLUICE_PUBLIC_URL: the address clients, webhook senders and OAuth providers reach this server
// at. It goes into HTTP endpoints' URLs, the OAuth callback and e-mail sources' domain, so a
// wrong one breaks them without an error anywhere else.
import type { Config } from "../../config.js";
import { fail, ok, warn, type CheckResult } from "./check.js";

const EXAMPLE = "https://sluice.example.com";
const isLoopback = (host: string) =>
  host === "localhost" || host.endsWith(".localhost") || /^127\./.test(host) || host === "[::1]" || host === "::1";

export function publicUrlCheck(config: Pick<Config, "publicUrl" | "host">, publicUrlSet: boolean): CheckResult {
  const name = "public URL";
  let url: URL;
  try {
    url = new URL(config.publicUrl);
  } catch {
    return fail(
      name,
      `SLUICE_PUBLIC_URL is not a URL: "${config.publicUrl}"`,
      `set SLUICE_PUBLIC_URL to the URL clients reach this server at, e.g. ${EXAMPLE}`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return fail(
      name,
      `SLUICE_PUBLIC_URL must be http or https, not ${url.protocol.replace(/:$/, "")}: "${config.publicUrl}"`,
      `set SLUICE_PUBLIC_URL to the URL clients reach this server at, e.g. ${EXAMPLE}`,
    );
  }
  if (url.search || url.hash || url.username || url.password) {
    return fail(
      name,
      `SLUICE_PUBLIC_URL must not carry a query, fragment or credentials: "${config.publicUrl}"`,
      `set SLUICE_PUBLIC_URL to scheme, host and port only, e.g. ${EXAMPLE}`,
    );
  }
  const listensBeyondLoopback = !isLoopback(config.host);
  if (isLoopback(url.hostname)) {
    if (listensBeyondLoopback) {
      return warn(
        name,
        `${config.publicUrl} names this machine's loopback while the server listens on ${config.host}: webhook senders and OAuth providers cannot reach it`,
        `set SLUICE_PUBLIC_URL to the address others reach this server at, e.g. ${EXAMPLE}`,
      );
    }
    return ok(name, `${config.publicUrl}${publicUrlSet ? "" : " (SLUICE_PUBLIC_URL unset)"}: reachable from this machine only`);
  }
  if (url.protocol === "http:") {
    return warn(
      name,
      `${config.publicUrl} is plain http: API keys and webhook secrets would cross the network unencrypted`,
      `serve https (TLS at a reverse proxy) and set SLUICE_PUBLIC_URL=https://${url.host}`,
    );
  }
  return ok(name, config.publicUrl);
}
