#!/usr/bin/env node
// The `sluice` command (program.ts): reads .env from the working directory when there is one,
// then runs the command line. Anything unexpected is printed whole and exits 1.
import { existsSync } from "node:fs";
import { runSluice } from "./program.js";

if (existsSync(".env")) process.loadEnvFile?.(".env");
runSluice(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
