// A loopback webhook receiver for tests: records every request and answers as each path's
// behaviour says (status, headers, delay, or never).
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  hang?: boolean;
}

export type Behaviour = (req: Received, countForPath: number) => Answer;

export class Receiver {
  readonly received: Received[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly hanging = new Set<http.ServerResponse>();
  private server!: http.Server;
  url = "";

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const path = req.url ?? "/";
        const record: Received = { path, headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
        this.received.push(record);
        const count = this.received.filter((r) => r.path === path).length;
        const behaviour: Behaviour = this.behaviours.get(path) ?? (() => ({ status: 200, body: "ok" }));
        const answer = behaviour(record, count);
        if (answer.hang) {
          this.hanging.add(res);
          return;
        }
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? "");
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  on(path: string, behaviour: Behaviour): string {
    this.behaviours.set(path, behaviour);
    return this.url + path;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
