// A DNS question to the egress proxy: one GET on a fresh connection to its Unix socket, the
// JSON answer read to the end. Written on the raw socket rather than with node:http, so that
// user code patching http (instrumentation, mocks) cannot intercept or break it.
import net from "node:net";
import { parseReplyHead, proxyUnavailable } from "./proxy-errors.js";
import type { ProxyAccess } from "./proxy-handshake.js";

export interface QueryAnswer {
  status: number;
  headers: Map<string, string>;
  body: any;
}

const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export function queryProxy(proxy: ProxyAccess | undefined, pathAndQuery: string): Promise<QueryAnswer> {
  return new Promise((resolve, reject) => {
    if (!proxy) return reject(proxyUnavailable());
    const socket = new net.Socket();
    const chunks: Buffer[] = [];
    let size = 0;
    socket.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) socket.destroy(proxyUnavailable());
      else chunks.push(chunk);
    });
    socket.on("error", (error) => reject(proxyUnavailable(error)));
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const split = text.indexOf("\r\n\r\n");
      const head = split >= 0 ? parseReplyHead(text.slice(0, split)) : undefined;
      let body: unknown;
      try {
        body = JSON.parse(text.slice(split + 4));
      } catch {
        body = undefined;
      }
      if (!head || body === undefined) reject(proxyUnavailable());
      else resolve({ ...head, body });
    });
    proxy.connect.call(socket, { path: proxy.path });
    // Not half-closed: the proxy answers a client that keeps its side open, then closes.
    socket.write(`GET ${pathAndQuery} HTTP/1.1\r\nhost: egress-proxy\r\nconnection: close\r\n\r\n`);
  });
}
