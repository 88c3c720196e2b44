// Unit tests of the egress guard: literal spellings, forbidden ranges, and the lookup wrapper.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import {
  EGRESS_REFUSED_MESSAGE,
  assertEgressAllowed,
  guardedLookup,
  isForbiddenAddress,
  normalizeHostLiteral,
  refusedLiteralHost,
} from "../../src/egress/egress-guard.js";

describe("normalizeHostLiteral", () => {
  const cases: Array<[string, string | undefined]> = [
    ["127.0.0.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["0X7F000001", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["0x7f.0.0.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["127.0.1", "127.0.0.1"],
    ["10.0x10000", "10.1.0.0"],
    ["127.0.0.1.", "127.0.0.1"],
    ["[::1]", "::1"],
    ["::1", "::1"],
    ["[0:0:0:0:0:0:0:1]", "::1"],
    ["::ffff:127.0.0.1", "::ffff:7f00:1"],
    ["[::ffff:7f00:1]", "::ffff:7f00:1"],
    ["FE80::1%eth0", "fe80::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["example.com", undefined],
    ["localhost", undefined],
    ["256.0.0.1", undefined],
    ["1.2.3.4.5", undefined],
    ["08.0.0.1", undefined],
    ["4294967296", undefined],
    ["1::2::3", undefined],
    ["", undefined],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${String(expected)}`, () => {
      assert.equal(normalizeHostLiteral(input), expected);
    });
  }

  it("agrees with the WHATWG URL parser on IPv4 spellings", () => {
    for (const host of ["2130706433", "0x7f000001", "0177.0.0.1", "127.1", "10.0x10000", "3232235777"]) {
      assert.equal(normalizeHostLiteral(host), new URL(`http://${host}/`).hostname, host);
    }
  });
});

describe("isForbiddenAddress", () => {
  const forbidden = [
    "127.0.0.1",
    "127.255.255.254",
    "0.0.0.0",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "100.64.0.1",
    "100.127.255.255",
    "169.254.169.254",
    "169.254.0.1",
    "100.100.100.200",
    "224.0.0.1",
    "239.255.255.250",
    "255.255.255.255",
    "2130706433",
    "0x7f000001",
    "0177.0.0.1",
    "127.1",
    "::",
    "::1",
    "[::1]",
    "fe80::1",
    "febf::1",
    "fc00::1",
    "fd00:ec2::254",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "::127.0.0.1",
    "::7f00:1",
    "64:ff9b::127.0.0.1",
    "64:ff9b::a9fe:a9fe",
    "64:ff9b::10.0.0.1",
    "2002:7f00:1::1",
    "not an ip",
    "localhost",
  ];
  const allowed = [
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "192.169.0.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "2002:808:808::1",
  ];
  for (const ip of forbidden) it(`refuses ${ip}`, () => assert.equal(isForbiddenAddress(ip), true));
  for (const ip of allowed) it(`allows ${ip}`, () => assert.equal(isForbiddenAddress(ip), false));
});

describe("refusedLiteralHost (the rule every egress path applies to IP literals)", () => {
  it("refuses forbidden literals in any spelling, passes public ones and names, and allows all with private egress", () => {
    for (const host of [
      "127.0.0.1",
      "2130706433",
      "0x7f000001",
      "0177.0.0.1",
      "127.1",
      "[::1]",
      "[::ffff:127.0.0.1]",
      "169.254.169.254",
      "10.1.2.3",
    ]) {
      const refused = refusedLiteralHost(host, false);
      assert.ok(refused, host);
      assert.equal(refused.code, "EGRESS_REFUSED");
      assert.equal(refusedLiteralHost(host, true), undefined, `${host} with private egress allowed`);
    }
    assert.equal(refusedLiteralHost("93.184.216.34", false), undefined);
    assert.equal(refusedLiteralHost("example.com", false), undefined, "names are checked after DNS resolution instead");
  });
});

describe("guardedLookup and assertEgressAllowed", () => {
  let server: http.Server;
  let port = 0;
  before(async () => {
    server = http.createServer((_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const lookupP = (allow: boolean, host: string, options: object) =>
    new Promise<{ err: Error | null; address: unknown; family?: number }>((resolve) =>
      guardedLookup(allow)(host, options, (err, address, family) => resolve({ err, address, family })),
    );

  it("refuses localhost unless private egress is allowed, in both result shapes", async () => {
    const refused = await lookupP(false, "localhost", {});
    assert.equal(refused.err?.message, EGRESS_REFUSED_MESSAGE);
    const refusedAll = await lookupP(false, "localhost", { all: true });
    assert.equal(refusedAll.err?.message, EGRESS_REFUSED_MESSAGE);
    const ok = await lookupP(true, "localhost", { family: 4 });
    assert.equal(ok.err, null);
    assert.equal(ok.address, "127.0.0.1");
    assert.equal(ok.family, 4);
    const okAll = await lookupP(true, "localhost", { all: true, family: 4 });
    assert.deepEqual(okAll.address, [{ address: "127.0.0.1", family: 4 }]);
  });

  it("blocks an http request through an agent using the guarded lookup", async () => {
    const get = (allow: boolean) =>
      new Promise<string>((resolve, reject) => {
        const agent = new http.Agent({ lookup: guardedLookup(allow) as never });
        http
          .get({ host: "localhost", port, family: 4, agent }, (res) => {
            res.resume();
            res.on("end", () => resolve(String(res.statusCode)));
          })
          .on("error", reject);
      });
    await assert.rejects(get(false), { message: EGRESS_REFUSED_MESSAGE });
    assert.equal(await get(true), "200");
  });

  it("assertEgressAllowed refuses literal and resolved private hosts", async () => {
    for (const url of [
      "http://127.0.0.1/",
      "http://2130706433/",
      "http://[::1]/",
      "http://[::ffff:7f00:1]/",
      "http://localhost/",
      "http://0x7f.1/",
    ]) {
      await assert.rejects(assertEgressAllowed(new URL(url), false), { message: EGRESS_REFUSED_MESSAGE }, url);
      await assertEgressAllowed(new URL(url), true);
    }
    await assert.rejects(assertEgressAllowed(new URL("file:///etc/passwd"), true));
    await assertEgressAllowed(new URL("http://8.8.8.8/"), false); // literal: no network used
  });
});
