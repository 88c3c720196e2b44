// Unit tests of the egress proxy on a temporary Unix socket: CONNECT tunnels under the egress
// guard, each failure cause named, hostile input answered without stopping the proxy, and
// plain HTTP forwarding (DNS answers: egress-proxy-dns.test.ts). Names resolve through an
// injected lookup, so no test sends anything beyond loopback.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createEgressProxy, type EgressProxy, type EgressProxyOptions } from "../../src/egress/egress-proxy.js";
import { fakeLookup, PUBLIC_ADDRESS } from "../helpers/fake-dns.js";

const lookup = fakeLookup({
  addresses: {
    "public.test": [{ address: PUBLIC_ADDRESS, family: 4 }],
    "loopback.test": [{ address: "127.0.0.1", family: 4 }],
    "mixed.test": [
      { address: PUBLIC_ADDRESS, family: 4 },
      { address: "10.0.0.1", family: 4 },
    ],
  },
});

interface Exchange {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function parse(text: string): Exchange {
  const split = text.indexOf("\r\n\r\n");
  const [statusLine = "", ...lines] = text.slice(0, split < 0 ? text.length : split).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) headers[line.slice(0, line.indexOf(":")).toLowerCase()] = line.slice(line.indexOf(":") + 1).trim();
  return { status: Number(statusLine.split(" ")[1]), headers, body: split < 0 ? "" : text.slice(split + 4) };
}

/** Writes `request` raw and reads until the proxy closes (or `until` matches). */
function exchange(
  socketPath: string,
  request: string | Buffer,
  until?: (text: string) => boolean,
): Promise<Exchange & { socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let text = "";
    const done = () => resolve({ ...parse(text), socket });
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
      if (until?.(text)) done();
    });
    socket.on("end", done);
    socket.on("close", done);
    socket.on("error", reject);
    socket.write(request);
  });
}

const connectTo = (port: number, host = "127.0.0.1") => `CONNECT ${host}:${port} HTTP/1.1\r\nhost: ${host}:${port}\r\n\r\n`;
const replyEnded = (text: string) => text.includes("\r\n\r\n");

async function dnsQuery(socketPath: string, path: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get({ socketPath, path, agent: false }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
      })
      .on("error", reject);
  });
}

