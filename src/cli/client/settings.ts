// Where the server is and which key to use: SLUICE_API_URL and SLUICE_API_KEY, else what
// `sluice login` stored in $XDG_CONFIG_HOME/sluice/config.json (~/.config by default),
// readable by its owner only since it holds the key.
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CommandFailed } from "../errors.js";

export interface ClientSettings {
  apiUrl: string;
  apiKey: string;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(base, "sluice", "config.json");
}

function stored(env: NodeJS.ProcessEnv): Partial<ClientSettings> {
  const path = configPath(env);
  if (!existsSync(path)) return {};
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as { api_url?: unknown; api_key?: unknown };
    return { apiUrl: typeof parsed.api_url === "string" ? parsed.api_url : undefined, apiKey: typeof parsed.api_key === "string" ? parsed.api_key : undefined };
  } catch {
    throw new CommandFailed(`${path} is not valid JSON; run \`sluice login\` again`);
  }
}

export function loadClientSettings(env: NodeJS.ProcessEnv = process.env): ClientSettings {
  const file = stored(env);
  const apiUrl = env.SLUICE_API_URL || file.apiUrl;
  const apiKey = env.SLUICE_API_KEY || file.apiKey;
  if (!apiUrl || !apiKey) throw new CommandFailed("no server configured: run `sluice login`, or set SLUICE_API_URL and SLUICE_API_KEY");
  return { apiUrl: normalizeApiUrl(apiUrl), apiKey };
}

/** The server's origin without a trailing slash or /v1 (either may be typed). */
export function normalizeApiUrl(url: string): string {
  return url.trim().replace(/\/+$/, "").replace(/\/v1$/, "");
}

export async function saveClientSettings(settings: ClientSettings, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const path = configPath(env);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, JSON.stringify({ api_url: settings.apiUrl, api_key: settings.apiKey }, null, 2) + "\n", { mode: 0o600 });
  await chmod(path, 0o600); // an existing file keeps its mode on write
  return path;
}
