// What ends a `sluice` command, and with which exit code: bad usage is 2 (printed with the
// command's usage line and a pointer to its --help); a refusal by the server or the domain, an
// unreachable server or a missing login is 1.
export class UsageError extends Error {
  readonly exitCode = 2;
}

export class CommandFailed extends Error {
  readonly exitCode = 1;
}
