// Kysely builds an operation tree and compiles it to SQL on every call: about a quarter of the
// CPU of the hot ingest and read paths. The hottest queries are built and compiled once per
// dialect with placeholder arguments; a call only puts its own arguments into the parameter
// list. Only scalar arguments that end up as bound parameters may be placeholders (no lists,
// no identifiers), which is what `build` must respect.
import type { Compilable, CompiledQuery, Kysely, QueryResult } from "kysely";
import type { Database } from "./schema.js";

type Slot = { arg: number } | { value: unknown };

interface Template {
  compiled: CompiledQuery;
  slots: Slot[];
}

const placeholder = (index: number) => `\u0000sluice-arg-${index}\u0000`;

export type PreparedQuery<A extends unknown[], R> = ((db: Kysely<Database>, ...args: A) => Promise<QueryResult<R>>) & {
  /** The statement with these arguments, not run (for a caller that runs it later). */
  compile(db: Kysely<Database>, ...args: A): CompiledQuery<R>;
};

export function preparedQuery<A extends unknown[], R>(build: (db: Kysely<Database>, ...args: A) => Compilable<R>): PreparedQuery<A, R> {
  const arity = build.length - 1;
  // One template per dialect adapter class: a transaction shares its database's adapter.
  const templates = new Map<unknown, Template>();

  function templateFor(db: Kysely<Database>): Template {
    const key = db.getExecutor().adapter.constructor;
    let template = templates.get(key);
    if (!template) {
      const markers = Array.from({ length: arity }, (_, i) => placeholder(i));
      const compiled = build(db, ...(markers as unknown as A)).compile();
      const slots = compiled.parameters.map((value): Slot => {
        const arg = typeof value === "string" ? markers.indexOf(value) : -1;
        return arg >= 0 ? { arg } : { value };
      });
      const used = new Set(slots.flatMap((slot) => ("arg" in slot ? [slot.arg] : [])));
      if (used.size !== arity) throw new Error(`prepared query uses ${used.size} of its ${arity} arguments as parameters: ${compiled.sql}`);
      template = { compiled, slots };
      templates.set(key, template);
    }
    return template;
  }

  const compile = (db: Kysely<Database>, ...args: A): CompiledQuery<R> => {
    const { compiled, slots } = templateFor(db);
    const parameters = slots.map((slot) => ("arg" in slot ? args[slot.arg] : slot.value));
    return { ...compiled, parameters } as CompiledQuery<R>;
  };
  const run = (db: Kysely<Database>, ...args: A) => db.executeQuery<R>(compile(db, ...args));
  return Object.assign(run, { compile });
}
