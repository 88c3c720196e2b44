// User code's network goes through the service's egress proxy: with private egress allowed,
// every kind of client reaches loopback servers (http, https with SNI, net, tls, fetch, http2,
// pg-style server-first protocols); without it each is refused with EGRESS_REFUSED and nothing
// reaches the servers. DNS failures and refused connections keep Node's own error codes; UDP
// and listening are refused in every mode. Names resolve from /etc/hosts (localhost) or through
// a lookup injected into the proxy, so nothing is sent beyond loopback.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import dgram from "node:dgram";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import http2 from "node:http2";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { egressSettings } from "../../src/runner/egress/egress.js";
import { certificate } from "../helpers/tls-certificate.js";
import { createComponentRunner, type ComponentRunner } from "../../src/runtime/component-runner.js";
import type { ExecuteResult } from "../../src/runtime/code-runner.js";
import { fakeLookup, fakeResolver, PUBLIC_ADDRESS, type DnsTable } from "../helpers/fake-dns.js";
import { testRunnerSettings } from "../helpers/runner-settings.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

interface Servers {
  http: number;
  https: number;
  echo: number;
  h2c: number;
  h2: number;
  closed: number;
  udp: number;
}

/** Helpers available to the code under test, then its body: it emits { ok } or the error. */
const PRELUDE = `
  const text = (res) => new Promise((ok, fail) => { let t = ""; res.setEncoding("utf8"); res.on("data", (c) => (t += c)); res.on("end", () => ok(t)); res.on("error", fail); });
  const get = (mod, url, options) => new Promise((ok, fail) => {
    const done = (res) => text(res).then(ok, fail);
    (options ? require(mod).get(url, options, done) : require(mod).get(url, done)).on("error", fail);
  });
  const h2get = (url, options) => new Promise((ok, fail) => {
    const session = require("http2").connect(url, options);
    session.on("error", fail);
    const req = session.request({ ":path": "/" });
    req.on("error", fail);
    text(req).then((t) => { session.close(); ok(t); }, fail);
    req.end();
  });
`;
const probe = (body: string) =>
  `module.exports = { async run(event) { const { ports, ca } = event; ${PRELUDE} try { this.$emit({ ok: await (async () => { ${body} })() }); } catch (e) { this.$emit({ code: String(e && (e.code || (e.cause && e.cause.code)) || e), cause: e && e.cause && e.cause.code, message: String(e && e.message), syscall: e && e.syscall }); } } };`;

const listen = (server: net.Server) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));

