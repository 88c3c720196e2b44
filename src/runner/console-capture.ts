// console.* of user code becomes LogRecords of the execution in progress. Output made when no
// execution is in progress (a stray timer after run() returned) is dropped.
import { format } from "node:util";
import type { LogRecord } from "./protocol/component-execution.js";

const MAX_LOGS = 1000;
const MAX_MESSAGE = 64 * 1024;

let sink: LogRecord[] | undefined;

export function captureLogs(into: LogRecord[] | undefined): void {
  sink = into;
}

export function installConsoleCapture(): void {
  const levels: Array<[keyof Console, LogRecord["level"]]> = [
    ["log", "log"],
    ["info", "info"],
    ["debug", "log"],
    ["trace", "log"],
    ["warn", "warn"],
    ["error", "error"],
  ];
  for (const [method, level] of levels) {
    (console as any)[method] = (...args: unknown[]) => {
      if (!sink || sink.length >= MAX_LOGS) return;
      let message = format(...args);
      if (message.length > MAX_MESSAGE) message = `${message.slice(0, MAX_MESSAGE)}… [truncated]`;
      sink.push({ level, message, ts: Date.now() });
    };
  }
  console.dir = (value: unknown) => console.log(value);
}
