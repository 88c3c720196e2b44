// The service's end of the channel to one runner: newline-delimited JSON over the runner's
// file descriptor 3 (a socket pair). Node's built-in IPC channel was not used because it
// buffers a message of any size before the service sees it: a runner could push a gigabyte
// into the service's memory. Here a line longer than the cap ends the channel as soon as the
// cap is passed, and a line that is not JSON is reported rather than thrown.
import type { Duplex } from "node:stream";

export interface RunnerChannelOptions {
  /** The largest message (one line, in bytes) the runner may send. */
  maxMessageBytes: number;
  /** A parsed message, not yet checked: the caller checks its shape. */
  onMessage(message: unknown, bytes: number): void;
  /** The runner broke the channel's rules; it is sent nothing more and should be stopped. */
  onViolation(reason: string): void;
}

export interface RunnerChannel {
  /** Sends one message; false when the channel is closed. */
  send(message: unknown): boolean;
  close(): void;
}

const NEWLINE = 0x0a;

export function createRunnerChannel(stream: Duplex, options: RunnerChannelOptions): RunnerChannel {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let broken = false;

  const violate = (reason: string) => {
    if (broken) return;
    broken = true;
    pending = [];
    stream.off("data", onData);
    options.onViolation(reason);
  };

  const deliver = (line: Buffer) => {
    if (line.length === 0) return;
    let message: unknown;
    try {
      message = JSON.parse(line.toString("utf8"));
    } catch {
      return violate("a message that is not JSON");
    }
    options.onMessage(message, line.length);
  };

  function onData(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1 && !broken; end = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, end);
      start = end + 1;
      if (pendingBytes + piece.length > options.maxMessageBytes) return violate(`a message over ${options.maxMessageBytes} bytes`);
      if (pending.length === 0) deliver(piece);
      else {
        pending.push(piece);
        const line = Buffer.concat(pending, pendingBytes + piece.length);
        pending = [];
        pendingBytes = 0;
        deliver(line);
      }
    }
    if (broken || start >= chunk.length) return;
    const rest = chunk.subarray(start);
    if (pendingBytes + rest.length > options.maxMessageBytes) return violate(`a message over ${options.maxMessageBytes} bytes`);
    pending.push(rest);
    pendingBytes += rest.length;
  }

  stream.on("data", onData);
  // A runner that dies closes its end; the pool learns of it from the process itself.
  stream.on("error", () => {});

  return {
    send(message) {
      if (broken || stream.destroyed || !stream.writable) return false;
      stream.write(JSON.stringify(message) + "\n");
      return true;
    },
    close() {
      broken = true;
      stream.off("data", onData);
      stream.destroy();
    },
  };
}
