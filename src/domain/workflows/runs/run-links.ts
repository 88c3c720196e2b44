// The resume and cancel URLs of a paused run (SLUICE_PUBLIC_URL/r/<token>): a random token
// of about 190 bits, so it can only be learned, not guessed; only its SHA-256 is stored, so a
// copy of the database does not hold working URLs. Each is single-use (its row is deleted
// once either is used or the run moves on) and expires with the pause.
import { createHash } from "node:crypto";
import { randomString } from "../../../lib/ids.js";
import type { RunLinks } from "../../../runner/protocol/workflow-execution.js";

export const RUN_LINK_PREFIX = "/r/";

export const hashRunToken = (token: string): string => createHash("sha256").update(token).digest("hex");

export interface IssuedLinks {
  links: RunLinks;
  resumeHash: string;
  cancelHash: string;
}

/** Made for every step execution (the step may call $.flow); stored only if the step pauses. */
export function issueRunLinks(publicUrl: string): IssuedLinks {
  const resume = randomString(32);
  const cancel = randomString(32);
  return {
    links: { resume_url: `${publicUrl}${RUN_LINK_PREFIX}${resume}`, cancel_url: `${publicUrl}${RUN_LINK_PREFIX}${cancel}` },
    resumeHash: hashRunToken(resume),
    cancelHash: hashRunToken(cancel),
  };
}
