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
  private readonly hanging = new Map<http.ServerResponse, Received>();
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
          this.hanging.set(res, record);
          // A sender that went away (closed or killed) can no longer be answered.
          res.once("close", () => this.hanging.delete(res));
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

  /**
   * A path that answers 200 and notes the key of each request it answered, until `hold()`:
   * from then on it holds its requests unanswered (a crash test's deliveries in flight), and
   * `release()` answers those whose sender is still connected and answers at once again.
   */
  holdable<K>(path: string, keyOf: (req: Received) => K): { url: string; answered: Set<K>; hold(): void; release(): void } {
    const answered = new Set<K>();
    let holding = false;
    const url = this.on(path, (req) => {
      if (holding) return { status: 200, hang: true };
      answered.add(keyOf(req));
      return { status: 200, body: "ok" };
    });
    const release = () => {
      holding = false;
      for (const [res, record] of this.hanging) {
        if (record.path !== path) continue;
        this.hanging.delete(res);
        res.writeHead(200).end("ok");
        answered.add(keyOf(record));
      }
    };
    return { url, answered, hold: () => void (holding = true), release };
  }

  async close(): Promise<void> {
    for (const res of this.hanging.keys()) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
