import { RedisClient } from "bun";
import { sha256Hex } from "../lib/crypto";
import { randomToken } from "../lib/ids";
import { TurnBatch } from "../lib/turn-batch";
import type { Logger } from "../lib/log";
import { MemoryCounterStore, type CounterStore } from "../lib/rate-limit";
import type { DeliveredEvent, EventBroker, EventCarrier, Resumed } from "../realtime/broker";
import { payloadJsonOf, TRANSIENT_EVENTS } from "../realtime/broker";
import { RESUME_PER_USER } from "../realtime/resume-log";
import type { RealtimeEventName } from "../realtime/events";
import type { Leases } from "./leases";
import type { PubSub } from "./pubsub";

/*
 * Redis behind the cluster seams (pubsub.url): one command connection and one subscriber
 * connection per node, through Bun's built-in client. Bun's client gives up after a burst of
 * failed reconnects and does not restore subscriptions, so both connections are reopened
 * here (with backoff) and the subscription is renewed; anything that may have been missed
 * meanwhile is re-read by the resync listeners (streams resume from the shared log, parked
 * long polls look at the queue again).
 *
 * Everything goes over ONE channel per instance (`<prefix>bus`): one SUBSCRIBE, made before
 * the node serves, so no feature can miss a message published while its own subscription
 * was still on its way. A message is `<topic>\n<body>`. Pub/sub channels ignore Redis
 * database numbers, so channel and keys are prefixed with a digest of the instance secret:
 * two instances sharing one Redis server never hear each other.
 *
 * While Redis is away the node serves on, standing in for it on its own (and saying so in
 * its log): its messages reach its own listeners, its realtime events its own streams, its
 * rate limits are counted in its memory and its getUpdates generations come from its clock.
 * A restarted or wiped Redis is no break in order: generations and event ids come from
 * Redis's clock, not from counters that would start again, and the resume log knows since
 * when it holds events (`rt:since`), so a resume from before then gets stream:reset.
 */

const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 5_000;
const PING_TIMEOUT_MS = 2_000;
/** A resume from an id older than this always starts with stream:reset (forgotten-id markers live this long). */
const GONE_TTL_MS = 86_400_000;
const REALTIME_TOPIC = "rt";

/**
 * The id and accounts of a realtime event's message as PUBLISH_EVENTS writes it
 * (`{"e":"<name>","id":<id>,"to":[<ids>],"d":…`), read without parsing its data; undefined
 * for any other shape.
 */
export function eventHead(body: string): { id: number; to: number[] } | undefined {
  const idAt = body.indexOf('","id":');
  if (!body.startsWith('{"e":"') || idAt < 0) return undefined;
  const toAt = body.indexOf(',"to":[', idAt);
  const toEnd = body.indexOf("]", toAt);
  if (toAt < 0 || toEnd < 0 || !body.startsWith(',"d":', toEnd + 1)) return undefined;
  const id = Number(body.slice(idAt + 7, toAt));
  const list = body.slice(toAt + 7, toEnd);
  const to = list === "" ? [] : list.split(",").map(Number);
  if (!Number.isSafeInteger(id) || to.some((userId) => !Number.isSafeInteger(userId))) return undefined;
  return { id, to };
}

/** The most rate-limit hits or realtime events one script call carries. */
const MAX_SCRIPT_BATCH = 64;

interface Hit {
  key: string;
  windowMs: number;
  now: number;
  resolve: (counted: { count: number; resetAt: number }) => void;
}

interface CarriedEvent {
  userIds: readonly number[];
  event: RealtimeEventName;
  data: unknown;
  json: string;
}

/**
 * Publishes realtime events, each to many accounts, atomically: each its id (ms × 1000 +
 * counter, from Redis's clock, so every node hands out increasing ids; one for all its
 * accounts, so a node writes its frames once), each account's resume log (a sorted set trimmed
 * by age and count, the newest forgotten id kept beside it), then one message per event, in
 * the order given. ARGV: prefix, per-account bound, retention ms, gone ttl ms, then for each
 * event: its name, data JSON, keep (1/0), the number of its accounts, their ids.
 */
