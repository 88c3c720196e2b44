// Lint is part of `npm test`. The import rule keeps the transports away from storage: HTTP
// routes, the inbound SMTP listener and the `sluice` command call domain verbs (the CLI opens a
// database through main.ts), never the store or Kysely directly (docs/architecture.md, "Layers";
// test/architecture/storage-imports.test.ts checks that the rule bites).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "dist-*/**", "node_modules/**", "data/**", "registry/**", "test/fixtures/**", "runner-assets/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        setImmediate: "readonly",
        fetch: "readonly",
        AbortController: "readonly",
        AbortSignal: "readonly",
        TextEncoder: "readonly",
        TextDecoder: "readonly",
        structuredClone: "readonly",
        queueMicrotask: "readonly",
        performance: "readonly",
        Response: "readonly",
        Request: "readonly",
        Headers: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  {
    files: ["src/http/**/*.ts", "src/cli/**/*.ts", "src/smtp-inbound/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["**/store/**", "kysely"], message: "Transports (HTTP, SMTP, the CLI) call domain verbs; they never touch storage." },
          ],
        },
      ],
    },
  },
);
