// DNS answers of the egress proxy (GET /dns/...), from an injected lookup and resolver: the
// guard applies to answers holding addresses, and DNS failures keep their code and syscall.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createEgressProxy, type EgressProxy } from "../../src/egress/egress-proxy.js";
import { fakeLookup, fakeResolver, PUBLIC_ADDRESS, type DnsTable } from "../helpers/fake-dns.js";

const dns: DnsTable = {
  addresses: {
    "public.test": [{ address: PUBLIC_ADDRESS, family: 4 }],
    "loopback.test": [{ address: "127.0.0.1", family: 4 }],
    "mixed.test": [
      { address: PUBLIC_ADDRESS, family: 4 },
      { address: "10.0.0.1", family: 4 },
    ],
  },
  records: {
    "mail.test": { MX: [{ exchange: "mx.mail.test", priority: 10 }] },
    "public.test": { A: [PUBLIC_ADDRESS] },
    "loopback.test": { A: ["127.0.0.1"] },
  },
  names: { [PUBLIC_ADDRESS]: ["public.test"] },
};

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

describe("egress proxy DNS answers", () => {
  let dir: string;
  const proxies: EgressProxy[] = [];

  async function proxy(allowPrivateEgress = false): Promise<EgressProxy> {
    const started = await createEgressProxy({
      socketPath: join(dir, `p${proxies.length}.sock`),
      allowPrivateEgress,
      lookup: fakeLookup(dns),
      resolver: fakeResolver(dns),
    });
    proxies.push(started);
    return started;
  }

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "sluice-egress-dns-test-"));
  });
  after(async () => {
    for (const started of proxies) await started.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers DNS lookups under the guard, naming DNS failures", async () => {
    const { socketPath } = await proxy();
    const found = await dnsQuery(socketPath, "/dns/lookup?host=public.test&family=0");
    assert.deepEqual(found.body, { addresses: [{ address: PUBLIC_ADDRESS, family: 4 }] });
    const private_ = await dnsQuery(socketPath, "/dns/lookup?host=mixed.test");
    assert.equal(private_.status, 403);
    assert.equal(private_.body.error.code, "EGRESS_REFUSED");
    const missing = await dnsQuery(socketPath, "/dns/lookup?host=nowhere.test");
    assert.equal(missing.status, 502);
    assert.deepEqual([missing.body.error.code, missing.body.error.syscall], ["ENOTFOUND", "getaddrinfo"]);
    const allowing = await proxy(true);
    const loopback = await dnsQuery(allowing.socketPath, "/dns/lookup?host=loopback.test");
    assert.deepEqual(loopback.body, { addresses: [{ address: "127.0.0.1", family: 4 }] });
  });

  it("answers DNS queries by record type, reverse lookups, and refuses private answers", async () => {
    const { socketPath } = await proxy();
    const mx = await dnsQuery(socketPath, "/dns/resolve?host=mail.test&rrtype=MX");
    assert.deepEqual(mx.body, { records: [{ exchange: "mx.mail.test", priority: 10 }] });
    const ttl = await dnsQuery(socketPath, "/dns/resolve?host=public.test&rrtype=A&ttl=1");
    assert.deepEqual(ttl.body, { records: [{ address: PUBLIC_ADDRESS, ttl: 60 }] });
    const loopback = await dnsQuery(socketPath, "/dns/resolve?host=loopback.test&rrtype=A");
    assert.equal(loopback.status, 403);
    const nodata = await dnsQuery(socketPath, "/dns/resolve?host=public.test&rrtype=TXT");
    assert.equal(nodata.status, 502);
    assert.deepEqual([nodata.body.error.code, nodata.body.error.syscall], ["ENODATA", "queryTxt"]);
    const reverse = await dnsQuery(socketPath, `/dns/reverse?address=${PUBLIC_ADDRESS}`);
    assert.deepEqual(reverse.body, { hostnames: ["public.test"] });
    const privateReverse = await dnsQuery(socketPath, "/dns/reverse?address=10.0.0.1");
    assert.equal(privateReverse.body.error.code, "EGRESS_REFUSED");
  });
});
