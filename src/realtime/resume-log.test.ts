import { expect, test } from "bun:test";
import { EventBroker, type DeliveredEvent } from "./broker";
import { LocalCarrier } from "./resume-log";

/** A broker on the in-process carrier with a clock the test moves; retention 60 s. */
function broker() {
  let now = 1_000_000;
  let carrier!: LocalCarrier;
  const events = new EventBroker((b) => (carrier = new LocalCarrier(b, { retentionMs: () => 60_000, now: () => now })));
  return { events, carrier: () => carrier, advance: (ms: number) => void (now += ms) };
}

const message = (content: string) => ({ conversationId: "c1", message: { content } });
const contents = (events: DeliveredEvent[]) =>
  events.map((e) => (e.data as { message: { content: string } }).message.content);

test("events for accounts never connected are not kept, and nobody need build them", async () => {
  const { events, carrier } = broker();
  expect(events.wants([1, 2])).toBe(false);
  // nor serialize them: the log makes an event's text only for an account that keeps it
  let serialized = 0;
  const unkept = { ...message("to nobody online"), toJSON: () => (serialized++, message("to nobody online")) };
  events.publish([1, 2], "message:new", unkept);
  expect(carrier().size()).toBe(0);
  expect(serialized).toBe(0);
  const latest = await events.resume(1, 0);
  expect("reset" in latest && latest.reset).toBe("unknown-id");

  const got: DeliveredEvent[] = [];
  const stop = events.subscribe(2, (e) => got.push(e));
  expect(events.wants([1, 2])).toBe(true);
  expect(events.wants([1])).toBe(false);
  events.publish([1, 2], "message:new", message("to 2 online"));
  expect(contents(got)).toEqual(["to 2 online"]);
  // kept for the connected account only
  expect(carrier().size()).toBe(1);
  stop();
});

test("after a stream ends its account's events are kept for the retention window, then the account is forgotten", async () => {
  const { events, carrier, advance } = broker();
  const got: DeliveredEvent[] = [];
  const stop = events.subscribe(7, (e) => got.push(e));
  events.publish(7, "message:new", message("seen"));
  stop();
  stop(); // idempotent: the account is not counted away twice
  advance(30_000);
  expect(events.wants([7])).toBe(true);
  events.publish(7, "message:new", message("missed while away"));
  const resumed = await events.resume(7, got[0]!.id);
  expect("events" in resumed && contents(resumed.events)).toEqual(["missed while away"]);

  // while one of its connections is open the account stays, however long
  const first = events.subscribe(7, () => {});
  const second = events.subscribe(7, () => {});
  first();
  advance(120_000);
  carrier().prune(1_000_000 + 150_000);
  expect(events.wants([7])).toBe(true);
  // gone for longer than the retention window: forgotten
  second();
  advance(61_000);
  carrier().prune(1_000_000 + 211_000);
  expect(events.wants([7])).toBe(false);
  expect(carrier().accounts()).toBe(0);
  events.publish(8, "message:new", message("someone else's"));
  const late = await events.resume(7, got[0]!.id);
  expect("reset" in late && late.reset).toBe("gap");
});

test("an account's first stream resuming from an id before it connected is told to refetch", async () => {
  const { events } = broker();
  const seen: DeliveredEvent[] = [];
  const stop1 = events.subscribe(1, (e) => seen.push(e));
  events.publish([1, 2], "message:new", message("first"));
  events.publish([1, 2], "message:new", message("second"));
  // account 2 connects for the first time with an id another account's client saw (same browser)
  const stop2 = events.subscribe(2, () => {});
  const resumed = await events.resume(2, seen[0]!.id);
  expect("reset" in resumed && resumed.reset).toBe("gap");
  // from the newest id there is nothing to miss
  expect(await events.resume(2, seen[1]!.id)).toEqual({ events: [] });
  events.publish(2, "message:new", message("third"));
  const later = await events.resume(2, seen[1]!.id);
  expect("events" in later && contents(later.events)).toEqual(["third"]);
  stop1();
  stop2();
});

test("limits.resumeAccounts: past the bound the disconnected account seen longest ago is forgotten; its resume is a gap, connected ones keep theirs", async () => {
  let now = 1_000_000;
  let carrier!: LocalCarrier;
  const events = new EventBroker(
    (b) => (carrier = new LocalCarrier(b, { retentionMs: () => 60_000, now: () => now, maxAccounts: () => 2 })),
  );
  const got: DeliveredEvent[] = [];
  const stayOne = events.subscribe(1, (e) => got.push(e));
  events.subscribe(2, () => {})();
  events.publish([1, 2], "message:new", message("before"));
  now += 1_000;
  // a third account: the disconnected one (2) goes, the connected one (1) stays
  const stayThree = events.subscribe(3, () => {});
  expect(events.wants([2])).toBe(false);
  expect(events.wants([1, 3])).toBe(true);
  events.publish([1, 2], "message:new", message("after"));
  const one = await events.resume(1, got[0]!.id);
  expect("events" in one && contents(one.events)).toEqual(["after"]);
  const two = await events.resume(2, got[0]!.id);
  expect("reset" in two).toBe(true);
  expect(carrier.size()).toBe(2);
  stayOne();
  stayThree();
});

test("the log keeps an event's text, not its payload: once delivered, the payload and its frames can go", async () => {
  const { events } = broker();
  const got: DeliveredEvent[] = [];
  const stop = events.subscribe(3, (e) => got.push(e));
  let published: ReturnType<typeof message> | null = message("kept as text");
  const payload = new WeakRef(published);
  events.publish(3, "message:new", published);
  const firstId = got[0]!.id;
  published = null;
  got.length = 0;
  events.publish(3, "message:new", message("later"));
  Bun.gc(true);
  expect(payload.deref()).toBeUndefined();
  const resumed = await events.resume(3, firstId - 1);
  expect("events" in resumed && resumed.events.map((e) => e.data)).toEqual([message("kept as text"), message("later")]);
  stop();
});
