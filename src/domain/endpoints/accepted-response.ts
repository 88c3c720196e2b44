// The answer of a public endpoint (source or workflow) whose request was stored for a run
// later: given once the job is committed.
import type { HttpResponseRecord } from "../../runtime/code-runner.js";

export const ACCEPTED_RESPONSE: HttpResponseRecord = { status: 200, headers: {}, body: { kind: "json", value: { status: "accepted" } } };
