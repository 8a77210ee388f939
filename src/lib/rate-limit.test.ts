import { expect, test } from "bun:test";
import { MemoryCounterStore, RateLimiter, type CounterStore } from "./rate-limit";

test("checkNow answers at once from memory and through a promise from a store that has no hitNow (Redis)", async () => {
  const memory = new RateLimiter(new MemoryCounterStore(), "t");
  const first = memory.checkNow("k", 2, 1000, 10_000);
  expect(first).toEqual({ allowed: true, retryAfter: 1 });
  expect(memory.checkNow("k", 2, 1000, 10_100)).toEqual({ allowed: true, retryAfter: 1 });
  expect(memory.checkNow("k", 2, 1000, 10_200)).toEqual({ allowed: false, retryAfter: 1 });
  // check() counts in the same windows
  expect(await memory.check("k", 2, 1000, 10_300)).toEqual({ allowed: false, retryAfter: 1 });
  expect(memory.checkNow("k", 2, 1000, 11_000)).toEqual({ allowed: true, retryAfter: 1 });

  const inner = new MemoryCounterStore();
  // as Redis answers: a copy of the window as it was after this hit
  const remote: CounterStore = {
    hit: async (...a) => ({ ...inner.hitNow(...a) }),
    peek: (...a) => inner.peek(...a),
  };
  const shared = new RateLimiter(remote, "t");
  const answers = [shared.checkNow("k", 1, 1000, 0), shared.checkNow("k", 1, 1000, 0)];
  expect(answers.every((a) => a instanceof Promise)).toBe(true);
  expect(await Promise.all(answers)).toEqual([
    { allowed: true, retryAfter: 1 },
    { allowed: false, retryAfter: 1 },
  ]);
  // keys are counted under the limiter's namespace
  expect(await inner.peek("t:k", 0)).toMatchObject({ count: 2 });
});
