// The id of the execution this runner is running, named on each egress tunnel it asks for so
// that the service closes the tunnel when that execution ends (runner-entry.ts sets it).
let current: number | undefined;

export const currentExecution = (): number | undefined => current;

export function setCurrentExecution(id: number | undefined): void {
  current = id;
}
