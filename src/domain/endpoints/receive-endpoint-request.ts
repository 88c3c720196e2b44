// One request to a public endpoint, of a source (/e/<key>) or a workflow (/w/<key>): the
// target is found by its endpoint key (unknown or inactive: 404), its account's quota is
// checked (over it: 429), and then either the request is accepted durably (a queued job,
// written before the 200) and run by a worker, or — when the target's code answers requests
// itself — it runs now and the request gets the response the code gave, once the run's events
// are stored. A run that fails before responding is an ExecutionFailedError (a 500 naming it).
import { notFound } from "../../lib/errors.js";
import type { HttpResponseRecord } from "../../runtime/code-runner.js";
import { acceptForLater, assertAccountMayStore } from "./accept-for-later.js";
import type { EndpointKind, EndpointRequest } from "./endpoint-kind.js";
import { ExecutionFailedError } from "./execution-failed.js";

export async function receiveEndpointRequest<Target>(kind: EndpointKind<Target>, request: EndpointRequest): Promise<HttpResponseRecord> {
  const target = await kind.find(request.key);
  if (!target) throw notFound();
  await assertAccountMayStore(kind.deps.ctx, kind.ownerOf(target));
  const event = kind.eventOf(request);
  // Requests accepted close together share a commit; each is answered once its job is committed.
  if (!kind.respondsItself(target)) return acceptForLater(kind.deps, [kind.job(target, event)]);
  // The response the code gave is sent once the run's events are stored: a 2xx means they
  // are accepted, so they must survive a crash right after it (docs/architecture.md,
  // "Delivery"). Code that responds and then fails still gets its response sent; its error
  // goes to $errors.
  let response: HttpResponseRecord | undefined;
  const result = await kind.run(target, event, (given) => (response ??= given));
  if (!result) throw notFound();
  response ??= result.response;
  if (response) return response;
  if (result.error) throw new ExecutionFailedError(kind.failureMessage(result.error), result.error);
  return kind.noResponse;
}
