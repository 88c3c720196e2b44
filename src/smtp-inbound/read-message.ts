// Reads a message from smtp-server's DATA stream, keeping only what can end up in an event:
// the header section (up to `keepBodyBytes` of it) and `keepBodyBytes` of what follows. The
// rest is read and dropped as it arrives, so a message of SLUICE_SMTP_MAX_MESSAGE_BYTES is
// never held whole, and the parser never sees more than twice SLUICE_MAX_EVENT_BYTES. Body
// bytes past the limit could only have been cut from the event again (`fitEvent`), after
// costing memory and parse time; parts after the cut (attachments too) are missing from the
// event, which says so (`truncated` names "message").
import type { SMTPServerDataStream } from "smtp-server";

export interface ReadMessage {
  /** The bytes kept: the whole message, or its beginning when `cut`. */
  raw: Buffer;
  /** Whether bytes past the kept ones were dropped. */
  cut: boolean;
  /** Bytes received in all (past SLUICE_SMTP_MAX_MESSAGE_BYTES smtp-server refuses the message). */
  size: number;
}

const CRLF_CRLF = Buffer.from("\r\n\r\n");
const LF_LF = Buffer.from("\n\n");

export function readMessage(stream: SMTPServerDataStream, keepBodyBytes: number): Promise<ReadMessage> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let size = 0;
    // Offset just past the blank line that ends the header section, once seen.
    let bodyStart: number | undefined;
    // Until the header section ends, as much as a longest header section and body would take.
    let limit = 2 * keepBodyBytes;
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (kept >= limit) return;
      const part = chunk.length > limit - kept ? chunk.subarray(0, limit - kept) : chunk;
      if (bodyStart === undefined) {
        // The blank line may straddle two chunks: look from a few bytes before this one.
        const from = Math.max(0, kept - 3);
        const window = Buffer.concat([...tailOf(chunks, kept - from), part]);
        const end = headerEnd(window);
        if (end !== undefined) {
          bodyStart = from + end;
          limit = Math.min(bodyStart, keepBodyBytes) + keepBodyBytes;
        }
      }
      const taken = part.length > limit - kept ? part.subarray(0, Math.max(0, limit - kept)) : part;
      // Part of a chunk is copied: a slice would keep all of the chunk's memory.
      if (taken.length > 0) chunks.push(taken === chunk ? chunk : Buffer.from(taken));
      kept += taken.length;
    });
    stream.once("end", () => resolve({ raw: Buffer.concat(chunks, kept), cut: size > kept, size }));
    stream.once("error", reject);
  });
}

/** Offset just past the first blank line (CRLF CRLF, or bare LF LF from sloppy senders). */
function headerEnd(bytes: Buffer): number | undefined {
  const crlf = bytes.indexOf(CRLF_CRLF);
  const lf = bytes.indexOf(LF_LF);
  if (crlf < 0 && lf < 0) return undefined;
  if (lf < 0 || (crlf >= 0 && crlf < lf)) return crlf + CRLF_CRLF.length;
  return lf + LF_LF.length;
}

/** The last `count` bytes of the chunks. */
function tailOf(chunks: Buffer[], count: number): Buffer[] {
  const tail: Buffer[] = [];
  for (let i = chunks.length - 1; i >= 0 && count > 0; i--) {
    const chunk = chunks[i]!;
    const part = chunk.length > count ? chunk.subarray(chunk.length - count) : chunk;
    tail.unshift(part);
    count -= part.length;
  }
  return tail;
}
