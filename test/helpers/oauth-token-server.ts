// A loopback OAuth 2 token endpoint for tests: records every request (headers and form body)
// and answers what the test's `answer` function says, optionally after a delay.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface TokenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  form: Record<string, string>;
}

export interface TokenAnswer {
  status: number;
  body: unknown;
  delayMs?: number;
}

export interface TokenServer {
  /** http://127.0.0.1:<port>/token */
  url: string;
  port: number;
  requests: TokenRequest[];
  /** What the next requests get; replace it per test. */
  answer: (request: TokenRequest) => TokenAnswer;
  close(): Promise<void>;
}

export async function startTokenServer(): Promise<TokenServer> {
  const requests: TokenRequest[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => {
      const request: TokenRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        form: Object.fromEntries(new URLSearchParams(text)),
      };
      requests.push(request);
      const answer = state.answer(request);
      setTimeout(() => {
        const body = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
        res.writeHead(answer.status, { "content-type": "application/json" }).end(body);
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const state: TokenServer = {
    url: `http://127.0.0.1:${port}/token`,
    port,
    requests,
    answer: () => ({ status: 500, body: { error: "server_error" } }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}
