/**
 * The request loop of the sweeps (fuzzing, body limits, IDOR): ITEMS sent by CONCURRENCY
 * workers, each answer read and timed; CHECK returns a problem to report, or null.
 */
export async function sweep<T>(
  items: readonly T[],
  send: (item: T) => Promise<Response>,
  check: (item: T, answer: { status: number; text: string; json: any; ms: number }) => Record<string, unknown> | null,
  concurrency = 4,
): Promise<{ problems: Record<string, unknown>[]; slowest: { ms: number; item: T | null } }> {
  const problems: Record<string, unknown>[] = [];
  let slowest: { ms: number; item: T | null } = { ms: 0, item: null };
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      const t0 = performance.now();
      const res = await send(item);
      const text = await res.text();
      const ms = performance.now() - t0;
      if (ms > slowest.ms) slowest = { ms, item };
      let json: any = null;
      try {
        json = JSON.parse(text);
      } catch {
        // not JSON: CHECK sees json === null
      }
      const problem = check(item, { status: res.status, text, json, ms });
      if (problem) problems.push(problem);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { problems, slowest };
}
