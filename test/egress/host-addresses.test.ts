// The host's own interface addresses and the documentation ranges under the egress guard:
// unit tests with an injected interface list (nothing is dialled), and the reader of the
// real interfaces checked against os.networkInterfaces() without any connection.
import assert from "node:assert/strict";
import os from "node:os";
import { describe, it } from "node:test";
import {
  assertEgressAllowed,
  guardedLookup,
  isForbiddenAddress,
  normalizeHostLiteral,
  refusedLiteralHost,
} from "../../src/egress/egress-guard.js";
import { createHostAddresses, HOST_ADDRESSES_REFRESH_MS, systemHostAddresses } from "../../src/egress/host-addresses.js";
import { resolveTarget } from "../../src/egress/egress-target.js";
import { fakeLookup } from "../helpers/fake-dns.js";

// Stand-ins for a host's public interface addresses: public space, never dialled here.
const HOST_V4 = "192.88.99.20";
const HOST_V6 = "2606:4700:90::20";

describe("the documentation ranges", () => {
  it("are refused, IPv4 in any spelling and inside IPv6, and 2001:db8::/32", () => {
    for (const ip of [
      "192.0.2.1",
      "192.0.2.255",
      "198.51.100.7",
      "198.51.100.0",
      "203.0.113.9",
      "203.0.113.255",
      "3221225985",
      "::ffff:198.51.100.7",
      "64:ff9b::203.0.113.9",
      "2002:c000:201::1",
      "2001:db8::1",
      "2001:db8:ffff::1",
    ]) {
      assert.equal(isForbiddenAddress(ip), true, ip);
      assert.ok(refusedLiteralHost(ip, false), ip);
      assert.equal(refusedLiteralHost(ip, true), undefined, `${ip} with private egress allowed`);
    }
    for (const ip of ["192.0.3.1", "198.51.101.1", "203.0.114.1", "198.52.100.1", "2001:db9::1"])
      assert.equal(isForbiddenAddress(ip), false, ip);
  });
});

describe("the host's own addresses", () => {
  const hosts = createHostAddresses({ read: () => [HOST_V4, HOST_V6, "fe80::1%eth0", "not an address"] });

  it("are refused when passed in, in any spelling, IPv4 also inside IPv6; other public addresses pass", () => {
    hosts.close();
    for (const ip of [
      HOST_V4,
      "0xc0586314",
      "3227018004",
      "::ffff:192.88.99.20",
      "64:ff9b::c058:6314",
      "2002:c058:6314::1",
      HOST_V6,
      "2606:4700:90:0:0:0:0:20",
      "[2606:4700:90::20]",
    ]) {
      assert.equal(isForbiddenAddress(ip, hosts), true, ip);
      assert.equal(isForbiddenAddress(ip), false, `${ip} is public when the host's addresses are not given`);
      assert.ok(refusedLiteralHost(ip, false, hosts), ip);
      assert.equal(refusedLiteralHost(ip, true, hosts), undefined, `${ip} with private egress allowed`);
    }
    assert.equal(isForbiddenAddress("192.88.99.21", hosts), false);
    assert.equal(isForbiddenAddress("2606:4700:90::21", hosts), false);
  });

  it("are refused for names that resolve to them: the proxy's resolution, the guarded lookup, assertEgressAllowed", async () => {
    const lookup = fakeLookup({
      addresses: { "self.test": [{ address: HOST_V4, family: 4 }], "other.test": [{ address: "192.88.99.21", family: 4 }] },
    });
    await assert.rejects(resolveTarget("self.test", { allowPrivate: false, lookup, hostAddresses: hosts }), {
      code: "EGRESS_REFUSED",
      address: HOST_V4,
    });
    await assert.rejects(resolveTarget(HOST_V6, { allowPrivate: false, lookup, hostAddresses: hosts }), { code: "EGRESS_REFUSED" });
    assert.deepEqual(await resolveTarget("self.test", { allowPrivate: true, lookup, hostAddresses: hosts }), [
      { address: HOST_V4, family: 4 },
    ]);
    assert.deepEqual(await resolveTarget("other.test", { allowPrivate: false, lookup, hostAddresses: hosts }), [
      { address: "192.88.99.21", family: 4 },
    ]);
    // The guarded lookup of service-side requests: localhost's answer stands for a name that
    // resolves to an address of the host (127.0.0.1 given as one), checked before any connect.
    const onlyHost = { has: (address: string) => address === "::1" || address === "127.0.0.1" };
    const refused = await new Promise<Error | null>((resolve) =>
      guardedLookup(false, onlyHost)("localhost", { all: true }, (err) => resolve(err)),
    );
    assert.equal((refused as NodeJS.ErrnoException | null)?.code, "EGRESS_REFUSED");
    await assert.rejects(assertEgressAllowed(new URL(`https://[${HOST_V6}]/token`), false, hosts), { code: "EGRESS_REFUSED" });
    await assertEgressAllowed(new URL(`https://[${HOST_V6}]/token`), true, hosts);
  });

  it("are read again: an address added later is refused after the refresh, one removed is not", () => {
    let current = [HOST_V4];
    const changing = createHostAddresses({ read: () => current, refreshMs: 60_000 });
    try {
      assert.equal(isForbiddenAddress(HOST_V4, changing), true);
      current = ["192.88.99.30"];
      changing.refresh();
      assert.equal(isForbiddenAddress("192.88.99.30", changing), true);
      assert.equal(isForbiddenAddress(HOST_V4, changing), false);
      // A failing read keeps the last list rather than opening the host up.
      current = [];
      const failing = createHostAddresses({
        read: () => {
          if (current.length === 0) throw new Error("no interfaces to read");
          return current;
        },
      });
      failing.close();
      assert.deepEqual(failing.list(), []);
      current = ["192.88.99.31"];
      failing.refresh();
      current = [];
      failing.refresh();
      assert.deepEqual(failing.list(), ["192.88.99.31"]);
    } finally {
      changing.close();
    }
  });

  it("re-reads on its timer, at least every 60 s", async () => {
    let reads = 0;
    const timed = createHostAddresses({ read: () => (reads++, [HOST_V4]), refreshMs: 20 });
    try {
      const started = reads;
      await new Promise<void>((resolve) => {
        const poll = setInterval(() => reads >= started + 2 && (clearInterval(poll), resolve()), 5);
      });
    } finally {
      timed.close();
    }
    assert.ok(HOST_ADDRESSES_REFRESH_MS <= 60_000);
  });

  it("by default are every address of this machine's interfaces (compared, never dialled)", () => {
    const expected = Object.values(os.networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .map((entry) => normalizeHostLiteral(entry.address))
      .filter((address): address is string => address !== undefined);
    const system = systemHostAddresses();
    system.refresh();
    for (const address of expected) assert.equal(system.has(address), true, address);
    for (const address of expected) assert.equal(isForbiddenAddress(address, system), true, address);
  });
});