const PUBLISH_EVENTS = `
local prefix = ARGV[1]
local perUser = tonumber(ARGV[2])
local retention = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local seqKey = prefix .. 'rt:seq'
local last = tonumber(redis.call('GET', seqKey) or '0')
local cutoff = string.format('%.0f', (now - retention) * 1000)
local sid
local i = 5
while i <= #ARGV do
  local event, data, keep, count = ARGV[i], ARGV[i + 1], ARGV[i + 2] == '1', tonumber(ARGV[i + 3])
  last = math.max(last + 1, now * 1000)
  sid = string.format('%.0f', last)
  -- the first event of an empty Redis (new, restarted, wiped) starts the span the logs cover
  if i == 5 then redis.call('SET', prefix .. 'rt:since', sid, 'NX') end
  local to = {}
  for j = i + 4, i + 3 + count do
    to[#to + 1] = ARGV[j]
    if keep then
      local key = prefix .. 'rt:log:' .. ARGV[j]
      redis.call('ZADD', key, sid, sid .. ' ' .. event .. ' ' .. data)
      local gone = nil
      local old = redis.call('ZRANGEBYSCORE', key, '-inf', cutoff, 'WITHSCORES')
      if #old > 0 then
        gone = old[#old]
        redis.call('ZREMRANGEBYSCORE', key, '-inf', cutoff)
      end
      local n = redis.call('ZCARD', key)
      if n > perUser then
        local popped = redis.call('ZPOPMIN', key, n - perUser)
        gone = popped[#popped]
      end
      if gone then redis.call('SET', key .. ':gone', gone, 'PX', ARGV[4]) end
      redis.call('PEXPIRE', key, retention)
    end
  end
  redis.call('PUBLISH', prefix .. 'bus', '${REALTIME_TOPIC}\\n{"e":"' .. event .. '","id":' .. sid .. ',"to":[' .. table.concat(to, ',') .. '],"d":' .. data .. '}')
  i = i + 4 + count
end
redis.call('SET', seqKey, sid)
return 1
`;

/**
 * The kept events of one account after a client's last id, or why it must refetch:
 * 'unknown-id' (newer than anything published), 'gap' (something after it was forgotten, or
 * the id is older than the span this Redis kept events for: it was restarted or wiped since,
 * so what came between cannot be proved to be in the log).
 * ARGV: prefix, user id, last id, retention ms, gone ttl ms.
 */
const RESUME = `
local prefix = ARGV[1]
local latest = tonumber(redis.call('GET', prefix .. 'rt:seq') or '0')
local latestS = string.format('%.0f', latest)
local lastId = tonumber(ARGV[3])
if lastId > latest then return {'unknown-id', latestS} end
local since = tonumber(redis.call('GET', prefix .. 'rt:since') or '0')
if since == 0 or lastId < since then return {'gap', latestS} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local key = prefix .. 'rt:log:' .. ARGV[2]
local gone = tonumber(redis.call('GET', key .. ':gone') or '0')
local cutoff = string.format('%.0f', (now - tonumber(ARGV[4])) * 1000)
if lastId < gone or lastId < (now - tonumber(ARGV[5])) * 1000 or redis.call('ZCOUNT', key, '(' .. ARGV[3], cutoff) > 0 then
  return {'gap', latestS}
end
local events = redis.call('ZRANGEBYSCORE', key, '(' .. ARGV[3], '+inf')
table.insert(events, 1, latestS)
table.insert(events, 1, 'ok')
return events
`;

/**
 * Events after now start a new span of the logs: a node delivered events only to its own
 * streams while it could not reach Redis, and those ids were never logged, so a resume from
 * any id before now must reset. ARGV: prefix.
 */
const MARK_GAP = `
local t = redis.call('TIME')
local now = (tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)) * 1000
local last = tonumber(redis.call('GET', ARGV[1] .. 'rt:seq') or '0')
redis.call('SET', ARGV[1] .. 'rt:since', string.format('%.0f', math.max(now, last + 1)))
return 1
`;

/**
 * One fixed window per counter: the first hit starts it (and its expiry). KEYS: the counters,
 * a counter named again hit again; ARGV: each one's window ms. Returns count, ms left, for each.
 */
const HITS = `
local out = {}
for i = 1, #KEYS do
  local n = redis.call('INCR', KEYS[i])
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl < 0 then
    redis.call('PEXPIRE', KEYS[i], ARGV[i])
    ttl = tonumber(ARGV[i])
  end
  out[#out + 1] = n
  out[#out + 1] = ttl
end
return out
`;

