// A small HTTP client for tests: real requests over loopback, JSON in and out.
export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  /** Raw body, sent as is (for malformed JSON tests). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

export async function request<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<TestResponse<T>> {
  const url = new URL(baseUrl + path);
  for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | Buffer | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers["content-type"] ??= "application/json";
  } else if (options.raw !== undefined) {
    body = options.raw;
  }
  const response = await fetch(url, { method, headers, body: body as BodyInit | undefined, redirect: "manual" });
  const text = await response.text();
  let parsed: any = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** A client bound to one base URL and API key. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly key?: string,
  ) {}
  withKey(key: string | undefined): ApiClient {
    return new ApiClient(this.baseUrl, key);
  }
  call<T = any>(method: string, path: string, options: Omit<RequestOptions, "key"> = {}) {
    return request<T>(this.baseUrl, method, path, { key: this.key, ...options });
  }
  get<T = any>(path: string, query?: RequestOptions["query"]) {
    return this.call<T>("GET", path, { query });
  }
  post<T = any>(path: string, json?: unknown, query?: RequestOptions["query"]) {
    return this.call<T>("POST", path, { json, query });
  }
  put<T = any>(path: string, json?: unknown, query?: RequestOptions["query"]) {
    return this.call<T>("PUT", path, { json, query });
  }
  delete<T = any>(path: string, query?: RequestOptions["query"]) {
    return this.call<T>("DELETE", path, { query });
  }
}
