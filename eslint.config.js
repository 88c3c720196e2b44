// Lint is part of `npm test`. The import rule keeps the HTTP layer away from storage:
// routes call domain verbs, never Kysely directly (docs/architecture.md, "Layers").
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "dist-*/**", "node_modules/**", "data/**", "registry/**", "test/fixtures/**", "runner-assets/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", Buffer: "readonly", URL: "readonly", setTimeout: "readonly", clearTimeout: "readonly", setInterval: "readonly", clearInterval: "readonly", setImmediate: "readonly", fetch: "readonly", AbortController: "readonly", AbortSignal: "readonly", TextEncoder: "readonly", TextDecoder: "readonly", structuredClone: "readonly", queueMicrotask: "readonly", performance: "readonly", Response: "readonly", Request: "readonly", Headers: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  {
    files: ["src/http/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["**/store/**", "kysely"], message: "HTTP routes call domain verbs; they never touch storage." }] }],
    },
  },
);
