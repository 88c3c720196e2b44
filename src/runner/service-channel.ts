// The runner's end of its channel to the service: newline-delimited JSON on file descriptor 3
// (see runner-channel.ts for the service's end and why it is not Node's IPC channel).
import net from "node:net";
import type { ChildMessage, ReplyMessage, RequestMessage } from "./protocol/messages.js";

const CHANNEL_FD = 3;

export interface ServiceChannel {
  send(message: ChildMessage): void;
}

/**
 * Opens the channel; `onRequests` gets each request the service sends, in order, and `onReply`
 * each reply to a call of the runner (service-calls.ts), as soon as it arrives.
 */
export function openServiceChannel(
  onRequests: (requests: RequestMessage[]) => void,
  onReply: (reply: ReplyMessage) => void,
): ServiceChannel {
  const socket = new net.Socket({ fd: CHANNEL_FD, readable: true, writable: true });
  let buffered = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf("\n");
    if (newline === -1) return;
    const requests: RequestMessage[] = [];
    while (newline !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line !== "") {
        const parsed = JSON.parse(line) as RequestMessage | RequestMessage[] | ReplyMessage;
        if (Array.isArray(parsed)) requests.push(...parsed);
        else if (parsed.type === "reply") onReply(parsed as ReplyMessage);
        else requests.push(parsed as RequestMessage);
      }
      newline = buffered.indexOf("\n");
    }
    if (requests.length > 0) onRequests(requests);
  });
  // Without the service there is no one to work for.
  const leave = () => process.exit(0);
  socket.on("end", leave);
  socket.on("close", leave);
  socket.on("error", leave);
  return {
    send(message) {
      if (socket.destroyed) leave();
      socket.write(JSON.stringify(message) + "\n");
    },
  };
}
