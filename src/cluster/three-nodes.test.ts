import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Bot } from "grammy";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storeConfigValues } from "../config";
import { openPostgresStorage } from "../db";
import { botCall, openChat, pressButtonAndPay } from "../testing/botapi";
import { runCli, startServeProcess } from "../testing/cli";
import { TestClient } from "../testing/client";
import { freshPostgresDatabase } from "../testing/postgres";
import { startFailoverProxy, type FailoverProxy } from "../testing/proxy";
import { SseClient, WsClient } from "../testing/realtime";
import { startTestRedis, type TestRedis } from "../testing/redis";
import { startTestS3, type TestS3 } from "../testing/s3";
import { postUpload } from "../testing/uploads";
import { waitFor } from "../testing/wait";

/*
 * Three nodes of one instance as an operator runs them: each a `socialctl serve` child process
 * on its own loopback port and its own data dir (the same settings and instance secret, carried
 * with `config export` / `config import`), sharing a throwaway PostgreSQL cluster, a real
 * redis-server and an S3-compatible bucket (s3rver). People and a grammY bot are spread over
 * the nodes; one node is killed with SIGKILL while they send (the one the bot polls through a
 * load balancer), then the node delivering a webhook bot's updates is killed mid-POST.
 */

// three servers started from source, several CLI runs and a PostgreSQL cluster on a shared machine
setDefaultTimeout(120_000);

interface Node {
  dataDir: string;
  url: string;
  proc: ReturnType<typeof Bun.spawn>;
}

const ADMIN = { email: "ann@example.test", username: "ann", password: "ann's long password" };
const PERSONS = 6;
/** messages each person sends in the kill test (one chat each, one at a time: the chat's order is the send order) */
const PER_PERSON = 40;

let databaseUrl: string;
let redis: TestRedis;
let s3: TestS3;
let nodes: Node[] = [];
let admin: TestClient;
let relayToken: string;
let soloToken: string;
let hookToken: string;
const persons: Array<{ username: string; home: TestClient }> = [];
const dirs: string[] = [];

/**
 * The grammY bot, polling through a load balancer that sends it to B (killed in the kill test),
 * then to the next node that answers: every text message it got, in arrival order.
 */
let bot: Bot;
let balancer: FailoverProxy;
let polling: Promise<void>;
const received: Array<{ updateId: number; chatId: number; text: string }> = [];

/** CLIENT's session against NODE: sessions live in the shared database, so any node accepts them. */
function onNode(client: TestClient, node: Node): TestClient {
  const other = new TestClient(node.url);
  for (const [k, v] of client.cookies) other.cookies.set(k, v);
  other.csrf = client.csrf;
  return other;
}

/** `socialctl ARGS` on DATADIR; fails the test with its stderr unless it succeeds. */
async function cli(dataDir: string, ...args: string[]) {
  const run = await runCli(["--data-dir", dataDir, ...args]);
  if (run.code !== 0) throw new Error(`socialctl ${args.join(" ")} failed: ${run.stderr}`);
  return run;
}

async function startNode(dataDir: string): Promise<Node> {
  const { proc, listening } = await startServeProcess(dataDir);
  return { dataDir, url: listening.url, proc };
}

