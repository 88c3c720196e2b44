// One error family for the domain, mapped to HTTP in one place (src/http/error-handler.ts).
export type ServiceErrorCode =
  "VALIDATION" | "UNAUTHORIZED" | "NOT_FOUND" | "CONFLICT" | "PAYLOAD_TOO_LARGE" | "LIMIT_EXCEEDED" | "UPSTREAM";

export class ServiceError extends Error {
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    readonly details: { retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: details.cause });
    this.name = "ServiceError";
  }
}

export const notFound = () => new ServiceError("NOT_FOUND", "record not found");
export const invalid = (message: string) => new ServiceError("VALIDATION", message);

/** Normalises anything thrown into an Error, keeping the original as `cause`. */
export function toError(value: unknown): Error {
  if (value instanceof Error) return value;
  return new Error(typeof value === "string" ? value : JSON.stringify(value), { cause: value });
}

/**
 * The code of the error raised when the SQLite driver this Node needs is not installed
 * (store/sqlite-driver.ts). Here, not beside the driver, whose module loads the driver as it is
 * imported: the CLI recognises the error without touching storage.
 */
export const SQLITE_DRIVER_MISSING = "SLUICE_SQLITE_DRIVER_MISSING";
