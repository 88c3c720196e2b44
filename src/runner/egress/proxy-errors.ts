// The errors user code sees when the egress proxy could not do what it asked: the ones Node
// itself raises for the same cause (code, syscall, hostname or address and port), and the
// guard's EgressRefusedError for a refusal, so code written against plain Node handles them.
import { getSystemErrorMap } from "node:util";
import { EgressRefusedError } from "../../egress/egress-guard.js";
import {
  ADDRESS_HEADER,
  EGRESS_REFUSED,
  EGRESS_TUNNEL_LIMIT,
  ERROR_HEADER,
  SYSCALL_HEADER,
  TUNNEL_LIMIT_HEADER,
  TUNNEL_LIMIT_MESSAGE,
} from "../../egress/egress-protocol.js";

export interface ProxyReply {
  status: number;
  headers: Map<string, string>;
}

/** The status line and headers of a proxy response, or undefined when it is not HTTP. */
export function parseReplyHead(head: string): ProxyReply | undefined {
  const [statusLine = "", ...lines] = head.split("\r\n");
  const match = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine);
  if (!match) return undefined;
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: Number(match[1]), headers };
}

let errnos: Map<string, number> | undefined;

function errnoOf(code: string): number | undefined {
  errnos ??= new Map([...getSystemErrorMap()].map(([errno, [name]]) => [name, errno]));
  return errnos.get(code);
}

/** An error shaped like Node's system errors: "<syscall> <code> <where>". */
export function systemError(
  code: string,
  syscall: string,
  details: { hostname?: string; address?: string; port?: number },
): NodeJS.ErrnoException {
  const where = details.hostname ?? (details.port !== undefined ? `${details.address}:${details.port}` : details.address);
  const error: NodeJS.ErrnoException = new Error(`${syscall} ${code}${where ? ` ${where}` : ""}`);
  Object.assign(error, { errno: errnoOf(code), code, syscall, ...details });
  return error;
}

/** Why a CONNECT through the proxy failed, as the error Node would raise connecting directly. */
export function connectError(reply: ProxyReply, host: string, port: number): Error {
  const code = reply.headers.get(ERROR_HEADER) ?? `EGRESS_PROXY_${reply.status}`;
  if (code === EGRESS_REFUSED) return new EgressRefusedError(host, reply.headers.get(ADDRESS_HEADER));
  if (code === EGRESS_TUNNEL_LIMIT) return tunnelLimitError(reply, host, port);
  const syscall = reply.headers.get(SYSCALL_HEADER) ?? "connect";
  return systemError(code, syscall, syscall === "getaddrinfo" ? { hostname: host } : { address: host, port });
}

/** The account holds as many tunnels as it may: no Node error fits, so the message says it all. */
function tunnelLimitError(reply: ProxyReply, host: string, port: number): NodeJS.ErrnoException {
  const limit = reply.headers.get(TUNNEL_LIMIT_HEADER);
  const error: NodeJS.ErrnoException = new Error(
    `connect to ${host}:${port} refused: ${TUNNEL_LIMIT_MESSAGE}${limit ? ` (at most ${limit})` : ""}; close connections no longer needed`,
  );
  Object.assign(error, { code: EGRESS_TUNNEL_LIMIT, syscall: "connect", address: host, port });
  return error;
}

/** The proxy was not reachable or answered something that is not a proxy answer. */
export function proxyUnavailable(cause?: unknown): NodeJS.ErrnoException {
  const detail = (cause as NodeJS.ErrnoException | undefined)?.code;
  const error: NodeJS.ErrnoException = new Error(`the egress proxy is not available${detail ? ` (${detail})` : ""}`, { cause });
  error.code = "EGRESS_PROXY_UNAVAILABLE";
  return error;
}