describe("egress proxy", () => {
  let dir: string;
  let echo: net.Server;
  let echoPort: number;
  let echoConnections = 0;
  let banner: net.Server;
  let bannerPort: number;
  let web: http.Server;
  let webPort: number;
  const proxies: EgressProxy[] = [];

  async function proxy(options: Partial<EgressProxyOptions> = {}): Promise<EgressProxy> {
    const started = await createEgressProxy({
      socketPath: join(dir, `p${proxies.length}.sock`),
      allowPrivateEgress: false,
      lookup,
      ...options,
    });
    proxies.push(started);
    return started;
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "sluice-egress-test-"));
    echo = net.createServer((socket) => {
      echoConnections++;
      socket.pipe(socket);
    });
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    echoPort = (echo.address() as AddressInfo).port;
    // A server that speaks first (SMTP, PostgreSQL's SSL answer, SSH, an h2c SETTINGS frame).
    banner = net.createServer((socket) => {
      socket.write("banner;");
      socket.pipe(socket);
    });
    await new Promise<void>((resolve) => banner.listen(0, "127.0.0.1", resolve));
    bannerPort = (banner.address() as AddressInfo).port;
    web = http.createServer((req, res) =>
      res.end(`${req.method} ${req.url} host=${req.headers.host} proxy-connection=${req.headers["proxy-connection"] ?? "-"}`),
    );
    await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
    webPort = (web.address() as AddressInfo).port;
  });
  after(async () => {
    for (const started of proxies) await started.close();
    echo.close();
    banner.close();
    web.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("listens on a socket anyone may connect to, and removes it on close", async () => {
    const started = await proxy();
    assert.equal(statSync(started.socketPath).mode & 0o777, 0o777);
    await started.close();
    assert.equal(existsSync(started.socketPath), false);
  });

  it("refuses CONNECT to loopback and private addresses by default, in any spelling and by name", async () => {
    const { socketPath } = await proxy();
    const before = echoConnections;
    for (const host of ["127.0.0.1", "0x7f000001", "[::1]", "[::ffff:127.0.0.1]", "loopback.test", "mixed.test"]) {
      const reply = await exchange(socketPath, connectTo(echoPort, host) + "early bytes");
      assert.equal(reply.status, 403, host);
      assert.equal(reply.headers["x-sluice-egress-error"], "EGRESS_REFUSED", host);
      assert.match(reply.body, /refused/);
    }
    assert.equal(echoConnections, before, "nothing reached the loopback listener");
  });

  it("tunnels with private egress allowed, forwarding bytes sent before the tunnel opened, in order", async () => {
    const { socketPath } = await proxy({ allowPrivateEgress: true });
    const socket = net.connect(socketPath);
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString("latin1")));
    // The request and the first bytes in one write, more bytes before any answer.
    socket.write(connectTo(echoPort) + "one,");
    socket.write("two,");
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.write("three");
    const deadline = Date.now() + 5000;
    while (!text.endsWith("one,two,three") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const reply = parse(text);
    assert.equal(reply.status, 200);
    assert.equal(reply.headers["x-sluice-address"], "127.0.0.1");
    assert.equal(reply.headers["x-sluice-port"], String(echoPort));
    assert.equal(reply.body, "one,two,three");
    // Half-close travels through: the echo server ends, and so does the tunnel.
    socket.end();
    await new Promise((resolve) => socket.on("close", resolve));
  });

  it("with x-sluice-ack, holds the server's first bytes until the client's ack byte, which it drops", async () => {
    const { socketPath } = await proxy({ allowPrivateEgress: true });
    const request = `CONNECT 127.0.0.1:${bannerPort} HTTP/1.1\r\nx-sluice-ack: 1\r\n\r\n`;
    const tunnel = await exchange(socketPath, request, replyEnded);
    assert.equal(tunnel.status, 200);
    let after = "";
    tunnel.socket.on("data", (chunk) => (after += chunk.toString("latin1")));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(tunnel.body, "", "nothing follows the answer before the ack");
    assert.equal(after, "");
    tunnel.socket.write("\x06hello;");
    const deadline = Date.now() + 5000;
    while (!after.endsWith("banner;hello;") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(after, "banner;hello;");
    tunnel.socket.destroy();
    // Anything but the ack byte first closes the tunnel.
    const wrong = await exchange(socketPath, request, replyEnded);
    const closedTunnel = new Promise((resolve) => wrong.socket.on("close", resolve));
    wrong.socket.write("hello");
    await closedTunnel;
  });

  it("names each failure: DNS, connection refused, timeout", async () => {
    const { socketPath } = await proxy({ allowPrivateEgress: true, connectTimeoutMs: 300 });
    const dns = await exchange(socketPath, connectTo(443, "nowhere.test"));
    assert.equal(dns.status, 502);
    assert.equal(dns.headers["x-sluice-egress-error"], "ENOTFOUND");
    assert.equal(dns.headers["x-sluice-egress-syscall"], "getaddrinfo");

    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await exchange(socketPath, connectTo(closedPort));
    assert.equal(refused.status, 502);
    assert.equal(refused.headers["x-sluice-egress-error"], "ECONNREFUSED");
    assert.equal(refused.headers["x-sluice-egress-syscall"], "connect");

    // A stopped process's listener with a full accept queue leaves new connects hanging.
    const { child, port, fillers } = await stalledListener();
    try {
      const timedOut = await exchange(socketPath, connectTo(port));
      assert.equal(timedOut.status, 504);
      assert.equal(timedOut.headers["x-sluice-egress-error"], "ETIMEDOUT");
    } finally {
      for (const filler of fillers) filler.destroy();
      child.kill("SIGKILL");
    }
  });

  it("answers malformed and oversized requests with 400 and 431 and keeps serving", async () => {
    const { socketPath } = await proxy({ allowPrivateEgress: true });
    const cases: Array<[string | Buffer, number]> = [
      ["GARBAGE\r\n\r\n", 400],
      ["CONNECT nonsense HTTP/1.1\r\n\r\n", 400],
      ["CONNECT 127.0.0.1:0 HTTP/1.1\r\n\r\n", 400],
      ["CONNECT 127.0.0.1:99999 HTTP/1.1\r\n\r\n", 400],
      ["CONNECT evil\r\nx:1 HTTP/1.1\r\n\r\n", 400],
      ["CONNECT user@host:80 HTTP/1.1\r\n\r\n", 400],
      [`GET /dns/lookup HTTP/1.1\r\nx-big: ${"a".repeat(9000)}\r\n\r\n`, 431],
      [Buffer.from([0, 1, 2, 255, 13, 10, 13, 10]), 400],
      ["GET /dns/lookup?host=a%20b HTTP/1.1\r\nconnection: close\r\n\r\n", 400],
      ["GET /dns/resolve?host=public.test&rrtype=AXFR HTTP/1.1\r\nconnection: close\r\n\r\n", 400],
      ["GET https://public.test/ HTTP/1.1\r\nconnection: close\r\n\r\n", 400],
      ["POST /dns/lookup?host=public.test HTTP/1.1\r\ncontent-length: 0\r\nconnection: close\r\n\r\n", 405],
    ];
    for (const [request, status] of cases) {
      const reply = await exchange(socketPath, request);
      const what = JSON.stringify(String(request).slice(0, 60));
      assert.equal(reply.status, status, what);
      assert.ok(reply.headers["x-sluice-egress-error"], what);
    }
    // A client that opens a request and vanishes mid-header, and one that closes at once.
    net.connect(socketPath).end("CONNECT 127.0.0.1:");
    net.connect(socketPath).destroy();
    const still = await dnsQuery(socketPath, "/dns/lookup?host=public.test");
    assert.equal(still.status, 200);
  });

  it("forwards plain HTTP requests in absolute form under the same guard", async () => {
    const refusing = await proxy();
    const request = `GET http://127.0.0.1:${webPort}/path?q=1 HTTP/1.1\r\nhost: 127.0.0.1:${webPort}\r\nproxy-connection: keep-alive\r\nconnection: close\r\n\r\n`;
    const refused = await exchange(refusing.socketPath, request);
    assert.equal(refused.status, 403);
    assert.equal(refused.headers["x-sluice-egress-error"], "EGRESS_REFUSED");
    const allowing = await proxy({ allowPrivateEgress: true });
    const forwarded = await exchange(allowing.socketPath, request);
    assert.equal(forwarded.status, 200);
    assert.equal(forwarded.body, `GET /path?q=1 host=127.0.0.1:${webPort} proxy-connection=-`);
  });

  it("ends open tunnels on close", async () => {
    const started = await proxy({ allowPrivateEgress: true });
    const tunnel = await exchange(started.socketPath, connectTo(echoPort), replyEnded);
    assert.equal(tunnel.status, 200);
    const closed = new Promise((resolve) => tunnel.socket.on("close", resolve));
    await started.close();
    await closed;
  });
});

/** A loopback listener that accepts nothing more: its process is stopped and its queue full. */
async function stalledListener(): Promise<{ child: ChildProcess; port: number; fillers: net.Socket[] }> {
  const child = spawn(
    process.execPath,
    [
      "-e",
      `const s = require("net").createServer().listen({ port: 0, host: "127.0.0.1", backlog: 1 }, () => console.log(s.address().port))`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const port = Number(await new Promise<string>((resolve) => child.stdout!.once("data", (data) => resolve(String(data).trim()))));
  process.kill(child.pid!, "SIGSTOP");
  const fillers: net.Socket[] = [];
  for (let i = 0; i < 16; i++) {
    const filler = net.connect(port, "127.0.0.1");
    filler.on("error", () => {});
    fillers.push(filler);
    const connected = await new Promise<boolean>((resolve) => {
      filler.once("connect", () => resolve(true));
      setTimeout(() => resolve(false), 200);
    });
    if (!connected) break;
  }
  return { child, port, fillers };
}
