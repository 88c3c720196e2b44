// A bare SMTP client for tests that check the listener's replies command by command (nodemailer
// hides at which command a refusal came). Loopback only.
import net from "node:net";

export class SmtpDialog {
  private buffer = "";
  private lines: string[] = [];
  private waiting: { resolve: (reply: string) => void; reject: (error: Error) => void } | undefined;
  private closed = false;
  /** Settles when the connection closes, whichever side closed it. */
  readonly ended: Promise<void>;

  private constructor(private readonly socket: net.Socket) {
    this.ended = new Promise((resolve) => socket.once("close", () => resolve()));
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      this.buffer += chunk;
      let end: number;
      while ((end = this.buffer.indexOf("\r\n")) >= 0) {
        const line = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        this.lines.push(line);
        // The last line of a reply has a space after its code ("250 OK"); the others a hyphen.
        if (/^\d{3}( |$)/.test(line)) {
          const reply = this.lines.join("\n");
          this.lines = [];
          const waiting = this.waiting;
          this.waiting = undefined;
          waiting?.resolve(reply);
        }
      }
    });
    socket.on("close", () => {
      this.closed = true;
      this.waiting?.reject(new Error("the server closed the connection"));
      this.waiting = undefined;
    });
  }

  /** Connects to smtp://host:port and reads the greeting. */
  static async open(url: string): Promise<{ dialog: SmtpDialog; greeting: string }> {
    const { hostname, port } = new URL(url);
    const socket = net.connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    const dialog = new SmtpDialog(socket);
    return { dialog, greeting: await dialog.reply() };
  }

  /** The next reply the server sends, asked for or not (e.g. a refusal in the middle of DATA). */
  nextReply(): Promise<string> {
    return this.reply();
  }

  private reply(): Promise<string> {
    if (this.closed) return Promise.reject(new Error("the server closed the connection"));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** Sends one command line and returns the whole reply (lines joined by \n). */
  command(line: string): Promise<string> {
    const reply = this.reply();
    this.socket.write(`${line}\r\n`);
    return reply;
  }

  /** DATA, then the message (dot-stuffed) and its end; returns the reply to the message. */
  async data(message: string): Promise<string> {
    const ready = await this.command("DATA");
    if (!ready.startsWith("354")) return ready;
    this.write(message);
    return this.endData();
  }

  /** Part of a message after DATA's 354 (dot-stuffed), without ending it. */
  write(text: string): void {
    const body = text.replace(/\r?\n/g, "\r\n").replace(/^\./gm, "..");
    this.socket.write(`${body}${body.endsWith("\r\n") ? "" : "\r\n"}`);
  }

  /** Part of a message after DATA's 354, already dot-stuffed with CRLF line ends (no work on this thread's loop). */
  writeBytes(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Ends the message being sent; returns the reply to it. */
  endData(): Promise<string> {
    const reply = this.reply();
    this.socket.write(".\r\n");
    return reply;
  }

  close(): void {
    this.socket.destroy();
  }
}
