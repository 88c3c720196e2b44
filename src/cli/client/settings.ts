// Where the server is and which key to use: SLUICE_API_URL and SLUICE_API_KEY, else the profile
// `sluice login` stored in $XDG_CONFIG_HOME/sluice/config.json (~/.config by default), readable
// by its owner only since it holds keys. The file holds named profiles; `--profile` or
// SLUICE_PROFILE chooses one ("default" otherwise). A file from before profiles (one api_url and
// api_key at the top) is read as the default profile and rewritten in the new shape on login.
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CommandFailed, UsageError } from "../errors.js";

export interface ClientSettings {
  apiUrl: string;
  apiKey: string;
}

interface StoredProfile {
  api_url?: string;
  api_key?: string;
}

type ConfigFile = { profiles: Record<string, StoredProfile> };

export const DEFAULT_PROFILE = "default";

// Set by the program's --profile before any command runs; it wins over SLUICE_PROFILE.
let chosenProfile: string | undefined;

export function chooseProfile(name: string | undefined): void {
  if (name !== undefined && !/^[A-Za-z0-9_.-]{1,64}$/.test(name))
    throw new UsageError(`a profile name has 1-64 letters, digits, ".", "_" or "-", got "${name}"`);
  chosenProfile = name;
}

export function profileName(env: NodeJS.ProcessEnv = process.env): string {
  return chosenProfile ?? (env.SLUICE_PROFILE || DEFAULT_PROFILE);
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(base, "sluice", "config.json");
}

function readConfig(env: NodeJS.ProcessEnv): ConfigFile {
  const path = configPath(env);
  if (!existsSync(path)) return { profiles: {} };
  let parsed: any;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new CommandFailed(`${path} is not valid JSON; run \`sluice login\` again`);
  }
  if (parsed && typeof parsed.profiles === "object" && parsed.profiles !== null)
    return { profiles: parsed.profiles as Record<string, StoredProfile> };
  if (parsed && (typeof parsed.api_url === "string" || typeof parsed.api_key === "string"))
    return { profiles: { [DEFAULT_PROFILE]: { api_url: parsed.api_url, api_key: parsed.api_key } } };
  return { profiles: {} };
}

async function writeConfig(config: ConfigFile, env: NodeJS.ProcessEnv): Promise<string> {
  const path = configPath(env);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, JSON.stringify(config, null, 2) + "\n", { mode: 0o600 });
  await chmod(path, 0o600); // an existing file keeps its mode on write
  return path;
}

export function loadClientSettings(env: NodeJS.ProcessEnv = process.env): ClientSettings {
  const name = profileName(env);
  const stored = readConfig(env).profiles[name] ?? {};
  const apiUrl = env.SLUICE_API_URL || (typeof stored.api_url === "string" ? stored.api_url : undefined);
  const apiKey = env.SLUICE_API_KEY || (typeof stored.api_key === "string" ? stored.api_key : undefined);
  if (!apiUrl || !apiKey) {
    const login = name === DEFAULT_PROFILE ? "`sluice login`" : `\`sluice login --profile ${name}\``;
    throw new CommandFailed(
      `no server configured${name === DEFAULT_PROFILE ? "" : ` for the profile "${name}"`}: run ${login}, or set SLUICE_API_URL and SLUICE_API_KEY`,
    );
  }
  return { apiUrl: normalizeApiUrl(apiUrl), apiKey };
}

/** The server's origin without a trailing slash or /v1 (either may be typed). */
export function normalizeApiUrl(url: string): string {
  return url.trim().replace(/\/+$/, "").replace(/\/v1$/, "");
}

/** Stores the settings as the chosen profile, keeping the others. */
export async function saveClientSettings(settings: ClientSettings, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const config = readConfig(env);
  config.profiles[profileName(env)] = { api_url: settings.apiUrl, api_key: settings.apiKey };
  return writeConfig(config, env);
}

/** Forgets the chosen profile's key; answers whether it had one. */
export async function removeClientSettings(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const config = readConfig(env);
  const name = profileName(env);
  if (!(name in config.profiles)) return false;
  delete config.profiles[name];
  await writeConfig(config, env);
  return true;
}
