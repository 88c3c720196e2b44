// A large multipart message's body for the inbound-mail tests: HTML beside a text part (which
// mailparser turns into text in one synchronous step, seconds for 1.9 MB) and an attachment that
// takes the message to about 3.9 MB, past what an event keeps. Its header section names
// `boundary=b`.
export function largeMultipartBody(): string {
  const unit = '<p>Hello <b>there</b> <a href="https://example.test/x">link</a></p>\r\n';
  const html = unit.repeat(Math.floor(1_900_000 / unit.length));
  const attachment = Buffer.alloc(1_450_000, 7).toString("base64").replace(/.{76}/g, "$&\r\n");
  return [
    "--b",
    "Content-Type: text/plain",
    "",
    "a note",
    "--b",
    "Content-Type: text/html; charset=utf-8",
    "",
    html,
    "--b",
    "Content-Type: application/octet-stream",
    "Content-Transfer-Encoding: base64",
    "",
    attachment,
    "--b--",
    "",
  ].join("\r\n");
}
