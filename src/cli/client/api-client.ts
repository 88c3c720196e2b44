// The REST API v1 over fetch: bearer key, JSON in and out. A refusal becomes CommandFailed
// with the server's own message; a server that cannot be reached, one naming where.
import { CommandFailed } from "../errors.js";
import type { ClientSettings } from "./settings.js";

export type Query = Record<string, string | number | boolean | undefined>;

export interface Page<T> {
  data: T[];
  page_info?: { end_cursor?: string | null; count?: number; total_count?: number };
}

export class ApiClient {
  constructor(readonly settings: ClientSettings) {}

  url(path: string, query: Query = {}): URL {
    const url = new URL(`${this.settings.apiUrl}/v1${path}`);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
    return url;
  }

  /** Sends a request and answers its JSON body (undefined for 204). */
  async request<T = any>(method: string, path: string, options: { query?: Query; json?: unknown; signal?: AbortSignal } = {}): Promise<T> {
    // POST and PUT always carry a JSON body (parameters may be in the query string).
    const sent = options.json !== undefined ? JSON.stringify(options.json) : method === "POST" || method === "PUT" ? "{}" : undefined;
    const headers: Record<string, string> = { authorization: `Bearer ${this.settings.apiKey}` };
    if (sent !== undefined) headers["content-type"] = "application/json";
    const response = await this.fetch(this.url(path, options.query), { method, headers, body: sent, signal: options.signal });
    const text = await response.text();
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!response.ok)
      throw new CommandFailed(
        `the server refused: ${body?.error ?? (text.slice(0, 200) || response.statusText)} (HTTP ${response.status})`,
      );
    return body as T;
  }

  get = <T = any>(path: string, query?: Query) => this.request<T>("GET", path, { query });

  /** Every item of a paginated list, following end_cursor. */
  async all<T = any>(path: string, query: Query = {}): Promise<T[]> {
    const items: T[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await this.get<Page<T>>(path, { ...query, limit: 100, after });
      items.push(...page.data);
      after = page.page_info?.end_cursor ?? undefined;
      if (!after || page.data.length < 100) return items;
    }
  }

  /** fetch, with a connection failure worded for the person at the terminal. */
  async fetch(url: URL, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, init);
    } catch (error) {
      if ((error as Error).name === "AbortError") throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CommandFailed(
        `cannot reach the server at ${this.settings.apiUrl}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
      );
    }
  }
}
