// What a runner reports of any execution, a source's or a workflow's steps: its log lines,
// the HTTP response the code chose, and how it failed.

export interface LogRecord {
  level: "log" | "info" | "warn" | "error";
  message: string;
  ts: number; // ms
}

export interface HttpResponseRecord {
  status: number;
  headers: Record<string, string>;
  /** The body as the runner serialised it; base64 for Buffers. */
  body: { kind: "none" } | { kind: "text"; text: string } | { kind: "json"; value: unknown } | { kind: "base64"; data: string };
}

export interface ExecutionFailure {
  /** error: user code threw; timeout/memory: killed past a limit; crash: the runner died. */
  kind: "error" | "timeout" | "memory" | "crash";
  name: string;
  message: string;
  stack: string;
}