/** The open window of a counter: {count, ms left}, or nothing. */
const PEEK = `
local n = redis.call('GET', KEYS[1])
if not n then return nil end
return {tonumber(n), redis.call('PTTL', KEYS[1])}
`;

const ACQUIRE = `
local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`;

/**
 * A generation from Redis's clock (µs), above the key's last one: it keeps growing across a
 * Redis restart or wipe (a counter would start again from 1, below what every node heard of,
 * and every newer getUpdates would look older). Returned as text: a Lua number becomes an
 * integer reply only below 2^63, and the text keeps it exact either way.
 */
const NEXT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local n = math.max(tonumber(redis.call('GET', KEYS[1]) or '0') + 1, now)
local s = string.format('%.0f', n)
redis.call('SET', KEYS[1], s, 'PX', ARGV[1])
return s
`;

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A connection that reopens itself after Bun's client gave up, calling ONOPEN after each (re)open. */
class Reopening {
  client: RedisClient;
  private closing = false;
  private delay = RECONNECT_FIRST_MS;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** why the last (re)open failed; null while connected */
  failure: string | null = "not connected yet";

  constructor(
    private readonly url: string,
    private readonly name: string,
    private readonly log: Logger,
    private readonly onOpen: (client: RedisClient, reopened: boolean) => Promise<void>,
  ) {
    this.client = this.make();
  }

  private make(): RedisClient {
    // the reconnecting is ours: a client Bun gave up on stays closed
    const client = new RedisClient(this.url, { autoReconnect: false, enableOfflineQueue: false });
    client.onclose = (err) => {
      if (this.closing || client !== this.client) return;
      this.failure = errorText(err) || "connection closed";
      this.log.warn("redis connection lost; reconnecting", { connection: this.name, error: this.failure });
      this.retry(true);
    };
    return client;
  }

  async open(reopened = false): Promise<void> {
    try {
      await this.client.connect();
      await this.onOpen(this.client, reopened);
      this.failure = null;
      this.delay = RECONNECT_FIRST_MS;
      if (reopened) this.log.info("redis connection restored", { connection: this.name });
    } catch (err) {
      this.failure = errorText(err);
      if (!reopened) this.log.error("redis unreachable; retrying", { connection: this.name, error: this.failure });
      this.retry(reopened);
    }
  }

  private retry(reopened: boolean): void {
    if (this.closing || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.closing) return;
      const old = this.client;
      this.client = this.make();
      try {
        old.close();
      } catch {
        // already closed
      }
      void this.open(reopened);
    }, this.delay);
    this.delay = Math.min(RECONNECT_MAX_MS, this.delay * 2);
  }

  close(): void {
    this.closing = true;
    if (this.timer) clearTimeout(this.timer);
    this.client.close();
  }
}

/**
 * Every cluster seam on one Redis: pub/sub, the realtime carrier and resume log, rate-limit
 * counters and leases. Built by cluster/engines.ts when `pubsub.url` is set.
 */
export class RedisEngines implements PubSub, CounterStore, Leases {
  readonly engine = "redis";
  readonly nodeId = randomToken(8);
  private readonly prefix: string;
  private readonly cmd: Reopening;
  private readonly sub: Reopening;
  private readonly topics = new Map<string, Set<(message: string) => void>>();
  private readonly resyncs = new Set<() => void>();
  private readonly shas = new Map<string, string>();
  /** this node's own limits while Redis is away (each node counts alone meanwhile) */
  private readonly ownCounters = new MemoryCounterStore();
  /** when each stand-in warning was last logged, so an outage logs each a few times, not per request */
  private readonly warned = new Map<string, number>();
  private lastGeneration = 0;
  /** events were delivered to this node's streams only, unlogged: the logs' span restarts on reconnect */
  private deliveredUnlogged = false;
  /** the newest realtime event id seen, so ids this node gives out alone keep growing */
  private lastEventId = 0;

  constructor(
    url: string,
    secret: string,
    private readonly log: Logger,
  ) {
    this.prefix = `socialctl:${sha256Hex(secret).slice(0, 12)}:`;
    this.cmd = new Reopening(url, "commands", log, async (client) => void (await client.send("PING", [])));
    this.sub = new Reopening(url, "subscriber", log, async (client, reopened) => {
      await client.subscribe(`${this.prefix}bus`, (message) => this.receive(message));
      if (this.deliveredUnlogged) {
        await this.script(MARK_GAP, [], [this.prefix]);
        this.deliveredUnlogged = false;
      }
      if (reopened) for (const listener of this.resyncs) listener();
    });
  }

  /** Connects both connections; an unreachable Redis is logged and retried, never fatal (status and /readyz tell). */
  async start(): Promise<void> {
    await Promise.all([this.cmd.open(), this.sub.open()]);
  }

  close(): void {
    this.cmd.close();
    this.sub.close();
  }

  private receive(raw: string): void {
    const nl = raw.indexOf("\n");
    if (nl < 0) return;
    const listeners = this.topics.get(raw.slice(0, nl));
    if (!listeners) return;
    const body = raw.slice(nl + 1);
    for (const listener of listeners) {
      try {
        listener(body);
      } catch (err) {
        this.log.error("pub/sub listener failed", { error: errorText(err) });
      }
    }
  }

  /** Runs a Lua script by its digest, loading it on first use (and again after a Redis restart). */
  private async script(source: string, keys: string[], args: string[]): Promise<unknown> {
    const client = this.cmd.client;
    let sha = this.shas.get(source);
    if (sha) {
      try {
        return await client.send("EVALSHA", [sha, String(keys.length), ...keys, ...args]);
      } catch (err) {
        if (!errorText(err).includes("NOSCRIPT")) throw err;
      }
    }
    sha = (await client.send("SCRIPT", ["LOAD", source])) as string;
    this.shas.set(source, sha);
    return client.send("EVALSHA", [sha, String(keys.length), ...keys, ...args]);
  }

  // ---- PubSub

  async publish(topic: string, message: string): Promise<void> {
    try {
      await this.cmd.client.publish(`${this.prefix}bus`, `${topic}\n${message}`);
    } catch (err) {
      // this node's own listeners still hear it (a long poll parked here wakes); other nodes
      // learn what they missed when the connection is back (resync)
      this.warnUnshared("redis unreachable; messages between nodes reach this node only", err);
      this.receive(`${topic}\n${message}`);
    }
  }

  subscribe(topic: string, listener: (message: string) => void): () => void {
    let set = this.topics.get(topic);
    if (!set) this.topics.set(topic, (set = new Set()));
    set.add(listener);
    return () => set!.delete(listener);
  }

  onResync(listener: () => void): () => void {
    this.resyncs.add(listener);
    return () => this.resyncs.delete(listener);
  }

  async problem(): Promise<string | null> {
    const down = this.cmd.failure ?? this.sub.failure;
    if (down) return `redis: ${down}`;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        this.cmd.client.send("PING", []),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("no answer to PING")), PING_TIMEOUT_MS))),
      ]);
      return null;
    } catch (err) {
      return `redis: ${errorText(err)}`;
    } finally {
      clearTimeout(timer);
    }
  }

  // ---- CounterStore

  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }> {
    return new Promise((resolve) => this.hits.add({ key, windowMs, now, resolve }));
  }

  /** The hits of one turn, counted by one script call. */
  private readonly hits = new TurnBatch<Hit>(
    async (hits) => {
      const counted = (await this.script(
        HITS,
        hits.map((h) => `${this.prefix}rl:${h.key}`),
        hits.map((h) => String(h.windowMs)),
      )) as number[];
      hits.forEach((h, i) => h.resolve({ count: counted[2 * i]!, resetAt: h.now + counted[2 * i + 1]! }));
    },
    {
      max: MAX_SCRIPT_BATCH,
      oneAtATime: false,
      onFailure: (err, hits) => {
        // while Redis is away each node enforces the limits alone (so N nodes allow up to N times as much)
        this.warnUnshared("rate-limit counters unavailable; each node counts alone", err);
        for (const h of hits) h.resolve(this.ownCounters.hitNow(h.key, h.windowMs, h.now));
      },
    },
  );

  async peek(key: string, now: number): Promise<{ count: number; resetAt: number } | null> {
    try {
      const found = (await this.script(PEEK, [`${this.prefix}rl:${key}`], [])) as [number, number] | null;
      return found && found[1] > 0 ? { count: found[0], resetAt: now + found[1] } : null;
    } catch {
      // as hit(): this node's own count while Redis is away
      return this.ownCounters.peek(key, now);
    }
  }

  // ---- Leases

  async acquire(key: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.script(ACQUIRE, [`${this.prefix}lease:${key}`], [owner, String(ttlMs)])) === 1;
  }

  async release(key: string, owner: string): Promise<boolean> {
    return (await this.script(RELEASE, [`${this.prefix}lease:${key}`], [owner])) === 1;
  }

  async next(key: string): Promise<number> {
    try {
      return Number(await this.script(NEXT, [`${this.prefix}gen:${key}`], [String(GONE_TTL_MS)]));
    } catch (err) {
      // a long poll on this node still works while Redis is away: a generation from this
      // node's clock, on the same scale as Redis's (other nodes cannot hear of it meanwhile)
      this.warnUnshared("redis unreachable; getUpdates generations made on this node", err);
      this.lastGeneration = Math.max(Date.now() * 1000, this.lastGeneration + 1);
      return this.lastGeneration;
    }
  }

  /** Logs, at most every few seconds, that a shared engine is being stood in for on this node. */
  private warnUnshared(message: string, err: unknown): void {
    const now = Date.now();
    if (now - (this.warned.get(message) ?? 0) < 10_000) return;
    this.warned.set(message, now);
    this.log.warn(message, { error: errorText(err) });
  }

  // ---- realtime

  /** The realtime carrier for BROKER: ids, resume log and fan-out in Redis. */
  carrierFor(broker: EventBroker, retentionMs: () => number): EventCarrier {
    // the events of one turn, published by one script call
    const events = new TurnBatch<CarriedEvent>(
      async (batch) => {
        const args = [this.prefix, String(RESUME_PER_USER), String(retentionMs()), String(GONE_TTL_MS)];
        for (const { userIds, event, json } of batch)
          args.push(
            event,
            json,
            TRANSIENT_EVENTS.has(event) ? "0" : "1",
            String(userIds.length),
            ...userIds.map(String),
          );
        await this.script(PUBLISH_EVENTS, [], args);
      },
      {
        max: MAX_SCRIPT_BATCH,
        oneAtATime: false,
        onFailure: (err, batch) => {
          // this node's own streams still get them; the other nodes' cannot while Redis is away
          this.warnUnshared("redis unreachable; realtime events reach this node's streams only", err);
          for (const { userIds, event, data } of batch) {
            const id = (this.lastEventId = Math.max(this.lastEventId + 1, Date.now() * 1000));
            if (!TRANSIENT_EVENTS.has(event)) this.deliveredUnlogged = true;
            for (const userId of userIds) broker.deliver({ id, userId, event, data } as DeliveredEvent);
          }
        },
      },
    );
    this.subscribe(REALTIME_TOPIC, (body) => {
      const head = eventHead(body);
      // most events are for accounts with no stream on this node: their data is never parsed
      if (head && !head.to.some((userId) => broker.listens(userId))) {
        if (head.id > this.lastEventId) this.lastEventId = head.id;
        return;
      }
      const m = JSON.parse(body) as { e: RealtimeEventName; id: number; to: number[]; d: unknown };
      if (m.id > this.lastEventId) this.lastEventId = m.id;
      for (const userId of m.to) broker.deliver({ id: m.id, userId, event: m.e, data: m.d } as DeliveredEvent);
    });
    return {
      carry: (userIds, event, data) => {
        if (userIds.length > 0) events.add({ userIds, event, data, json: payloadJsonOf(data) });
      },
      resume: async (userId, lastId) => {
        const reply = (await this.script(
          RESUME,
          [],
          [this.prefix, String(userId), String(lastId), String(retentionMs()), String(GONE_TTL_MS)],
        )) as string[];
        const [status, latest, ...members] = reply;
        if (status !== "ok")
          return { reset: status as "gap" | "unknown-id", latestId: Number(latest) } satisfies Resumed;
        const events = members.map((member) => {
          const a = member.indexOf(" ");
          const b = member.indexOf(" ", a + 1);
          return {
            id: Number(member.slice(0, a)),
            userId,
            event: member.slice(a + 1, b) as RealtimeEventName,
            data: JSON.parse(member.slice(b + 1)),
          } as DeliveredEvent;
        });
        return { events };
      },
      // Redis trims each account's log as events are added, and expires it when it goes quiet
      prune: () => {},
      // a connection may be on any node and every event is kept in the shared log: always wanted
      watch: () => {},
      wants: () => true,
    };
  }
}
