// Evaluates the `{{ … }}` expressions of a step's configured prop values, in the runner (they
// are user code), just before the step runs: a value that is one expression becomes its result
// (an object stays an object), text with expressions in it gets each result as text (objects as
// JSON). Arrays and plain objects are evaluated item by item. An expression that throws fails
// the step, naming the prop and the expression.
import { EMBEDDED_EXPRESSION, WHOLE_EXPRESSION } from "../protocol/prop-expressions.js";

export interface ExpressionScope {
  steps: Record<string, unknown>;
}

export function evaluatePropValue(value: unknown, scope: ExpressionScope, prop: string): unknown {
  if (typeof value === "string") return evaluateText(value, scope, prop);
  if (Array.isArray(value)) return value.map((item) => evaluatePropValue(item, scope, prop));
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, evaluatePropValue(item, scope, prop)]));
  return value;
}

function evaluateText(text: string, scope: ExpressionScope, prop: string): unknown {
  const whole = WHOLE_EXPRESSION.exec(text);
  if (whole) return evaluate(whole[1]!, scope, prop);
  if (!text.includes("{{")) return text;
  return text.replace(EMBEDDED_EXPRESSION, (_match, expression: string) => asText(evaluate(expression, scope, prop)));
}

function evaluate(expression: string, scope: ExpressionScope, prop: string): unknown {
  try {
    // `process` is the runner's own: `{{process.env.X}}` reads what the runner was given.
    return new Function("steps", "process", `"use strict";\nreturn (${expression}\n);`)(scope.steps, process);
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new TypeError(`props.${prop}: the expression {{${expression.trim()}}} failed: ${message}`);
  }
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
