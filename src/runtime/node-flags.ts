// Node's permission model flags for a runner process. Node 20 spells the switch
// --experimental-permission, Node 22.13+/24 --permission; several folders are allowed with one
// flag each (a trailing "/" allows the folder's contents).
export function permissionFlags(readPaths: string[], writePaths: string[] = []): string[] {
  const known = process.allowedNodeEnvironmentFlags;
  const flags = [known.has("--permission") ? "--permission" : "--experimental-permission"];
  for (const path of readPaths) flags.push(`--allow-fs-read=${path}`);
  for (const path of writePaths) flags.push(`--allow-fs-read=${path}`, `--allow-fs-write=${path}`);
  // Node versions whose permission model also covers the network would otherwise refuse all
  // of it, the runner's connections to the egress proxy's Unix socket included; outbound
  // network of user code is governed by the egress proxy instead.
  if (known.has("--allow-net")) flags.push("--allow-net");
  return flags;
}

/**
 * Globals the Node version Pipedream runs has without a flag: WebSocket is global from Node 22;
 * Node 20.10+ has it behind --experimental-websocket (sources such as Supabase's use it). Its
 * connections end in net.Socket#connect, so they go through the egress proxy like any other.
 */
export function runtimeFeatureFlags(): string[] {
  const known = process.allowedNodeEnvironmentFlags;
  return typeof globalThis.WebSocket === "undefined" && known.has("--experimental-websocket") ? ["--experimental-websocket"] : [];
}
