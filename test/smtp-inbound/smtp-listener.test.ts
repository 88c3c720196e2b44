// The SMTP transport on its own: STARTTLS offered only with a certificate and working with it,
// the replies each kind of refusal gets, and how an event is made to fit SLUICE_MAX_EVENT_BYTES.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import nodemailer from "nodemailer";
import { pino } from "pino";
import testTlsOptions from "smtp-server/lib/tls-options.js";
import type { Ctx } from "../../src/domain/context.js";
import { fitEvent, parseEmail } from "../../src/domain/inbound-email/email-event.js";
import { ServiceError } from "../../src/lib/errors.js";
import { serviceErrorSmtpReply, temporaryFailure } from "../../src/smtp-inbound/smtp-replies.js";
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
// EHLO and STARTTLS never reach the domain: no context is needed for them.
const services = { ctx: {} as Ctx };

describe("SMTP listener", () => {
  it("offers STARTTLS only with a certificate, and upgrades with it", async () => {
    // smtp-server's own test certificate for localhost, as the PEM files an operator would give.
    const dir = mkdtempSync(join(tmpdir(), "sluice-smtp-tls-"));
    const { cert, key } = testTlsOptions();
    writeFileSync(join(dir, "cert.pem"), String(cert));
    writeFileSync(join(dir, "key.pem"), String(key));
    const plain = await startSmtpListener(services, options);
    const secure = await startSmtpListener(services, {
      ...options,
      tls: { certFile: join(dir, "cert.pem"), keyFile: join(dir, "key.pem") },
    });
    try {
      const { dialog } = await SmtpDialog.open(plain.url);
      assert.doesNotMatch(await dialog.command("EHLO client.test"), /STARTTLS/);
      dialog.close();
      const second = await SmtpDialog.open(secure.url);
      const ehlo = await second.dialog.command("EHLO client.test");
      assert.match(ehlo, /^250[- ]STARTTLS$/m);
      assert.doesNotMatch(ehlo, /AUTH/);
      second.dialog.close();
      // A real client upgrades: with requireTLS it fails unless STARTTLS succeeds. (The test
      // certificate is self-signed and expired: trust is not what this checks.)
      const transport = nodemailer.createTransport({
        host: "127.0.0.1",
        port: secure.port,
        requireTLS: true,
        tls: { rejectUnauthorized: false },
      });
      assert.equal(await transport.verify(), true);
      transport.close();
    } finally {
      await plain.close();
      await secure.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("maps each refusal to its SMTP reply: 550 unknown, 452 full, 552 too large, 554 unreadable, 451 anything else", () => {
    const reply = (error: unknown) => {
      const mapped = serviceErrorSmtpReply(error);
      return mapped && `${mapped.responseCode} ${mapped.message}`;
    };
    assert.equal(reply(new ServiceError("NOT_FOUND", "record not found")), "550 5.1.1 no such mailbox");
    assert.equal(
      reply(new ServiceError("LIMIT_EXCEEDED", "the account's storage quota\nis used up")),
      "452 4.2.2 the account's storage quota is used up",
    );
    assert.equal(reply(new ServiceError("PAYLOAD_TOO_LARGE", "too big")), "552 5.3.4 too big");
    assert.equal(reply(new ServiceError("VALIDATION", "the message could not be parsed")), "554 5.6.0 the message could not be parsed");
    assert.equal(reply(new Error("database gone")), undefined);
    const temporary = temporaryFailure();
    assert.equal(`${temporary.responseCode} ${temporary.message}`, "451 4.3.0 temporary failure storing the message; try again later");
  });
});

describe("e-mail events", () => {
  const envelope = { source: "a@sender.test", destination: ["key@mail.sluice.test"], timestamp: "2024-01-02T03:04:05.000Z" };
  const message = (extraHeaders: string, body: string) =>
    Buffer.from(
      `From: a@sender.test\r\nTo: key@mail.sluice.test\r\nSubject: hi\r\n${extraHeaders}Content-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`,
    );

  it("an event within the limit is kept whole", async () => {
    const parsed = await parseEmail(message("", "short"), 4096);
    const event = fitEvent(parsed, envelope, 4096);
    assert.equal((event.text as string).trim(), "short");
    assert.equal(event.truncated, undefined);
    assert.deepEqual(event.mail, envelope);
  });

  it("cuts text to fit, multi-byte characters included, and lists what it cut", async () => {
    const parsed = await parseEmail(message("", "é😀".repeat(4000)), 4096);
    const event = fitEvent(parsed, envelope, 4096);
    assert.deepEqual(event.truncated, ["textAsHtml", "text"]);
    const size = Buffer.byteLength(JSON.stringify(event));
    assert.ok(size <= 4096 && size > 3000, `fills the room it has (${size} bytes)`);
    assert.doesNotMatch(JSON.stringify(event), /\\ud[89ab]/, "no half of a surrogate pair is left");
  });

  it("refuses an event too large without its bodies, naming the limit", async () => {
    const parsed = await parseEmail(message(`X-Pad: ${"p".repeat(900)}\r\n`.repeat(8), "body"), 4096);
    assert.throws(
      () => fitEvent(parsed, envelope, 4096),
      (error: Error) =>
        error instanceof ServiceError && error.code === "PAYLOAD_TOO_LARGE" && /SLUICE_MAX_EVENT_BYTES \(4096\)/.test(error.message),
    );
  });
});
