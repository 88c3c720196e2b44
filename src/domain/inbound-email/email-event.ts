// An inbound e-mail as the event its source emits, in the shape of Pipedream's e-mail trigger:
// the message parsed by mailparser — `headers` (lower-case names), `messageId`, `date`,
// `subject`, `from`, `to`, `cc`, `bcc`, `replyTo` ({value: [{address, name}], text, html}),
// `inReplyTo`, `references`, `text`, `html`, `textAsHtml` — with `attachments` as metadata only
// (filename, contentType, contentDisposition, contentId, related, size, md5 checksum), never
// their content, and `mail`, the SMTP envelope as this source saw it: the sender, its own
// recipient addresses (not the others', which may be other accounts' sources), the time.
// An event over SLUICE_MAX_EVENT_BYTES gives up its bodies first (fitEvent). A message whose
// end was not kept (the listener keeps its header section and SLUICE_MAX_EVENT_BYTES of body)
// says so with "message" in `truncated`: parts past the cut, attachments too, are missing or cut.
import { simpleParser, type ParsedMail } from "mailparser";
import { ServiceError } from "../../lib/errors.js";

export type EmailEvent = Record<string, unknown>;

export interface Envelope {
  /** MAIL FROM: "" for the null sender (bounces). */
  source: string;
  /** The RCPT TO addresses of one source. */
  destination: string[];
  timestamp: string;
}

/** The parsed message without `mail` (the same for every source it goes to). */
export async function parseEmail(message: Buffer, maxBytes: number): Promise<EmailEvent> {
  let mail: ParsedMail;
  try {
    mail = await simpleParser(message, {
      // `cid:` links stay as they are: inlining images as data: URLs would put attachment
      // content into the event.
      keepCidLinks: true,
      skipImageLinks: true,
      // HTML longer than an event could hold is not worth converting to text (CPU in the
      // service process): its text stays empty.
      maxHtmlLengthToParse: maxBytes,
    });
  } catch (error) {
    throw new ServiceError("VALIDATION", `the message could not be parsed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const fields: EmailEvent = {
    headers: Object.fromEntries(mail.headers),
    messageId: mail.messageId,
    date: mail.date,
    subject: mail.subject,
    from: mail.from,
    to: mail.to,
    cc: mail.cc,
    bcc: mail.bcc,
    replyTo: mail.replyTo,
    inReplyTo: mail.inReplyTo,
    references: mail.references,
    text: mail.text,
    html: typeof mail.html === "string" ? mail.html : undefined,
    textAsHtml: mail.textAsHtml,
    attachments: mail.attachments.map((attachment) => ({
      filename: attachment.filename,
      contentType: attachment.contentType,
      contentDisposition: attachment.contentDisposition,
      contentId: attachment.contentId,
      related: attachment.related,
      size: attachment.size,
      checksum: attachment.checksum,
    })),
  };
  // Plain JSON from here on: dates as ISO strings, absent fields gone.
  return JSON.parse(JSON.stringify(fields)) as EmailEvent;
}

/** Bodies given up, in this order, for an event over the size limit: the derived one first, then HTML, then text. */
const BODIES = ["textAsHtml", "html", "text"] as const;

/**
 * The event of one source, at most `maxBytes` of JSON: when larger, `textAsHtml` is dropped and
 * `html`, then `text`, are cut short, and `truncated` lists what was ("message" first when only
 * the message's beginning was parsed, `messageCut`). An event that is still too large (huge
 * headers, thousands of attachments) is refused. An event fitted already (off the event loop,
 * to an envelope at least as large) fits at once and keeps what its `truncated` lists.
 */
export function fitEvent(parsed: EmailEvent, envelope: Envelope, maxBytes: number, messageCut = false): EmailEvent {
  const event: EmailEvent = { ...parsed, mail: envelope };
  const truncated: string[] = Array.isArray(parsed.truncated) ? [...(parsed.truncated as string[])] : [];
  if (messageCut && !truncated.includes("message")) truncated.unshift("message");
  if (truncated.length > 0) event.truncated = truncated;
  let size = jsonBytes(event);
  for (const field of BODIES) {
    if (size <= maxBytes) break;
    const value = event[field];
    if (typeof value !== "string") continue;
    event.truncated = truncated;
    truncated.push(field);
    event[field] = field === "textAsHtml" ? undefined : value;
    size = jsonBytes(event);
    // The excess in characters, at the field's average bytes per character; a few rounds
    // settle an uneven field, and then one byte per character (the least a character takes in
    // JSON) surely fits, unless the field runs out first.
    for (let round = 0; size > maxBytes && typeof event[field] === "string" && (event[field] as string).length > 0; round++) {
      const text = event[field] as string;
      const bytesPerChar = round < 4 ? Math.max(1, (jsonBytes(text) - 2) / text.length) : 1;
      event[field] = withoutLoneSurrogate(text.slice(0, Math.max(0, text.length - Math.ceil((size - maxBytes) / bytesPerChar))));
      size = jsonBytes(event);
    }
  }
  if (size > maxBytes) {
    throw new ServiceError(
      "PAYLOAD_TOO_LARGE",
      `the message's event would take ${size} bytes without its bodies, more than SLUICE_MAX_EVENT_BYTES (${maxBytes})`,
    );
  }
  return event;
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

function withoutLoneSurrogate(text: string): string {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}
