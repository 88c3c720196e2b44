// Polls a condition until it holds or a deadline passes (tests never sleep a fixed time).
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5000, intervalMs = 5): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
