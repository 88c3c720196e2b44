// Per-client limits of the inbound SMTP listener: at most 5 connections at once from one client
// address (421 on connect past them) and 60 messages a minute (451 at MAIL FROM past them),
// IPv6 clients counted by their /64, with the memory of the limiter bounded.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import type { Ctx } from "../../src/domain/context.js";
import { FakeClock } from "../../src/lib/clock.js";
import { clientKey, createClientLimits } from "../../src/smtp-inbound/client-limits.js";
import { startSmtpListener } from "../../src/smtp-inbound/smtp-listener.js";
import { SmtpDialog } from "../helpers/smtp-dialog.js";

const options = {
  host: "127.0.0.1",
  port: 0,
  name: "mail.sluice.test",
  maxMessageBytes: 4096,
  maxEventBytes: 4096,
  logger: pino({ level: "silent" }),
};

describe("per-client SMTP limits", () => {
  it("the 6th connection at once from one address gets 421; a place is free again once one closes", async () => {
    // Connecting and greeting never reach the domain: the context needs only a clock.
    const listener = await startSmtpListener({ ctx: { clock: new FakeClock() } as unknown as Ctx }, options);
    const open: SmtpDialog[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        const { dialog, greeting } = await SmtpDialog.open(listener.url);
        open.push(dialog);
        assert.match(greeting, /^220 /, `connection ${i + 1}`);
      }
      const sixth = await SmtpDialog.open(listener.url);
      open.push(sixth.dialog);
      assert.match(sixth.greeting, /^421 4\.7\.0 too many connections from your address/);
      open.shift()!.close();
      // The listener hears of the close a moment later: wait for the place, no fixed sleep.
      const deadline = Date.now() + 10_000;
      let greeting = "";
      while (!greeting.startsWith("220") && Date.now() < deadline) {
        const next = await SmtpDialog.open(listener.url);
        open.push(next.dialog);
        greeting = next.greeting;
      }
      assert.match(greeting, /^220 /);
    } finally {
      for (const dialog of open) dialog.close();
      await listener.close();
    }
  });

  it("the 61st message in a minute from one address gets 451 at MAIL FROM; the next minute it is taken again", async () => {
    const clock = new FakeClock();
    const listener = await startSmtpListener({ ctx: { clock } as unknown as Ctx }, options);
    const { dialog } = await SmtpDialog.open(listener.url);
    try {
      await dialog.command("EHLO sender.test");
      for (let i = 0; i < 60; i++) {
        assert.match(await dialog.command("MAIL FROM:<sender@sender.test>"), /^250 /, `message ${i + 1}`);
        await dialog.command("RSET");
      }
      assert.match(await dialog.command("MAIL FROM:<sender@sender.test>"), /^451 4\.7\.1 too many messages from your address/);
      clock.advance(59_000);
      assert.match(await dialog.command("MAIL FROM:<sender@sender.test>"), /^451 /, "still the same minute");
      clock.advance(1_000);
      assert.match(await dialog.command("MAIL FROM:<sender@sender.test>"), /^250 /);
    } finally {
      dialog.close();
      await listener.close();
    }
  });

  it("counts each address apart (IPv4-mapped as IPv4, IPv6 by its /64), in windows of the injected clock", () => {
    const clock = new FakeClock();
    const limits = createClientLimits({ maxConnections: 2, maxMessagesPerWindow: 3, now: () => clock.now() });
    assert.equal(limits.connect("127.0.0.1"), true);
    assert.equal(limits.connect("::ffff:127.0.0.1"), true);
    assert.equal(limits.connect("127.0.0.1"), false, "the mapped address is the same client");
    assert.equal(limits.connect("::1"), true, "another address has its own count");
    limits.disconnect("127.0.0.1");
    assert.equal(limits.connect("127.0.0.1"), true);
    assert.equal(limits.connect("2001:db8:1:2::10"), true);
    assert.equal(limits.connect("2001:db8:1:2:ffff::7"), true);
    assert.equal(limits.connect("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), false, "the same /64");
    assert.equal(limits.connect("2001:db8:1:3::10"), true, "another /64");

    for (let i = 0; i < 3; i++) assert.equal(limits.message("127.0.0.1"), true);
    assert.equal(limits.message("127.0.0.1"), false);
    assert.equal(limits.message("::1"), true);
    clock.advance(60_000);
    assert.equal(limits.message("127.0.0.1"), true, "a new minute");

    assert.equal(clientKey("::1"), "0:0:0:0::/64");
    assert.equal(clientKey("2001:DB8::1"), "2001:db8:0:0::/64");
    assert.equal(clientKey("fe80::1:2:3:4"), "fe80:0:0:0::/64");
    assert.equal(clientKey("::ffff:192.0.2.1"), "192.0.2.1");
  });

  it("keeps at most maxTrackedClients message windows: many addresses cannot grow its memory", () => {
    const clock = new FakeClock();
    const limits = createClientLimits({ maxConnections: 5, maxMessagesPerWindow: 1, maxTrackedClients: 100, now: () => clock.now() });
    for (let i = 0; i < 10_000; i++) limits.message(`10.0.${i >> 8}.${i & 255}`);
    assert.ok(limits.trackedClients() <= 100, `${limits.trackedClients()} tracked`);
    // The newest are still counted.
    assert.equal(limits.message("10.0.39.15"), false);
  });
});
