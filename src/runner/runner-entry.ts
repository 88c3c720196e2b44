// Entry of a runner child process (started by src/runtime/process-pool.ts with Node's
// permission model and an empty environment, inside the OS sandbox when there is one). It opens
// its channel to the service, hardens the process, sends its network through the service's
// egress proxy, installs the console capture, then serves requests from the service one at a
// time, in the order they came.
import { installConsoleCapture } from "./console-capture.js";
import { setCurrentExecution } from "./egress/current-execution.js";
import { egressSettings, installEgressGuard } from "./egress/egress.js";
import { errorData } from "./execute.js";
import { harden } from "./harden.js";
import { handlers } from "./handlers.js";
import { InvalidComponentError } from "./load-component.js";
import type { RequestMessage } from "./protocol/messages.js";
import { createServiceCalls } from "./service-calls.js";
import { openServiceChannel } from "./service-channel.js";

// Requests arrive one per message or several in one (the pool's batches); they run one by one.
const queue: RequestMessage[] = [];
let current: number | undefined;
let working = false;
// Set once the runner asked to be recycled: it starts nothing more, the service stops it.
let retiring = false;
const channel = openServiceChannel(
  (requests) => {
    queue.push(...requests);
    if (!working) void work();
  },
  (reply) => calls.settle(reply),
);
const send = channel.send;
const calls = createServiceCalls(send);

harden();
// Only tests start a runner without it, to show that the OS sandbox alone stops what it guards.
if (!process.argv.includes("--without-in-process-guard")) installEgressGuard(egressSettings(process.argv));
installConsoleCapture();
const identity = <T>(value: T): T => value;
for (const name of ["defineComponent", "defineSource", "defineApp", "defineAction"]) (globalThis as any)[name] = identity;

// An error escaping user code asynchronously (a throw in a stray timer) fails the execution in
// progress, and the runner asks to be recycled since its state can no longer be trusted.
function onStrayError(thrown: unknown): void {
  retiring = true;
  if (current !== undefined) {
    const id = current;
    current = undefined;
    send({ id, type: "failed", error: errorData(thrown), recycle: true });
  } else {
    send({ id: -1, type: "failed", error: errorData(thrown), recycle: true });
  }
}
process.on("uncaughtException", onStrayError);
process.on("unhandledRejection", onStrayError);

async function work(): Promise<void> {
  working = true;
  while (queue.length > 0 && !retiring) await serve(queue.shift()!);
  working = false;
}

async function serve(message: RequestMessage): Promise<void> {
  const handler = handlers[message?.type];
  if (!handler) {
    send({ id: message?.id, type: "failed", error: { name: "Error", message: `unknown request type ${message?.type}`, stack: "" } });
    return;
  }
  current = message.id;
  setCurrentExecution(message.id);
  const started = performance.now();
  const took = () => performance.now() - started;
  try {
    const result = await handler(message.payload, {
      emitEvent: (event) => current === message.id && send({ id: message.id, type: "event", event }),
      // Code left running after its execution (a stray timer) asks nothing more of the service.
      callService: (method, args) =>
        current === message.id ? calls.call(message.id, method, args) : Promise.reject(new Error("the execution has ended")),
    });
    if (current === message.id) send({ id: message.id, type: "done", result, ms: took() });
  } catch (thrown) {
    if (current === message.id)
      send({
        id: message.id,
        type: "failed",
        error: { ...errorData(thrown), validation: thrown instanceof InvalidComponentError },
        ms: took(),
      });
  } finally {
    if (current === message.id) current = undefined;
    // Tunnels asked for from here on (a timer left running) are no execution's: the service
    // closes them when the next execution ends, if not before.
    setCurrentExecution(current);
  }
}

send({ type: "ready" });
