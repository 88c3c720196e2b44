// A thread that parses inbound messages (email-parser-pool.ts): mailparser's work, and the
// bodies' conversions (HTML to text, text to HTML), take seconds of CPU for a message of a few
// megabytes, which on the service's event loop would hold up every request in between.
import { parentPort, threadId } from "node:worker_threads";
import { parseEmail } from "../domain/inbound-email/email-event.js";
import { ServiceError } from "../lib/errors.js";
import type { FromParseThread, ToParseThread } from "./email-parser-pool.js";

parentPort!.on("message", (job: ToParseThread) => {
  // The bytes arrive as a plain Uint8Array: a Buffer over the same memory, no copy.
  const raw = Buffer.from(job.raw.buffer, job.raw.byteOffset, job.raw.byteLength);
  parseEmail(raw, job.maxBytes).then(
    (event) => parentPort!.postMessage({ id: job.id, threadId, event } satisfies FromParseThread),
    (error: unknown) =>
      parentPort!.postMessage({
        id: job.id,
        threadId,
        error: {
          message: error instanceof Error ? error.message : String(error),
          invalid: error instanceof ServiceError && error.code === "VALIDATION",
        },
      } satisfies FromParseThread),
  );
});
