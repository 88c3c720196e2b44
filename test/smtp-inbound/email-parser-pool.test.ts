// The pool of threads that parse inbound messages: the parse runs off the main thread, gives
// what parseEmail gives, refuses at once when its queue is full, and reports an unreadable
// message as VALIDATION (554) rather than as a fault (451).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { threadId } from "node:worker_threads";
import { parseEmail } from "../../src/domain/inbound-email/email-event.js";
import { ServiceError } from "../../src/lib/errors.js";
import { createEmailParserPool, ParserBusyError } from "../../src/smtp-inbound/email-parser-pool.js";

const message = (subject: string) =>
  Buffer.from(
    `From: a@sender.test\r\nTo: key@mail.sluice.test\r\nSubject: ${subject}\r\nDate: Tue, 02 Jan 2024 03:04:05 +0000\r\nContent-Type: text/plain\r\n\r\nsee https://example.test\r\n`,
  );

describe("e-mail parser threads", () => {
  it("parses in a worker thread, with the same result as parseEmail", async () => {
    const threads: number[] = [];
    const parser = createEmailParserPool({ threads: 1, onParsed: (id) => threads.push(id) });
    try {
      const event = await parser.parse(message("in a thread"), 4096);
      assert.deepEqual(event, await parseEmail(message("in a thread"), 4096));
      assert.equal(event.subject, "in a thread");
      assert.equal(threads.length, 1);
      assert.notEqual(threads[0], threadId, "not the main thread");
    } finally {
      await parser.close();
    }
  });

  it("refuses at once past its queue, and takes messages again once it drained", async () => {
    const parser = createEmailParserPool({ threads: 1, maxQueued: 1 });
    try {
      const first = parser.parse(message("first"), 4096); // to the thread
      const second = parser.parse(message("second"), 4096); // waits
      await assert.rejects(parser.parse(message("third"), 4096), ParserBusyError);
      assert.equal((await first).subject, "first");
      assert.equal((await second).subject, "second");
      assert.equal((await parser.parse(message("fourth"), 4096)).subject, "fourth");
    } finally {
      await parser.close();
    }
  });

  it("a message mailparser cannot read is VALIDATION; closing fails what waits", async () => {
    const parser = createEmailParserPool({ threads: 1 });
    const parts = Array.from({ length: 1100 }, () => "--b\r\n\r\nx").join("\r\n");
    await assert.rejects(
      parser.parse(Buffer.from(`Subject: parts\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n${parts}\r\n--b--\r\n`), 4096),
      (error: Error) => error instanceof ServiceError && error.code === "VALIDATION",
    );
    const pending = assert.rejects(parser.parse(message("late"), 4096), /closed/);
    const queued = assert.rejects(parser.parse(message("later"), 4096), /closed/);
    await parser.close();
    await Promise.all([pending, queued]);
  });
});
