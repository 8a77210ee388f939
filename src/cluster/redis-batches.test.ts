import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { silentLogger } from "../lib/log";
import { EventBroker, type DeliveredEvent } from "../realtime/broker";
import { startTestRedis, type TestRedis } from "../testing/redis";
import { waitFor } from "../testing/wait";
import { eventHead, RedisEngines } from "./redis";

/*
 * What a node asks of Redis in one turn of the event loop goes in one script call: the rate
 * limits' hits, and the realtime events with their resume logs. Each answer and each event is
 * what it would be alone, in the order asked. An event's message is parsed only on a node
 * where one of its accounts has a stream.
 */

let redis: TestRedis;
let engines: RedisEngines;
let admin: RedisClient;
let broker: EventBroker;

/** A node's Redis engines and event broker (its stream hub), started. */
async function startNode(url: string) {
  const engines = new RedisEngines(url, "batches-secret", silentLogger);
  const broker = new EventBroker(() => ({
    carry() {},
    resume: async () => ({ events: [] }),
    prune() {},
    watch() {},
    wants: () => true,
  }));
  broker.useCarrier(engines.carrierFor(broker, () => 60_000));
  await engines.start();
  return { engines, broker };
}

beforeAll(async () => {
  redis = await startTestRedis();
  ({ engines, broker } = await startNode(redis.url));
  admin = new RedisClient(redis.url);
  await admin.connect();
});
afterAll(async () => {
  engines.close();
  admin.close();
  await redis.stop();
});

/** How many script calls Redis has run so far. */
const scriptCalls = async () => {
  const info = (await admin.send("INFO", ["commandstats"])) as string;
  return Number(info.match(/cmdstat_evalsha:calls=(\d+)/)?.[1] ?? 0);
};

test("the hits of one turn are counted by one script call, each counter in the order hit", async () => {
  await engines.hit("warm", 60_000, Date.now()); // loads the script
  const before = await scriptCalls();
  const now = Date.now();
  const counted = await Promise.all([
    engines.hit("a", 60_000, now),
    engines.hit("a", 60_000, now),
    engines.hit("b", 1_000, now),
    engines.hit("a", 60_000, now),
  ]);
  expect(await scriptCalls()).toBe(before + 1);
  expect(counted.map((c) => c.count)).toEqual([1, 2, 1, 3]);
  // the window is each counter's own, started by its first hit
  expect(counted[0]!.resetAt - now).toBeGreaterThan(59_000);
  expect(counted[2]!.resetAt - now).toBeLessThanOrEqual(1_000);
  expect(await engines.peek("a", now)).toMatchObject({ count: 3 });
});

test("the events of one turn are published by one script call: delivered in order, with rising ids, and kept for a resume", async () => {
  const heard: DeliveredEvent[] = [];
  const unsubscribe = broker.subscribe(7, (e) => heard.push(e));
  broker.publish(7, "stars:balance", { balance: 0 }); // loads the script
  await waitFor(() => heard.length === 1, 5_000, "the first event");
  const before = await scriptCalls();
  broker.publish([7, 8], "stars:balance", { balance: 1 });
  broker.publish(8, "stars:balance", { balance: 2 });
  broker.publish(7, "stars:balance", { balance: 3 });
  await waitFor(() => heard.length === 3, 5_000, "the turn's events");
  unsubscribe();
  expect(await scriptCalls()).toBe(before + 1);
  expect(heard.map((e) => (e.data as { balance: number }).balance)).toEqual([0, 1, 3]);
  expect(heard[1]!.id).toBeGreaterThan(heard[0]!.id);
  expect(heard[2]!.id).toBeGreaterThan(heard[1]!.id);
  const resumed = await broker.resume(8, heard[0]!.id);
  expect("events" in resumed && resumed.events.map((e) => (e.data as { balance: number }).balance)).toEqual([1, 2]);
});

test("an event's id and accounts are read from its message without its data; any other shape is parsed whole", () => {
  expect(eventHead('{"e":"message:new","id":1732950000000001,"to":[7,8],"d":{"to":[1],"id":2}}')).toEqual({
    id: 1732950000000001,
    to: [7, 8],
  });
  expect(eventHead('{"e":"typing","id":5,"to":[],"d":null}')).toEqual({ id: 5, to: [] });
  for (const other of [
    '{"id":5,"e":"x","to":[7],"d":1}',
    '{"e":"x","id":5,"to":[7]}',
    '{"e":"x","id":"5","to":[7],"d":1}',
  ])
    expect(eventHead(other)).toBeUndefined();
});

test("an event from another node for accounts without a stream here is neither parsed nor delivered here", async () => {
  // another node, publishing through the same Redis
  const { engines: other, broker: otherBroker } = await startNode(redis.url);
  const heard: DeliveredEvent[] = [];
  const unsubscribe = broker.subscribe(21, (e) => heard.push(e));
  const parse = JSON.parse;
  const parsed: string[] = [];
  JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    if (typeof text === "string" && text.includes('"stars:balance"')) parsed.push(text);
    return parse(text, reviver);
  }) as typeof JSON.parse;
  try {
    otherBroker.publish(22, "stars:balance", { balance: 1 });
    otherBroker.publish([22, 21], "stars:balance", { balance: 2 });
    // one connection publishes both, in order: once the second is here, the first has been read
    await waitFor(() => heard.length === 1, 5_000, "the event for 21");
  } finally {
    JSON.parse = parse;
    unsubscribe();
    other.close();
  }
  expect(heard.map((e) => [e.userId, (e.data as { balance: number }).balance])).toEqual([[21, 2]]);
  expect(parsed.some((text) => text.includes('"balance":1'))).toBe(false);
  expect(parsed.some((text) => text.includes('"balance":2'))).toBe(true);
});
