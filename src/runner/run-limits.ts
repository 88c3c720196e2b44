// The per-execution limits the service started this runner with (`--limits=<json>`): what one
// execution may emit. The service checks the result again; here a clear error reaches the code
// that crossed a limit, at the emit that crossed it.
import type { RunLimits } from "./protocol/component-execution.js";

/** A runner started without them (by hand) caps nothing here; the service checks regardless. */
const UNLIMITED: RunLimits = { maxEmits: Infinity, maxEmitBytes: Infinity, maxEventBytes: Infinity };

function limitsOf(argv: string[]): RunLimits {
  const arg = argv.find((a) => a.startsWith("--limits="));
  return arg ? { ...UNLIMITED, ...(JSON.parse(arg.slice("--limits=".length)) as Partial<RunLimits>) } : UNLIMITED;
}

/** This runner's limits, read once from its arguments. */
export const RUN_LIMITS: RunLimits = limitsOf(process.argv);

export class EmitLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EmitLimitError";
  }
}

/** Counts one execution's emits; throws EmitLimitError at the emit past a limit. */
export function emitBudget(limits: RunLimits) {
  let count = 0;
  let bytes = 0;
  return (eventBytes: number) => {
    if (count + 1 > limits.maxEmits)
      throw new EmitLimitError(`an execution may emit at most ${limits.maxEmits} events (SLUICE_MAX_EMITS_PER_RUN)`);
    if (eventBytes > limits.maxEventBytes)
      throw new EmitLimitError(
        `an event of ${eventBytes} bytes is over the limit of ${limits.maxEventBytes} bytes (SLUICE_MAX_EVENT_BYTES)`,
      );
    if (bytes + eventBytes > limits.maxEmitBytes)
      throw new EmitLimitError(`an execution may emit at most ${limits.maxEmitBytes} bytes of events (SLUICE_MAX_EMIT_BYTES_PER_RUN)`);
    count++;
    bytes += eventBytes;
  };
}
