// Pipedream's prop expressions: a configured value may hold `{{ … }}`, JavaScript that reads
// what is in scope (`steps`, earlier steps' exports and return values) when the step runs.
// Pure text rules, shared by the service (which leaves such values unchecked at save: their
// type is known only once they are evaluated) and the runner (which evaluates them).

/** A value that is one expression and nothing else: its result, of any type, is the value. */
export const WHOLE_EXPRESSION = /^\s*\{\{((?:(?!\}\})[\s\S])+)\}\}\s*$/;
/** Expressions inside text: each result is put into the text. */
export const EMBEDDED_EXPRESSION = /\{\{([\s\S]+?)\}\}/g;

/** Whether a configured value is, or holds, an expression to evaluate when the step runs. */
export function holdsExpression(value: unknown): boolean {
  if (typeof value === "string") return /\{\{[\s\S]+?\}\}/.test(value);
  if (Array.isArray(value)) return value.some(holdsExpression);
  if (value && typeof value === "object") return Object.values(value).some(holdsExpression);
  return false;
}
