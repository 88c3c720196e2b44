// Builds the dashboard into dist/ui: one JavaScript bundle (esbuild), the page and the styles.
// Type-checking is tsc's job (ui/tsconfig.json); esbuild only strips types and bundles.
import { copyFileSync, mkdirSync } from "node:fs";
import { build } from "esbuild";

mkdirSync("dist/ui", { recursive: true });
await build({
  entryPoints: ["ui/src/main.ts"],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: true,
  outfile: "dist/ui/app.js",
  logLevel: "warning",
});
for (const file of ["index.html", "app.css", "favicon.svg"]) copyFileSync(`ui/${file}`, `dist/ui/${file}`);