describe("user code's network through the egress proxy", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-egress-run-"));
  const tls = certificate(dir);
  let open: TestApp;
  let closed: TestApp;
  let ports: Servers;
  let connections = 0;
  let datagrams = 0;
  const servers: Array<{ close(): unknown }> = [];

  before(async () => {
    const count = <T extends net.Server>(server: T): T => {
      server.on("connection", () => connections++);
      servers.push(server);
      return server;
    };
    const key = tls?.key ?? "";
    const cert = tls?.cert ?? "";
    const closedServer = net.createServer();
    const udp = dgram.createSocket("udp4", () => datagrams++);
    await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
    servers.push(udp);
    ports = {
      http: await listen(count(http.createServer((req, res) => res.end(`http ${req.method} ${req.url}`)))),
      https: await listen(
        count(
          tls
            ? https.createServer({ key, cert }, (req, res) =>
                res.end(`https sni=${(req.socket as { servername?: string | false }).servername}`),
              )
            : net.createServer(),
        ),
      ),
      // A server that speaks first, like SMTP, PostgreSQL's SSL answer or SSH.
      echo: await listen(
        count(
          net.createServer((socket) => {
            socket.write("banner;");
            socket.pipe(socket);
          }),
        ),
      ),
      h2c: await listen(count(http2.createServer((_req, res) => res.end("h2c")))),
      h2: await listen(count(tls ? http2.createSecureServer({ key, cert }, (_req, res) => res.end("h2")) : net.createServer())),
      closed: await listen(closedServer),
      udp: (udp.address() as AddressInfo).port,
    };
    await new Promise((resolve) => closedServer.close(resolve));
    open = await startTestApp("sqlite", { runTimeoutSeconds: 10, allowPrivateEgress: true, extraCaCertsFile: tls?.certFile });
    closed = await startTestApp("sqlite", { runTimeoutSeconds: 10, allowPrivateEgress: false });
  });
  after(async () => {
    await open?.close();
    await closed?.close();
    for (const server of servers) server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(
    app: TestApp,
    body: string,
  ): Promise<{ ok?: unknown; code?: string; cause?: string; message?: string; syscall?: string }> {
    const result: ExecuteResult = await app.sluice.services.runner.execute({
      userId: "u_egress",
      code: probe(body),
      entry: "run",
      event: { ports, ca: tls?.cert },
      props: {},
      state: {},
      context: { sourceId: "dc_egress" },
    });
    assert.equal(result.error, undefined, JSON.stringify(result.error));
    return result.emits[0]?.event as { ok?: unknown; code?: string };
  }

  const cleartext: Array<[string, string, string]> = [
    ["http.get", `return get("http", "http://127.0.0.1:" + ports.http + "/a")`, "http GET /a"],
    ["http.get by name", `return get("http", "http://localhost:" + ports.http + "/b")`, "http GET /b"],
    ["fetch", `return (await fetch("http://127.0.0.1:" + ports.http + "/c", { method: "POST", body: "x" })).text()`, "http POST /c"],
    ["http2 (h2c)", `return h2get("http://127.0.0.1:" + ports.h2c)`, "h2c"],
    [
      "net.connect: early writes arrive in order after the server's banner, connect fires once the tunnel is open",
      `const net = require("net");
       return await new Promise((ok, fail) => {
         const socket = net.connect(ports.echo, "127.0.0.1", () => { socket.write("late;"); });
         const connectingAtFirst = socket.connecting;
         socket.write("early;");
         let got = "";
         socket.on("data", (d) => { got += d; if (got.endsWith("late;")) { socket.end(); ok([connectingAtFirst, got, socket.remoteAddress, socket.remotePort === ports.echo]); } });
         socket.on("error", fail);
       })`,
      JSON.stringify([true, "banner;early;late;", "127.0.0.1", true]),
    ],
  ];
  const secure: Array<[string, string, string]> = [
    ["https.get with a CA", `return get("https", "https://127.0.0.1:" + ports.https + "/", { ca })`, "https sni=false"],
    [
      "https.get with servername (SNI)",
      `return get("https", { host: "127.0.0.1", port: ports.https, path: "/", servername: "sni.test", ca })`,
      "https sni=sni.test",
    ],
    ["fetch https (extra CA certificates)", `return (await fetch("https://localhost:" + ports.https + "/")).text()`, "https sni=localhost"],
    [
      "tls.connect with servername",
      `return await new Promise((ok, fail) => { const s = require("tls").connect({ host: "127.0.0.1", port: ports.https, servername: "sni.test", ca }, () => { ok([s.authorized, s.remoteAddress]); s.end(); }); s.on("error", fail); })`,
      JSON.stringify([true, "127.0.0.1"]),
    ],
    ["http2 over TLS", `return h2get("https://localhost:" + ports.h2, { ca })`, "h2"],
    [
      "tls.connect over a socket still opening its tunnel",
      `const raw = require("net").connect(ports.https, "127.0.0.1");
       return await new Promise((ok, fail) => { const s = require("tls").connect({ socket: raw, servername: "sni.test", ca }, () => { ok(s.authorized); s.end(); }); s.on("error", fail); })`,
      "true",
    ],
    [
      "tls.connect over a connected socket (a STARTTLS-style upgrade)",
      `return await new Promise((ok, fail) => {
         const raw = require("net").connect(ports.https, "127.0.0.1", () => { const s = require("tls").connect({ socket: raw, servername: "sni.test", ca }, () => { ok(s.authorized); s.end(); }); s.on("error", fail); });
         raw.on("error", fail);
       })`,
      "true",
    ],
  ];

  it("with private egress allowed, http, fetch, http2 and net reach loopback servers", async () => {
    for (const [what, body, expected] of cleartext) {
      const outcome = await run(open, body);
      assert.equal(
        typeof outcome.ok === "string" ? outcome.ok : JSON.stringify(outcome.ok),
        expected,
        `${what}: ${JSON.stringify(outcome)}`,
      );
    }
  });

  it(
    "with private egress allowed, https, tls and http2 over TLS reach loopback servers, SNI included",
    { skip: !tls && "openssl is not available" },
    async () => {
      for (const [what, body, expected] of secure) {
        const outcome = await run(open, body);
        assert.equal(
          typeof outcome.ok === "string" ? outcome.ok : JSON.stringify(outcome.ok),
          expected,
          `${what}: ${JSON.stringify(outcome)}`,
        );
      }
    },
  );

  it("without private egress, every client is refused with EGRESS_REFUSED and nothing reaches the servers", async () => {
    const before = connections;
    const bodies = [...cleartext, ...(tls ? secure : [])].map(([, body]) => body);
    bodies.push(`return new Promise((ok, fail) => require("dns").lookup("localhost", (e, a) => (e ? fail(e) : ok(a))))`);
    bodies.push(`return require("dns").promises.lookup("localhost", { all: true })`);
    for (const body of bodies) {
      const outcome = await run(closed, body);
      // http2 fails its pending request with ERR_HTTP2_STREAM_CANCEL caused by the refusal.
      assert.ok([outcome.code, outcome.cause].includes("EGRESS_REFUSED"), `${body}: ${JSON.stringify(outcome)}`);
    }
    assert.equal(connections, before);
  });

  it("DNS answers come from the proxy, in callback, promise and ESM forms", async () => {
    const lookups = await run(
      open,
      `const dns = require("dns"); return [await new Promise((ok, fail) => dns.lookup("localhost", (e, a, f) => (e ? fail(e) : ok(a + "/" + f)))), await dns.promises.lookup("localhost", { family: 4 })]`,
    );
    assert.deepEqual(lookups.ok, ["127.0.0.1/4", { address: "127.0.0.1", family: 4 }]);
    const result = await open.sluice.services.runner.execute({
      userId: "u_egress",
      code: `import { lookup } from "node:dns";\nexport default { run() { return new Promise((ok) => lookup("localhost", (e, a) => { this.$emit(e ? e.code : a); ok(); })); } };\n`,
      entry: "run",
      props: {},
      state: {},
      context: { sourceId: "dc_egress" },
    });
    assert.deepEqual(
      result.emits.map((e) => e.event),
      ["127.0.0.1"],
    );
  });

  it("a refused connection is ECONNREFUSED", async () => {
    const outcome = await run(
      open,
      `return new Promise((ok, fail) => require("net").connect(ports.closed, "127.0.0.1").on("connect", ok).on("error", fail))`,
    );
    assert.deepEqual(
      [outcome.code, outcome.syscall, outcome.message],
      ["ECONNREFUSED", "connect", `connect ECONNREFUSED 127.0.0.1:${ports.closed}`],
    );
    const fetched = await run(open, `return fetch("http://127.0.0.1:" + ports.closed + "/")`);
    assert.equal(fetched.code, "ECONNREFUSED");
  });

  it("UDP is refused in every mode, even when a lookup maps a public address to loopback", async () => {
    const bodies = [
      `require("dgram").createSocket({ type: "udp4", lookup: (h, o, cb) => cb(null, "127.0.0.1", 4) }).send("x", ports.udp, "8.8.8.8")`,
      `require("dgram").createSocket("udp4").send("x", ports.udp, "127.0.0.1")`,
      `new (require("dgram").Socket)("udp4").send("x", ports.udp, "127.0.0.1")`,
    ];
    for (const app of [open, closed]) {
      for (const body of bodies) {
        const outcome = await run(app, body);
        assert.equal(outcome.code, "EGRESS_UDP_REFUSED", body);
        assert.match(outcome.message ?? "", /UDP is not available/);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(datagrams, 0);
  });

  it("listening is refused outside the sandbox (inside it, its own network namespace hides it), and Unix sockets (the proxy's own included) stay closed", async () => {
    // Another runner's door: a fresh one of the proxy's doors folder stands for it.
    const proxyPath = (open.sluice.services.runner as ComponentRunner).egressDoorsDir + "/door/egress.sock";
    for (const app of [open, closed]) {
      const refused = app.sluice.services.runner.sandbox === "bwrap" ? undefined : "ERR_ACCESS_DENIED";
      assert.equal((await run(app, `require("http").createServer().listen(0)`)).code, refused);
      assert.equal((await run(app, `require("net").createServer().listen(0, "127.0.0.1")`)).code, refused);
      const unix = await run(
        app,
        `return new Promise((ok, fail) => require("net").connect(${JSON.stringify(proxyPath)}).on("connect", ok).on("error", fail))`,
      );
      assert.equal(unix.code, "EGRESS_REFUSED");
    }
  });
});

describe("the runner's network settings", () => {
  it("come from its arguments; in a bwrap sandbox (own network namespace) user code may listen", async () => {
    assert.deepEqual(
      egressSettings(["node", "main.js", "--egress-proxy=/tmp/x/egress.sock", "--allow-private-egress", "--sandbox=bwrap"]),
      { proxyPath: "/tmp/x/egress.sock", allowPrivate: true, sandboxed: true },
    );
    assert.deepEqual(egressSettings(["node", "main.js"]), { proxyPath: undefined, allowPrivate: false, sandboxed: false });
    const egressModule = new URL("../../src/runner/egress/egress.js", import.meta.url).href;
    const script = (flags: string[]) =>
      `import { egressSettings, installEgressGuard } from ${JSON.stringify(egressModule)}; import net from "node:net";
       installEgressGuard(egressSettings(${JSON.stringify(flags)}));
       try { const server = net.createServer().listen(0, "127.0.0.1", () => { console.log("listening"); server.close(); }); } catch (e) { console.log(e.code); }`;
    const outcome = (flags: string[]) =>
      execFileSync(process.execPath, ["--input-type=module", "-e", script(flags)], { encoding: "utf8" }).trim();
    assert.equal(outcome(["--sandbox=bwrap"]), "listening");
    assert.equal(outcome([]), "ERR_ACCESS_DENIED");
  });
});

describe("DNS failures through the egress proxy are named as DNS failures", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "sluice-egress-dns-"));
  const dns: DnsTable = {
    addresses: { "public.test": [{ address: PUBLIC_ADDRESS, family: 4 }] },
    records: { "mail.test": { MX: [{ exchange: "mx.mail.test", priority: 5 }] } },
  };
  let runner: ComponentRunner;
  before(() => {
    runner = createComponentRunner(
      testRunnerSettings(dataDir, {
        runTimeoutSeconds: 10,
        runMemoryMb: 64,
        egress: { lookup: fakeLookup(dns), resolver: fakeResolver(dns) },
      }),
    );
  });
  after(async () => {
    await runner.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function run(body: string): Promise<{ ok?: unknown; code?: string; message?: string; syscall?: string }> {
    const result = await runner.execute({
      userId: "u_dns",
      code: probe(body),
      entry: "run",
      event: {},
      props: {},
      state: {},
      context: { sourceId: "dc_dns" },
    });
    assert.equal(result.error, undefined, JSON.stringify(result.error));
    return result.emits[0]?.event as { ok?: unknown; code?: string };
  }

  it("connecting to a name that does not resolve fails with ENOTFOUND, not as a refusal", async () => {
    for (const body of [
      `return new Promise((ok, fail) => require("net").connect(443, "nowhere.test").on("connect", ok).on("error", fail))`,
      `return get("http", "http://nowhere.test/")`,
    ]) {
      const outcome = await run(body);
      assert.deepEqual(
        [outcome.code, outcome.syscall, outcome.message],
        ["ENOTFOUND", "getaddrinfo", "getaddrinfo ENOTFOUND nowhere.test"],
        body,
      );
    }
    const fetched = await run(`return fetch("http://nowhere.test/")`);
    assert.equal(fetched.code, "ENOTFOUND");
    assert.doesNotMatch(fetched.message ?? "", /private or loopback/);
  });

  it("dns.lookup, dns.resolve* and dns.Resolver answer from the proxy's resolver", async () => {
    const answers = await run(`
      const dns = require("dns");
      const mx = await new Promise((ok, fail) => dns.resolveMx("mail.test", (e, r) => (e ? fail(e) : ok(r))));
      const viaResolver = await new dns.promises.Resolver().resolve("mail.test", "MX");
      const found = await dns.promises.lookup("public.test");
      let missing;
      try { await dns.promises.lookup("nowhere.test"); } catch (e) { missing = [e.code, e.syscall, e.hostname]; }
      let nodata;
      await new Promise((ok) => new dns.Resolver().resolveTxt("mail.test", (e) => { nodata = [e.code, e.syscall]; ok(); }));
      return { mx, viaResolver, found, missing, nodata };
    `);
    assert.deepEqual(answers.ok, {
      mx: [{ exchange: "mx.mail.test", priority: 5 }],
      viaResolver: [{ exchange: "mx.mail.test", priority: 5 }],
      found: { address: PUBLIC_ADDRESS, family: 4 },
      missing: ["ENOTFOUND", "getaddrinfo", "nowhere.test"],
      nodata: ["ENODATA", "queryTxt"],
    });
  });
});
