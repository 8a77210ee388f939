import { expect, test } from "bun:test";
import { AbuseGuard, MemoryCounterStore, RateLimiter, type CounterStore } from "./rate-limit";

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

test("the windows in memory are bounded: past the bound the window opened longest ago is forgotten", async () => {
  let bound = 3;
  const store = new MemoryCounterStore(() => bound);
  const limiter = new RateLimiter(store);
  const now = 50_000;
  for (const key of ["a", "b", "c"]) limiter.checkNow(key, 1, 60_000, now);
  expect(limiter.checkNow("a", 1, 60_000, now)).toMatchObject({ allowed: false });
  // "a" is still the window opened first (a hit does not reopen it): a fourth key forgets it
  limiter.checkNow("d", 1, 60_000, now);
  expect(await store.peek("a", now)).toBeNull();
  for (const key of ["b", "c", "d"]) expect(await store.peek(key, now)).not.toBeNull();
  // the bound is read on every new window (a changed setting holds at once)
  bound = 1;
  limiter.checkNow("e", 1, 60_000, now);
  for (const key of ["b", "c", "d"]) expect(await store.peek(key, now)).toBeNull();
  expect(await store.peek("e", now)).toMatchObject({ count: 1 });
});

test("blocked addresses are bounded: past the bound the block set longest ago ends", async () => {
  const guard = new AbuseGuard(
    () => 0,
    () => 60_000,
    new RateLimiter(),
    () => 2,
  );
  const now = 50_000;
  for (const ip of ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) await guard.noteRejection(ip, now);
  expect(guard.blockedFor("10.0.0.1", now)).toBe(0);
  expect(guard.blockedFor("10.0.0.2", now)).toBe(60);
  expect(guard.blockedFor("10.0.0.3", now)).toBe(60);
});
