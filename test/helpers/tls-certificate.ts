// A self-signed certificate for loopback HTTPS servers in tests (localhost, sni.test and
// 127.0.0.1), made with openssl; undefined where openssl is not available. Runners trust it
// through the extra CA certificates setting (SLUICE_EXTRA_CA_CERTS).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export function certificate(dir: string): { cert: string; key: string; certFile: string } | undefined {
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        keyFile,
        "-out",
        certFile,
        "-days",
        "2",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,DNS:sni.test,IP:127.0.0.1",
      ],
      { stdio: "ignore" },
    );
  } catch {
    return undefined;
  }
  return { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8"), certFile };
}
