/**
 * Polls until `check` passes (or `timeoutMs` runs out, then fails with its last error): click
 * counts reach the database, and the API, on the flush timer.
 */
export async function eventually(check: () => Promise<void>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
