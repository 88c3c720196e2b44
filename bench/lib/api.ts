// Just enough of a client to set up a benchmark through the public API.
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string; json?: unknown; query?: Record<string, string> } = {},
): Promise<any> {
  const url = new URL(`${baseUrl}/v1${path}`);
  for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
  const response = await fetch(url, {
    method,
    headers: {
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...(options.json !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: options.json !== undefined ? JSON.stringify(options.json) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

export async function createAccount(baseUrl: string, adminToken: string, username: string): Promise<string> {
  const created = await call(baseUrl, "POST", "/admin/users", {
    key: adminToken,
    json: { username, email: `${username}@bench.test`, plan: "paid" },
  });
  return created.data.api_key;
}

export async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}
