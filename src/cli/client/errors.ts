// What ends a client command, and with which exit code: bad usage is 2; a refusal by the
// server, an unreachable server or a missing login is 1.
export class UsageError extends Error {
  readonly exitCode = 2;
}

export class CommandFailed extends Error {
  readonly exitCode = 1;
}
