// A loopback npm registry for tests: packuments at /<name> (scoped names arrive as
// /@scope%2fname) and tarballs at /<name>/-/<file>.tgz, for packages the test writes here and
// may publish more versions of while the test runs. The tarballs are made in memory (a plain
// ustar archive, gzipped) in the layout npm expects: every file under "package/".
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

export interface TestPackage {
  name: string;
  version: string;
  /** Files by path inside the package; package.json is written from the fields here unless given among them. */
  files: Record<string, string | Buffer>;
  dependencies?: Record<string, string>;
  scripts?: Record<string, string>;
  main?: string;
  /** Where the packument says the tarball is (a registry may name any URL); this registry by default. */
  tarballUrl?: string;
}

export interface NpmRegistry {
  /** The registry's URL (http://127.0.0.1:port/), for npm's --registry. */
  url: string;
  /** Makes a version available; the newest published becomes the `latest` tag unless `tag` says otherwise. */
  publish(pkg: TestPackage, options?: { latest?: boolean }): void;
  /** Paths asked for, in order (decoded). */
  requests: string[];
  close(): Promise<void>;
}

interface Published {
  manifest: Record<string, unknown>;
  tarball: Buffer;
}

export interface NpmRegistryOptions {
  /** Awaited before a packument is answered (tests count and slow down npm's requests). */
  beforePackument?(name: string): Promise<void> | void;
}

export async function startNpmRegistry(options: NpmRegistryOptions = {}): Promise<NpmRegistry> {
  const packages = new Map<string, { latest: string; versions: Map<string, Published> }>();
  const requests: string[] = [];
  let base = "";

  const server: Server = createServer(async (request, response) => {
    const path = decodeURIComponent((request.url ?? "/").split("?")[0]!);
    requests.push(path);
    const send = (status: number, body: string | Buffer, type = "application/json") => {
      // npm must ask again each time: versions are published while a test runs.
      response.writeHead(status, { "content-type": type, "cache-control": "no-store", "content-length": Buffer.byteLength(body) });
      response.end(body);
    };
    if (request.method !== "GET") return send(405, JSON.stringify({ error: "method not allowed" }));
    const tarball = /^\/(.+)\/-\/[^/]+-(\d[^/]*)\.tgz$/.exec(path);
    if (tarball) {
      const found = packages.get(tarball[1]!)?.versions.get(tarball[2]!);
      return found ? send(200, found.tarball, "application/octet-stream") : send(404, JSON.stringify({ error: "Not found" }));
    }
    await options.beforePackument?.(path.slice(1));
    const entry = packages.get(path.slice(1));
    if (!entry) return send(404, JSON.stringify({ error: "Not found" }));
    const versions = Object.fromEntries([...entry.versions].map(([version, published]) => [version, published.manifest]));
    send(200, JSON.stringify({ _id: path.slice(1), name: path.slice(1), "dist-tags": { latest: entry.latest }, versions }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  return {
    url: base,
    requests,
    publish(pkg, options = {}) {
      const packageJson = {
        name: pkg.name,
        version: pkg.version,
        ...(pkg.main ? { main: pkg.main } : {}),
        ...(pkg.dependencies ? { dependencies: pkg.dependencies } : {}),
        ...(pkg.scripts ? { scripts: pkg.scripts } : {}),
      };
      const tarball = tarGz({ "package.json": JSON.stringify(packageJson, null, 2), ...pkg.files });
      const file = `${pkg.name.split("/").pop()}-${pkg.version}.tgz`;
      const manifest = {
        ...packageJson,
        ...(pkg.scripts && Object.keys(pkg.scripts).some((name) => /install/.test(name)) ? { hasInstallScript: true } : {}),
        dist: {
          tarball: pkg.tarballUrl ?? `${base}${pkg.name}/-/${file}`,
          shasum: createHash("sha1").update(tarball).digest("hex"),
          integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
        },
      };
      let entry = packages.get(pkg.name);
      if (!entry) packages.set(pkg.name, (entry = { latest: pkg.version, versions: new Map() }));
      entry.versions.set(pkg.version, { manifest, tarball });
      if (options.latest !== false) entry.latest = pkg.version;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A gzipped ustar archive of the files, each under "package/". */
export function tarGz(files: Record<string, string | Buffer>): Buffer {
  const blocks: Buffer[] = [];
  for (const [path, text] of Object.entries(files)) {
    const content = Buffer.isBuffer(text) ? text : Buffer.from(text);
    blocks.push(tarHeader(`package/${path}`, content.length), content, Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

function tarHeader(path: string, size: number): Buffer {
  // ustar keeps up to 100 bytes in `name` and the folders before them (up to 155) in `prefix`.
  let name = path;
  let prefix = "";
  if (Buffer.byteLength(path) > 100) {
    const cut = path.indexOf("/", Buffer.byteLength(path) - 101);
    if (cut < 0 || cut > 155) throw new Error(`tar path too long for this helper: ${path}`);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
  }
  const header = Buffer.alloc(512);
  const field = (offset: number, length: number, value: string) => header.write(value, offset, length, "ascii");
  if (prefix) field(345, 155, prefix);
  const octal = (value: number, length: number) => value.toString(8).padStart(length - 1, "0") + "\0";
  field(0, 100, name);
  field(100, 8, octal(0o644, 8));
  field(108, 8, octal(0, 8));
  field(116, 8, octal(0, 8));
  field(124, 12, octal(size, 12));
  field(136, 12, octal(0, 12));
  field(148, 8, "        "); // the checksum counts its own field as spaces
  field(156, 1, "0");
  field(257, 6, "ustar\0");
  field(263, 2, "00");
  let sum = 0;
  for (const byte of header) sum += byte;
  field(148, 8, sum.toString(8).padStart(6, "0") + "\0 ");
  return header;
}