beforeAll(async () => {
  const [url, r, bucket] = await Promise.all([freshPostgresDatabase({ empty: true }), startTestRedis(), startTestS3()]);
  databaseUrl = url;
  redis = r;
  s3 = bucket;
  for (let i = 0; i < 4; i++) dirs.push(mkdtempSync(join(tmpdir(), "socialctl-nodes-")));
  const [first, second, third, exchange] = dirs as [string, string, string, string];
  // node 1 gets the keys of docs/scaling.md (written as `config set` writes
  // them, in one go: a CLI run per key costs seconds here); `init` migrates the empty database
  storeConfigValues(first, {
    "database.url": databaseUrl,
    "pubsub.url": redis.url,
    ...s3.settings,
    // every request of this file comes from 127.0.0.1
    "limits.clientRps": 1_000_000,
    "limits.messagesPerMinute": 1_000_000,
    "limits.loginPer10Min": 1_000_000,
    "limits.botCallsPerMinute": 1_000_000,
    "limits.blockAfterRejections": 100_000_000,
    // the webhook bot's server is on loopback
    "bot.allowPrivateWebhooks": true,
    // three servers and this test on two loaded cores: a late event loop here is no stalled node
    "readiness.maxEventLoopLagMs": 0,
  });
  await cli(first, "init", "--yes", "--registration", "open");
  await cli(
    first,
    "user",
    "create",
    "--email",
    ADMIN.email,
    "--username",
    ADMIN.username,
    "--password",
    ADMIN.password,
    "--admin",
    "--verified",
  );
  const [relay, solo, hook] = await Promise.all(
    ["relay_bot", "solo_bot", "hook_bot"].map(async (username) => {
      const run = await cli(first, "--json", "bot", "create", "--owner", "ann", "--username", username, "--name", "B");
      return run.json.token as string;
    }),
  );
  relayToken = relay!;
  soloToken = solo!;
  hookToken = hook!;
  const exported = join(exchange, "node.json");
  await cli(first, "config", "export", "--out", exported);
  await Promise.all([second, third].map((dir) => cli(dir, "config", "import", exported)));
  nodes = await Promise.all([first, second, third].map(startNode));
  const [a, b, c] = nodes as [Node, Node, Node];

  admin = new TestClient(a.url);
  expect((await admin.login(ADMIN.email, ADMIN.password)).status).toBe(200);
  // people made through the admin API of any node, each signed in on a node of its own
  for (let i = 0; i < PERSONS; i++) {
    const home = nodes[i % 3]!;
    const username = `person${i}`;
    const made = await onNode(admin, nodes[(i + 1) % 3]!).post("/api/admin/accounts", {
      email: `${username}@example.test`,
      username,
      password: `${username} password`,
      verified: true,
    });
    expect(made.status).toBe(200);
    const client = new TestClient(home.url);
    expect((await client.login(`${username}@example.test`, `${username} password`)).status).toBe(200);
    persons.push({ username, home: client });
  }

  balancer = startFailoverProxy([b.url, c.url, a.url]);
  bot = new Bot(relayToken, { client: { apiRoot: balancer.url } });
  bot.on("message:text", (ctx) => {
    received.push({ updateId: ctx.update.update_id, chatId: ctx.chat.id, text: ctx.message.text });
  });
  bot.on("callback_query:data", (ctx) => ctx.answerCallbackQuery({ text: `got ${ctx.callbackQuery.data}` }));
  bot.on("pre_checkout_query", (ctx) => ctx.answerPreCheckoutQuery(true));
  // a long timeout: a message reaching it well before the poll ends was a wake-up across nodes
  polling = bot.start({ timeout: 30, drop_pending_updates: true });
});

