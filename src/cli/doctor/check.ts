// One finding of `sluice doctor`: a concern, how it stands, and for a warning or a failure the
// one thing to do about it. Any failure makes the doctor exit 1; warnings do not.
export type CheckStatus = "ok" | "warn" | "fail";

export interface CheckResult {
  name: string;
  status: CheckStatus;
  /** What was found, in one line. */
  detail: string;
  /** What to do about it, in one line (warn and fail). */
  fix?: string;
}

export const ok = (name: string, detail: string): CheckResult => ({ name, status: "ok", detail });
export const warn = (name: string, detail: string, fix: string): CheckResult => ({ name, status: "warn", detail, fix });
export const fail = (name: string, detail: string, fix: string): CheckResult => ({ name, status: "fail", detail, fix });

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
