// Calls to the REST API with the tab's API key. The key lives in sessionStorage (this tab only)
// and travels in the Authorization header, never in a URL.
const KEY = "sluice.apiKey";

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  save: (key: string) => sessionStorage.setItem(KEY, key),
  clear: () => sessionStorage.removeItem(KEY),
};

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export function headers(key = session.key()): Record<string, string> {
  return key ? { authorization: `Bearer ${key}` } : {};
}

export async function api<T = any>(method: string, path: string, body?: unknown, key?: string): Promise<T> {
  const init: RequestInit = { method, headers: headers(key) };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  const res = await fetch(`/v1${path}`, init);
  const text = await res.text();
  const parsed = text ? safeParse(text) : undefined;
  if (!res.ok) {
    if (res.status === 401 && !key) session.clear();
    const message =
      parsed?.error?.message ??
      parsed?.message ??
      (typeof parsed?.error === "string" ? parsed.error : undefined) ??
      `${res.status} ${res.statusText}`;
    throw new ApiError(String(message), res.status);
  }
  return parsed as T;
}

function safeParse(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text };
  }
}

export const enc = encodeURIComponent;