afterAll(async () => {
  if (bot?.isRunning()) await bot.stop();
  await polling?.catch(() => {});
  balancer?.stop();
  for (const node of nodes) {
    if (node.proc.exitCode !== null || node.proc.signalCode) continue;
    node.proc.kill("SIGTERM");
    await Promise.race([node.proc.exited, Bun.sleep(10_000)]);
    if (node.proc.exitCode === null) node.proc.kill("SIGKILL");
  }
  await redis?.stop();
  await s3?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("three nodes on PostgreSQL, Redis and a bucket", () => {
  test("every node is ready with the shared engines", async () => {
    for (const node of nodes) {
      const res = await fetch(`${node.url}/readyz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: "ready",
        checks: { database: "ok" },
        engines: { pubsub: "ok", files: "ok" },
      });
    }
  });

  test("a message through A reaches a person's WebSocket and SSE stream on B and the bot's parked getUpdates on B", async () => {
    const [a, b] = nodes as [Node, Node, Node];
    const [sender, reader] = persons as [(typeof persons)[0], (typeof persons)[0]];
    const onA = onNode(sender.home, a);
    const cid = await openChat(onA, reader.username);
    const ws = await WsClient.open(b.url, onNode(reader.home, b));
    const sse = await SseClient.open(b.url, onNode(reader.home, b));
    try {
      expect((await onA.post(`/api/social/messages/${cid}`, { content: "across nodes" })).status).toBe(200);
      const isIt = (f: { event: string; data: any }) =>
        f.event === "message:new" && f.data.message.content === "across nodes";
      await ws.waitFor((frames) => frames.some(isIt), 10_000, "message:new on B's WebSocket");
      await sse.waitFor((frames) => frames.some(isIt), 10_000, "message:new on B's SSE stream");
      expect(ws.frames.find(isIt)!.id).toBe(sse.frames.find(isIt)!.id);
    } finally {
      ws.close();
      sse.close();
    }

    const toBot = await openChat(onA, "relay_bot");
    expect((await onA.post(`/api/social/messages/${toBot}`, { content: "hello bot" })).status).toBe(200);
    // grammY's poll on B waits up to 30 s: the message arrives with the wake-up Redis carried from A
    expect(balancer.current()).toBe(b.url);
    const got = await waitFor(() => received.find((u) => u.text === "hello bot"), 15_000, "the update on B");
    expect(got.chatId).toBeGreaterThan(0);
  });

  test("one getUpdates per bot across nodes: a newer call on A ends the one parked on B with 409", async () => {
    const [a, b] = nodes as [Node, Node, Node];
    let settled = false;
    const parked = botCall(b.url, soloToken, "getUpdates", { timeout: 20 }).finally(() => (settled = true));
    // the call on B must have started before a call on A is the newer one: poke until it ends (bounded)
    const newer: number[] = [];
    for (let i = 0; i < 100 && !settled; i++) {
      newer.push((await botCall(a.url, soloToken, "getUpdates", { timeout: 0 })).status);
      await Promise.race([parked, Bun.sleep(100)]);
    }
    const superseded = await parked;
    expect(superseded.status).toBe(409);
    expect(superseded.body.ok).toBe(false);
    expect(newer.every((s) => s === 200)).toBe(true);
  });

  test("a button and a Pay pressed on A are answered by the grammY bot polling B; the invoice is paid once", async () => {
    const [a, b, c] = nodes as [Node, Node, Node];
    const buyer = persons[1]!;
    const onA = onNode(buyer.home, a);
    const cid = await openChat(onA, "relay_bot");
    const granted = await onNode(admin, c).post(`/api/admin/accounts/${buyer.username}/stars`, { amount: 50 });
    expect(granted.status).toBe(200);
    const chatId = await chatIdSeenByBot(onA, cid, "buyer here");

    const invoiceId = await pressButtonAndPay(b.url, relayToken, chatId, onA, cid);
    // paid once: a second press is refused on another node
    const again = await onNode(buyer.home, b).post(`/api/social/messages/${cid}/${invoiceId}/pay`);
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect((await onNode(buyer.home, c).get("/api/stars/balance")).body.data.balance).toBe(43);
  });

  test("a file uploaded through A is served by B from the bucket", async () => {
    const [a, b] = nodes as [Node, Node, Node];
    const bytes = crypto.getRandomValues(new Uint8Array(40_000));
    const up = await postUpload(onNode(persons[2]!.home, a), "chat-file", bytes, { filename: "notes.bin" });
    expect(up.status).toBe(200);
    const path = new URL(up.body.data.url as string, a.url).pathname;
    const served = await fetch(`${b.url}${path}`, { headers: { cookie: persons[2]!.home.cookieHeader() } });
    expect(served.status).toBe(200);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(bytes);
    // the bytes are the bucket's, not B's disk: B's data dir never saw them
    expect(filesHolding(s3.directory, bytes).length).toBe(1);
    expect(filesHolding(b.dataDir, bytes)).toEqual([]);
  });

  test("SIGKILL of the node the bot polls, while people send through all three, loses no acknowledged message or update", async () => {
    const [a, b] = nodes as [Node, Node, Node];
    const chats = await Promise.all(persons.map((p) => openChat(p.home, "relay_bot")));
    const chatIds = await Promise.all(persons.map((p, k) => chatIdSeenByBot(p.home, chats[k]!, `${p.username} here`)));
    const sessions = persons.map((p) => nodes.map((node) => onNode(p.home, node)));
    const acknowledged: string[][] = persons.map(() => []);
    let acked = 0;
    let retried = 0;
    const killAt = Math.floor((PERSONS * PER_PERSON) / 3);
    let killed = false;
    let pollingB = false;

    /** One message, first through node (i + k) % 3, then the next nodes with the same clientMessageId. */
    const sendOne = async (k: number, i: number) => {
      const content = `p${k}-m${i}`;
      for (let attempt = 0; attempt < 6; attempt++) {
        const node = (i + k + attempt) % 3;
        try {
          const res = await sessions[k]![node]!.post(`/api/social/messages/${chats[k]}`, {
            content,
            clientMessageId: `c${k}-${i}`,
          });
          if (res.status === 200) {
            acknowledged[k]!.push(content);
            if (++acked >= killAt && !killed) {
              killed = true;
              pollingB = balancer.current() === b.url;
              b.proc.kill("SIGKILL");
            }
            return;
          }
          if (res.status < 500) throw new Error(`send refused: ${res.status} ${JSON.stringify(res.body)}`);
        } catch (err) {
          if (err instanceof Error && err.message.startsWith("send refused")) throw err;
          // the connection died with the node: stored or not is unknown, the retry tells
        }
        retried++;
      }
      throw new Error(`${content} was never acknowledged`);
    };
    await Promise.all(
      persons.map(async (_, k) => {
        for (let i = 0; i < PER_PERSON; i++) await sendOne(k, i);
      }),
    );
    expect(killed).toBe(true);
    await b.proc.exited;
    expect(b.proc.signalCode).toBe("SIGKILL");
    // requests went to B after it died, and some were retried elsewhere
    expect(retried).toBeGreaterThan(0);

    // every acknowledged message is in its chat once, in the order it was sent, read through a survivor
    for (const [k, p] of persons.entries()) {
      const res = await onNode(p.home, a).get(`/api/social/messages/${chats[k]}?limit=100`);
      expect(res.status).toBe(200);
      expect(res.body.data.pageInfo.nextCursor).toBeNull();
      const stored = [...(res.body.data.messages as Array<{ content: string }>)]
        .reverse()
        .map((m) => m.content)
        .filter(ofLoad);
      expect(stored).toEqual(acknowledged[k]!);
      expect(acknowledged[k]).toHaveLength(PER_PERSON);
    }

    // the bot got each acknowledged message's update exactly once, in order per chat, though its
    // getUpdates went to B until B died and then, after the balancer's 502, to C
    const ours = (u: { text: string }) => ofLoad(u.text);
    await waitFor(() => received.filter(ours).length >= PERSONS * PER_PERSON, 60_000, "the bot's updates");
    expect(pollingB).toBe(true);
    expect(balancer.failures()).toBeGreaterThan(0);
    expect(balancer.current()).toBe(nodes[2]!.url);
    await bot.stop();
    await polling;
    // nothing is left in the queue to arrive later as a duplicate
    const left = await botCall(a.url, relayToken, "getUpdates", { timeout: 0 });
    expect(left.body.result).toEqual([]);
    const updates = received.filter(ours);
    expect(updates).toHaveLength(PERSONS * PER_PERSON);
    // update ids only grow, across chats too: what grammY's offset (the last id + 1) relies on
    const ids = received.map((u) => u.updateId);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(ids).size).toBe(ids.length);
    for (const [k] of persons.entries()) {
      expect(updates.filter((u) => u.chatId === chatIds[k]).map((u) => u.text)).toEqual(acknowledged[k]!);
    }
  });
  test("SIGKILL of the node delivering a webhook mid-POST: another node redelivers that update under the same id once the lease expires; acknowledged ones never come again", async () => {
    // B died in the kill test: A and C are left, either may be the bot's deliverer
    const alive = [nodes[0]!, nodes[2]!];
    const posts: Array<{ update: any; text: string; pid: number | null }> = [];
    let holdText: string | null = null;
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      async fetch(req, server) {
        const update = (await req.json()) as any;
        const text = update.message?.text as string;
        // which node's process holds the other end of this connection
        const pid = pidOfPeer(server.requestIP(req)!.port, alive);
        posts.push({ update, text, pid });
        // the POST of holdText is never answered: its node is killed while it waits
        if (text === holdText && posts.filter((p) => p.text === text).length === 1)
          return new Promise<Response>(() => {});
        return Response.json({});
      },
    });
    try {
      const person = persons[3]!;
      const via = (node: Node) => onNode(person.home, node);
      expect((await botCall(alive[0]!.url, hookToken, "setWebhook", { url: `${receiver.url}/hook` })).status).toBe(200);
      const cid = await openChat(via(alive[0]!), "hook_bot");
      const send = async (node: Node, text: string) =>
        expect((await via(node).post(`/api/social/messages/${cid}`, { content: text })).status).toBe(200);
      const arrived = (text: string, times = 1) =>
        waitFor(() => posts.filter((p) => p.text === text).length >= times || null, 60_000, `"${text}" at the webhook`);

      for (let i = 0; i < 4; i++) await send(alive[i % 2]!, `w${i}`);
      await arrived("w3");
      holdText = "w4";
      await send(alive[0]!, "w4");
      await arrived("w4");
      const held = posts.find((p) => p.text === "w4")!;
      const deliverer = alive.find((n) => n.proc.pid === held.pid);
      expect(deliverer).toBeDefined();
      const survivor = alive.find((n) => n !== deliverer)!;
      deliverer!.proc.kill("SIGKILL");
      await deliverer!.proc.exited;
      for (let i = 5; i < 8; i++) await send(survivor, `w${i}`);
      // the survivor's scan takes the lease once the dead node's expires (10 s), then sends w4 again
      await arrived("w7");

      const texts = posts.map((p) => p.text);
      expect(texts).toEqual(["w0", "w1", "w2", "w3", "w4", "w4", "w5", "w6", "w7"]);
      const [first, again] = posts.filter((p) => p.text === "w4");
      // the same update, under the same id, from the node that took over
      expect(again!.update).toEqual(first!.update);
      expect(again!.pid).toBe(survivor.proc.pid!);
      // acknowledged updates (answered 2xx before the kill) never came again; ids only grow
      const ids = posts.map((p) => p.update.update_id as number);
      expect(new Set(ids).size).toBe(ids.length - 1);
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      // and nothing is left in its queue to come later (w7's removal follows its 2xx)
      const storage = openPostgresStorage(databaseUrl);
      try {
        const left = () =>
          storage.db
            .selectFrom("bot_updates")
            .innerJoin("bots", "bots.id", "bot_updates.bot_id")
            .innerJoin("users", "users.id", "bots.user_id")
            .select("bot_updates.id")
            .where("users.username", "=", "hook_bot")
            .execute();
        await waitFor(async () => (await left()).length === 0 || null, 10_000, "hook_bot's queue to empty");
        expect(posts).toHaveLength(9);
      } finally {
        await storage.close();
      }
    } finally {
      receiver.stop(true);
    }
  });
});

/**
 * Which of NODES' processes owns the loopback TCP socket bound to local PORT (the client end of
 * a connection the test's server accepted): the socket's inode from /proc/net/tcp, then the
 * process holding a file descriptor on it. Null when none does.
 */
function pidOfPeer(port: number, nodes: Node[]): number | null {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[1]?.endsWith(`:${hexPort}`)) inodes.add(cols[9]!);
    }
  }
  for (const node of nodes) {
    const fds = `/proc/${node.proc.pid}/fd`;
    let open: string[];
    try {
      open = readdirSync(fds);
    } catch {
      continue; // a killed node: no process, no descriptors
    }
    for (const fd of open) {
      try {
        const link = readlinkSync(`${fds}/${fd}`);
        if (inodes.has(link.slice("socket:[".length, -1))) return node.proc.pid!;
      } catch {
        // the descriptor closed meanwhile
      }
    }
  }
  return null;
}

/** A message of the load in the kill test (not the one each person sent first). */
const ofLoad = (text: string) => /^p\d+-m\d+$/.test(text);

/** Sends TEXT in the person's chat CID with the relay bot; the chat id under which the bot got it. */
async function chatIdSeenByBot(client: TestClient, cid: string, text: string): Promise<number> {
  expect((await client.post(`/api/social/messages/${cid}`, { content: text })).status).toBe(200);
  return (await waitFor(() => received.find((u) => u.text === text), 15_000, `"${text}" at the bot`)).chatId;
}

/** Files under DIR (recursively) whose bytes are exactly BYTES. */
function filesHolding(dir: string, bytes: Uint8Array): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const content = readFileSync(path);
    if (content.length === bytes.length && Buffer.compare(content, Buffer.from(bytes)) === 0) found.push(path);
  }
  return found;
}
