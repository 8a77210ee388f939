/**
 * Hot-path benchmark (not a test): req/s and latency of the requests a busy instance serves
 * most, each as a ratio to a bare Bun.serve JSON baseline and to a reference doing the same
 * kind of work, plus the server's memory. Prints a markdown table and writes
 * .tmp/bench-results.json.
 *
 *   bun scripts/bench.ts [--seconds 3] [--rounds 3] [--pin none|wrk|both] [--threads 2] [--connections 50]
 *                        [--posts 1000] [--only feed,getMe] [--profile]
 *
 * --seconds is each row's load time, spread over --rounds rounds (one wrk run of
 * seconds/rounds, at least 1 s, per row and round); in each round every row runs right next to
 * a run of its reference (before it in one round, after it in the next), and the table gives
 * the median over rounds of the ratio to that neighbouring run, with its range. --pin wrk runs
 * wrk on CPU 1; --pin both also puts every server (bare, references, the real one) on CPU 0.
 * --only runs the endpoints whose names contain one of the words; --profile writes a CPU
 * profile of the server (markdown, Bun's --cpu-prof-md) into .tmp/.
 *
 * The server is the real one (startServer) in a child process on a fresh temporary data dir,
 * rate limits lifted, loopback only, logging as `socialctl serve` does (into
 * .tmp/bench-server.log); the seeding's WAL is checkpointed and statistics refreshed before
 * the first row; the data dir is removed afterwards. Needs wrk (apt-get install -y wrk). Every
 * round of the reads runs before the first round of writes, so every read sees the same database.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import {
  arg,
  describeWriteGroups,
  fetchWriteGroups,
  LIFTED_LIMITS,
  markdownTable,
  mb,
  median,
  pairedRuns,
  pinProcess,
  processCpuSeconds,
  processMemory,
  requireWrk,
  runWrk,
  serveChild,
  spawnChild,
  spread,
  startBaseline,
  startReferences,
  taskset,
  type BenchRow,
  type WrkOptions,
  type WrkRequest,
  type WrkResult,
} from "./bench-lib";

const CHILD_FLAG = "--bench-server-child";
/** .tmp of the repository (gitignored), wherever the script is run from */
const TMP = join(import.meta.dir, "..", ".tmp");
/** The server's log (one line per request), kept for a look after a run. */
const SERVER_LOG = join(TMP, "bench-server.log");
const RESULTS = join(TMP, "bench-results.json");

/** What the seeded server hands the load generator. */
interface Fixtures {
  url: string;
  /** Cookie header of a signed-in person (session + CSRF cookies) */
  cookie: string;
  csrf: string;
  /** the person's private chat with another person */
  conversationId: string;
  /** a chat in which someone wrote HISTORY_MESSAGES messages to the person */
  historyConversationId: string;
  /** the person's chat with someone whose browser is subscribed to pushes at a push service that answers in 5 s */
  pushConversationId: string;
  botToken: string;
  /** the Bot API chat_id of the person's chat with the bot */
  botChatId: number;
  posts: number;
  /** accounts the reader follows */
  follows: number;
  /** Cookie header of a signed-in account that follows nobody */
  newcomerCookie: string;
  /** a post with COMMENT_COUNT comments, the first of them with as many replies */
  postId: string;
  commentId: string;
  /** one of the authors, whose profile is benchmarked */
  profileUsername: string;
  /** bearer token of the server's /metrics (write-group sizes are read there around each write row) */
  metricsToken: string;
  /** the WAL the seeding left, and the pages the maintenance before the first row folded */
  settled: { walBytesSeeded: number; walPagesCheckpointed: number };
}

/** With --pin: wrk on this CPU, and (--pin both) every server on the other. */
const WRK_CPU = "1";
const SERVER_CPU = "0";

/** A wrk result plus the serving process's CPU time per request during the run. */
type Measured = WrkResult & { cpuUsPerRequest: number };

/** Up to this many posts are seeded through the domain (createPost); more are bulk-inserted by seed-feed.ts. */
const SEED_THROUGH_DOMAIN_MAX = 5_000;

/** people who wrote to the benchmarked person: with the chat opened with a friend and the bot's, 50 chats */
const WRITER_COUNT = 48;
const CHAT_COUNT = WRITER_COUNT + 2;
/** the chat list's default page (src/clientapi/chats/messages.ts) */
const CHAT_PAGE = 20;
/** comments (and replies) under the benchmarked post */
const COMMENT_COUNT = 20;
/** messages in the chat whose history is benchmarked (a page shows the newest 30) */
const HISTORY_MESSAGES = 40;
/** the benchmarked person's notification groups: 20 mentions and a group of 10 follows; a page shows 20 */
const NOTIFICATION_GROUPS = 21;

/* ---------------------------------------------------------------- server side (child) */

async function runChild(): Promise<void> {
  const { startServer } = await import("../src/main");
  const { makeUser } = await import("../src/testing/fixtures");
  const { TestClient } = await import("../src/testing/client");
  const { createPost } = await import("../src/domain/posts/service");
  const { toggleFollow } = await import("../src/domain/relations/actions");
  const { createBot } = await import("../src/domain/bots/service");
  const dataDir = process.env.BENCH_DATA_DIR!;
  const postCount = Number(process.env.BENCH_POSTS);
  // the default logger, as `socialctl serve` runs: one JSON line per request (into a file here)
  const metricsToken = randomBytes(16).toString("hex");
  const server = await startServer({
    dataDir,
    overrides: {
      ...LIFTED_LIMITS,
      "metrics.enabled": true,
      "metrics.token": metricsToken,
      // the slow push service below listens on loopback
      "push.allowPrivateEndpoints": true,
    },
  });
  const { app } = server;

  const reader = await makeUser(app, { username: "bench_reader" });
  const friend = await makeUser(app, { username: "bench_friend" });
  // the feed: POSTS posts by 20 authors, half of them followed by the reader
  const authors = await Promise.all(
    Array.from({ length: 20 }, (_, i) => makeUser(app, { username: `bench_author${i}` })),
  );
  let follows = 10;
  if (postCount <= SEED_THROUGH_DOMAIN_MAX) {
    for (const a of authors.slice(0, follows)) await toggleFollow(app, reader.id, a.id);
    for (let i = 0; i < postCount; i++) {
      await createPost(app, authors[i % authors.length]!, {
        content: `Bench post ${i} with a #hashtag and a few words of text to render.`,
      });
    }
  } else {
    // a large feed: one author per 50 posts, the reader following up to 1,000 of them
    const { seedLargeFeed } = await import("./seed-feed");
    const seedAuthors = Math.min(100_000, Math.max(40, Math.floor(postCount / 50)));
    follows = Math.min(1_000, Math.floor(seedAuthors / 2));
    const t0 = performance.now();
    seedLargeFeed(app.storage.sqlite!, {
      posts: postCount,
      authors: seedAuthors,
      viewerId: reader.id,
      follows,
      now: app.clock.now() - 60_000,
    });
    console.error(
      `seeded ${postCount} posts by ${seedAuthors} authors in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  // an account following nobody: its following feed has no rows to find, the worst case of a walk
  const newcomer = await makeUser(app, { username: "bench_newcomer" });

  const client = new TestClient(server.url);
  const login = await client.login(reader.email!, reader.password);
  if (login.status !== 200) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  const newcomerClient = new TestClient(server.url);
  if ((await newcomerClient.login(newcomer.email!, newcomer.password)).status !== 200)
    throw new Error("the newcomer's login failed");
  const chat = await client.post(`/api/social/users/${friend.username}/message`, {});
  if (chat.status !== 200) throw new Error(`opening a chat failed: ${JSON.stringify(chat.body)}`);
  // someone whose browser gets pushes from a push service that takes 5 s to answer each one
  const { startTestPushService } = await import("../src/testing/push-service");
  const pushService = startTestPushService();
  const subscribed = await makeUser(app, { username: "bench_subscribed" });
  const subscribedClient = new TestClient(server.url);
  if ((await subscribedClient.login(subscribed.email!, subscribed.password)).status !== 200)
    throw new Error("the subscribed person's login failed");
  const browser = pushService.subscribe();
  pushService.answer(browser.endpoint, { delayMs: 5_000 });
  const subscribing = await subscribedClient.post("/api/push/subscriptions", {
    endpoint: browser.endpoint,
    keys: browser.keys,
  });
  if (subscribing.status !== 200) throw new Error(`subscribing failed: ${JSON.stringify(subscribing.body)}`);
  const pushChat = await client.post(`/api/social/users/${subscribed.username}/message`, {});
  if (pushChat.status !== 200) throw new Error(`opening a chat failed: ${JSON.stringify(pushChat.body)}`);

  // the chat list: people who wrote to the reader (two messages each), besides the chats above
  const { openPrivateChat, sendMessage } = await import("../src/domain/chats");
  const { createComment } = await import("../src/domain/comments/service");
  let historyConversationId = "";
  for (let i = 0; i < WRITER_COUNT; i++) {
    const writer = await makeUser(app, { username: `bench_writer${i}` });
    const conversation = await openPrivateChat(app, writer.id, reader.id);
    // the first writer's chat is the one whose history is read
    const said = i
      ? [`Hi ${i}`]
      : Array.from({ length: HISTORY_MESSAGES - 1 }, (_, k) => `Message ${k} of a longer chat`);
    for (const content of [...said, `How are you, ${i}?`])
      await sendMessage(app, { conversationId: conversation.id, senderId: writer.id, content });
    historyConversationId ||= conversation.cuid;
  }
  // a post's comments and one comment's replies, by the authors in turn
  const { post: discussed } = await createPost(app, authors[0]!, { content: "A post with comments" });
  let firstComment = "";
  for (let i = 0; i < COMMENT_COUNT; i++) {
    const comment = await createComment(app, authors[i % authors.length]!, discussed.cuid, {
      content: `Comment ${i} with a few words`,
    });
    firstComment ||= comment.cuid;
  }
  for (let i = 0; i < COMMENT_COUNT; i++) {
    await createComment(app, authors[(i + 1) % authors.length]!, discussed.cuid, {
      content: `Reply ${i}`,
      replyToId: firstComment,
    });
  }

  // the reader's notifications: half the authors follow them (one group), each mentions them (a group each)
  const { notify } = await import("../src/domain/notifications/service");
  for (const a of authors.slice(10)) await toggleFollow(app, a.id, reader.id);
  for (const a of authors)
    await notify(app, { recipientId: reader.id, actorId: a.id, type: "mention", postId: discussed.id });

  const bot = await createBot(app, { ownerId: reader.id, username: "bench_bot", name: "Bench Bot" });
  const botChat = await client.post(`/api/social/users/${bot.user.username}/message`, {});
  if (botChat.status !== 200) throw new Error(`opening the bot chat failed: ${JSON.stringify(botChat.body)}`);
  // take the /start update off the queue, as a polling bot would, so getUpdates polls an empty queue
  const call = async (method: string, params: object) => {
    const res = await fetch(`${server.url}/bot${bot.token}/${method}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(params),
    });
    const body = (await res.json()) as { ok: boolean; result: any };
    if (!body.ok) throw new Error(`${method} failed: ${JSON.stringify(body)}`);
    return body.result;
  };
  const pending = (await call("getUpdates", { timeout: 0 })) as { update_id: number }[];
  if (pending.length) await call("getUpdates", { timeout: 0, offset: pending.at(-1)!.update_id + 1 });

  // what the seeding leaves to do is done before the first row: its WAL folded into the
  // database (else the checkpointer folds it, in a thread of this process, during the first
  // rows) and the planner's statistics refreshed, as housekeeping would do minutes later
  const { runCleanup } = await import("../src/ops");
  const walSize = () => statSync(`${app.storage.sqlite!.filename}-wal`, { throwIfNoEntry: false })?.size ?? 0;
  const walBytesSeeded = walSize();
  const maintenance = await runCleanup(app, "database");
  if (!maintenance.ok) throw new Error(`the database maintenance after seeding failed: ${maintenance.error}`);
  Bun.gc(true);
  const fixtures: Fixtures = {
    url: server.url,
    cookie: client.cookieHeader(),
    csrf: client.csrf!,
    conversationId: chat.body.data.conversationId,
    pushConversationId: pushChat.body.data.conversationId,
    historyConversationId,
    botToken: bot.token,
    botChatId: reader.id,
    posts: postCount,
    follows,
    newcomerCookie: newcomerClient.cookieHeader(),
    postId: discussed.cuid,
    commentId: firstComment,
    profileUsername: authors[0]!.username,
    metricsToken,
    settled: { walBytesSeeded, walPagesCheckpointed: maintenance.result ?? 0 },
  };
  serveChild(fixtures, async () => {
    await server.stop();
    pushService.stop();
  });
}

/* ---------------------------------------------------------------- load generator (parent) */

/** The reference an endpoint's work is compared with: one primary-key SELECT, or one autocommit INSERT. */
type ReferenceKind = "select" | "insert";
const REFERENCE_NAMES: Record<ReferenceKind, string> = { select: "PK SELECT", insert: "INSERT" };

interface Endpoint {
  name: string;
  request: WrkRequest;
  reference?: ReferenceKind;
}

function endpoints(f: Fixtures): Endpoint[] {
  const session = { cookie: f.cookie, "user-agent": "socialctl-bench" };
  const json = { "content-type": "application/json" };
  const bot = `${f.url}/bot${f.botToken}`;
  return [
    { name: "GET /healthz", request: { url: `${f.url}/healthz` } },
    { name: "GET /api/auth/csrf", request: { url: `${f.url}/api/auth/csrf` } },
    { name: "GET /api/auth/me", request: { url: `${f.url}/api/auth/me`, headers: session }, reference: "select" },
    {
      name: `GET /api/social/feed (${f.posts} posts)`,
      request: { url: `${f.url}/api/social/feed`, headers: session },
      reference: "select",
    },
    {
      name: `GET /api/social/feed?following=true (following ${f.follows})`,
      request: { url: `${f.url}/api/social/feed?following=true`, headers: session },
      reference: "select",
    },
    {
      name: "GET /api/social/feed?following=true (following nobody)",
      request: {
        url: `${f.url}/api/social/feed?following=true`,
        headers: { cookie: f.newcomerCookie, "user-agent": "socialctl-bench" },
      },
      reference: "select",
    },
    {
      name: `GET /api/social/messages (${CHAT_PAGE} of ${CHAT_COUNT} chats)`,
      request: { url: `${f.url}/api/social/messages`, headers: session },
      reference: "select",
    },
    {
      name: `GET /api/social/messages?limit=${CHAT_COUNT} (all ${CHAT_COUNT} chats)`,
      request: { url: `${f.url}/api/social/messages?limit=${CHAT_COUNT}`, headers: session },
      reference: "select",
    },
    {
      name: `GET /api/social/posts/{id}/comments (${COMMENT_COUNT})`,
      request: { url: `${f.url}/api/social/posts/${f.postId}/comments`, headers: session },
      reference: "select",
    },
    {
      name: "GET /api/social/users/{username} (profile)",
      request: { url: `${f.url}/api/social/users/${f.profileUsername}`, headers: session },
      reference: "select",
    },
    {
      name: `GET /api/social/messages/{cid} (newest 30 of ${HISTORY_MESSAGES})`,
      request: { url: `${f.url}/api/social/messages/${f.historyConversationId}`, headers: session },
      reference: "select",
    },
    {
      name: `GET /api/social/notifications (${NOTIFICATION_GROUPS} groups)`,
      request: { url: `${f.url}/api/social/notifications`, headers: session },
      reference: "select",
    },
    {
      name: `GET /api/social/users/{username}/following (${f.follows})`,
      request: { url: `${f.url}/api/social/users/bench_reader/following`, headers: session },
      reference: "select",
    },
    {
      name: `GET /api/social/comments/{id}/replies (${COMMENT_COUNT})`,
      request: { url: `${f.url}/api/social/comments/${f.commentId}/replies`, headers: session },
      reference: "select",
    },
    { name: "Bot API getMe", request: { url: `${bot}/getMe` }, reference: "select" },
    {
      name: "Bot API getUpdates timeout=0",
      request: { url: `${bot}/getUpdates`, method: "POST", headers: json, body: JSON.stringify({ timeout: 0 }) },
      reference: "select",
    },
    // writes last, so the reads above all see the same database
    {
      name: "POST /api/social/messages/{cid}",
      reference: "insert",
      request: {
        url: `${f.url}/api/social/messages/${f.conversationId}`,
        method: "POST",
        headers: { ...session, ...json, "x-csrf-token": f.csrf },
        bodyTemplate: JSON.stringify({ content: "Hello from the benchmark", clientMessageId: "bench-{n}" }),
      },
    },
    {
      // the row above with a recipient who gets pushes: the send queues the push job, a push service 5 s slow is never waited on
      name: "POST /api/social/messages/{cid} (recipient subscribed, push service 5 s slow)",
      reference: "insert",
      request: {
        url: `${f.url}/api/social/messages/${f.pushConversationId}`,
        method: "POST",
        headers: { ...session, ...json, "x-csrf-token": f.csrf },
        bodyTemplate: JSON.stringify({ content: "Hello, subscriber", clientMessageId: "bench-push-{n}" }),
      },
    },
    {
      name: "Bot API sendMessage",
      reference: "insert",
      request: {
        url: `${bot}/sendMessage`,
        method: "POST",
        headers: json,
        body: JSON.stringify({ chat_id: f.botChatId, text: "Hello from the bench bot" }),
      },
    },
  ];
}

/** One request by hand first: a benchmark of error responses would measure the wrong thing. */
async function probe(e: Endpoint): Promise<void> {
  const body = e.request.bodyTemplate?.replace("{n}", "probe") ?? e.request.body;
  const res = await fetch(e.request.url, { method: e.request.method ?? "GET", headers: e.request.headers, body });
  const text = await res.text();
  if (res.status !== 200)
    throw new Error(`${e.name}: expected 200 before benchmarking, got ${res.status}: ${text.slice(0, 300)}`);
}

/** What a row is paired with in each round: its reference, or the bare server for a row with none. */
type Yardstick = ReferenceKind | "bare";

/** A row's runs, one per round, with the run of its yardstick next to each and the bare server's run of that round. */
interface RowRuns {
  endpoint: Endpoint;
  runs: Measured[];
  yardstickRuns: Measured[];
  bareRps: number[];
  /** per round, what the round's writes did (write rows only) */
  writes: string[];
}

/** A row's rounds as one result: median req/s, p50 and CPU, the worst p99, every request and failure counted. */
function combine(runs: Measured[]): Measured {
  const sum = (f: (r: Measured) => number) => runs.reduce((total, r) => total + f(r), 0);
  return {
    requests: sum((r) => r.requests),
    rps: median(runs.map((r) => r.rps)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
    non2xx: sum((r) => r.non2xx),
    socketErrors: sum((r) => r.socketErrors),
    cpuUsPerRequest: median(runs.map((r) => r.cpuUsPerRequest)),
  };
}

/** The median ratio with the smallest and largest round's, as BenchRow.reference holds them. */
function ratioRange(ratios: number[]): { ratio: number; min: number; max: number } {
  const { median: ratio, min, max } = spread(ratios);
  return { ratio, min, max };
}

const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

async function main(): Promise<void> {
  const wrk = requireWrk();
  const opts = {
    seconds: Number(arg("seconds", "3")),
    rounds: Number(arg("rounds", "3")),
    threads: Number(arg("threads", "2")),
    connections: Number(arg("connections", "50")),
  };
  if (
    ![opts.seconds, opts.rounds, opts.threads, opts.connections].every(
      (n) => Number.isInteger(n) && n > 0 && n <= 10_000,
    )
  ) {
    console.error("--seconds, --rounds, --threads and --connections must be positive integers");
    process.exit(1);
  }
  const placements = ["none", "wrk", "both"] as const;
  let pin = arg("pin", "none") as (typeof placements)[number];
  if (!placements.includes(pin)) {
    console.error(`--pin is one of ${placements.join(", ")}`);
    process.exit(1);
  }
  if (pin !== "none" && !taskset()) {
    console.log("taskset (util-linux) not found: running unpinned");
    pin = "none";
  }
  // --seconds is each row's load time, spread over the rounds (wrk takes whole seconds)
  const wrkOpts: WrkOptions = {
    seconds: Math.max(1, Math.floor(opts.seconds / opts.rounds)),
    threads: opts.threads,
    connections: opts.connections,
    cpus: pin === "none" ? undefined : WRK_CPU,
  };
  const posts = Math.min(2_000_000, Math.max(0, Number(arg("posts", "1000")) || 0));
  const only = arg("only", "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  // names only: the fixtures come from the seeded server later
  const endpointNames = endpoints({
    url: "http://127.0.0.1:0",
    cookie: "",
    csrf: "",
    conversationId: "",
    pushConversationId: "",
    historyConversationId: "",
    botToken: "",
    botChatId: 0,
    posts,
    follows: 0,
    newcomerCookie: "",
    postId: "",
    commentId: "",
    profileUsername: "",
    metricsToken: "",
    settled: { walBytesSeeded: 0, walPagesCheckpointed: 0 },
  }).map((e) => e.name);
  const isSelected = (name: string) => !only.length || only.some((o) => name.toLowerCase().includes(o));
  if (!endpointNames.some(isSelected)) {
    console.error(`--only matches none of: ${endpointNames.join(", ")}`);
    process.exit(1);
  }
  const profile = process.argv.includes("--profile");

  const dataDir = mkdtempSync(join(tmpdir(), "socialctl-bench-"));
  mkdirSync(TMP, { recursive: true });
  writeFileSync(SERVER_LOG, "");
  const baseline = await startBaseline();
  const references = await startReferences();
  let server: Awaited<ReturnType<typeof spawnChild<Fixtures>>> | null = null;
  try {
    console.log(`seeding a server with ${posts} posts…`);
    server = await spawnChild<Fixtures>(import.meta.path, CHILD_FLAG, {
      env: { BENCH_DATA_DIR: dataDir, BENCH_POSTS: String(posts) },
      stderrFile: SERVER_LOG,
      // a million posts take minutes to seed on a busy machine
      timeoutMs: posts > SEED_THROUGH_DOMAIN_MAX ? 900_000 : undefined,
      // a markdown CPU profile of the server, written when it stops
      bunArgs: profile ? ["--cpu-prof-md", `--cpu-prof-dir=${TMP}`] : [],
    });
    const fixtures = server.ready;
    const serverPid = server.pid;
    // the bare server, the references and the real one all alike: on the CPU wrk is not on
    if (pin === "both") for (const pid of [baseline.pid, references.pid, serverPid]) pinProcess(pid, SERVER_CPU);
    const memBefore = processMemory(serverPid);
    const baselineMem = processMemory(baseline.pid);
    const { walBytesSeeded, walPagesCheckpointed } = fixtures.settled;
    console.log(
      `after seeding: WAL ${mb(walBytesSeeded)} MB, ${walPagesCheckpointed} pages checkpointed and statistics refreshed before the first row`,
    );

    /** A wrk run against the process PID serves, with that process's CPU time per request. */
    const measure = async (pid: number, request: WrkRequest): Promise<Measured> => {
      const cpuBefore = processCpuSeconds(pid);
      const result = await runWrk(wrk, request, wrkOpts);
      const cpuSeconds = processCpuSeconds(pid) - cpuBefore;
      return { ...result, cpuUsPerRequest: result.requests > 0 ? (cpuSeconds * 1e6) / result.requests : 0 };
    };
    const yardsticks: Record<Yardstick, { pid: number; request: WrkRequest }> = {
      bare: { pid: baseline.pid, request: { url: `${baseline.ready.url}/` } },
      select: { pid: references.pid, request: { url: `${references.ready.url}/select` } },
      insert: {
        pid: references.pid,
        request: {
          url: `${references.ready.url}/insert`,
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ content: "Hello from the benchmark" }),
        },
      },
    };
    const yardstickRuns: Record<Yardstick, Measured[]> = { bare: [], select: [], insert: [] };
    const measureYardstick = async (kind: Yardstick) => {
      const result = await measure(yardsticks[kind].pid, yardsticks[kind].request);
      yardstickRuns[kind].push(result);
      return result;
    };

    const selected = endpoints(fixtures).filter((e) => isSelected(e.name));
    for (const e of selected) await probe(e);
    const rows = new Map<Endpoint, RowRuns>(
      selected.map((e) => [e, { endpoint: e, runs: [], yardstickRuns: [], bareRps: [], writes: [] }]),
    );
    const metrics = () => fetchWriteGroups(fixtures.url, fixtures.metricsToken);
    console.log(
      `wrk: ${opts.threads} threads, ${opts.connections} connections; ${opts.rounds} rounds of ${wrkOpts.seconds} s per row, each next to a run of its reference; wrk ${pin === "none" ? "unpinned" : `on CPU ${WRK_CPU}`}${pin === "both" ? `, the servers on CPU ${SERVER_CPU}` : ""}; load average ${loadAverage()}`,
    );
    // every round of the reads, then every round of the writes, so that every read sees the same database
    const phases = [selected.filter((e) => e.reference !== "insert"), selected.filter((e) => e.reference === "insert")];
    for (const phase of phases.filter((p) => p.length)) {
      // one run of each row and of each yardstick unmeasured first: with runs of a second or
      // two, a first round that compiles the route's code (and, for the writes, starts the
      // checkpointer) would differ from the others by that alone
      const warmUps = new Set<Yardstick>(["bare", ...phase.map((e) => e.reference ?? "bare")]);
      for (const kind of warmUps) await runWrk(wrk, yardsticks[kind].request, wrkOpts);
      for (const e of phase) await runWrk(wrk, roundRequest(e, "warm-up"), wrkOpts);
      for (let round = 0; round < opts.rounds; round++) {
        // the bare server once a round, at its start or its end in turn: every row's "× bare"
        const bareFirst = round % 2 === 0;
        const bare = bareFirst ? await measureYardstick("bare") : null;
        const runs = new Map<Endpoint, { row?: Measured; yardstick?: Measured }>();
        const writesBefore = phase[0]!.reference === "insert" ? await metrics() : null;
        for (const { row: index, reference } of pairedRuns(round, phase.length)) {
          const e = phase[index]!;
          const pair = runs.get(e) ?? {};
          runs.set(e, pair);
          if (reference) {
            pair.yardstick = await measureYardstick(e.reference ?? "bare");
            continue;
          }
          pair.row = await measure(serverPid, roundRequest(e, `r${round}`));
        }
        const bareRun = bare ?? (await measureYardstick("bare"));
        for (const [e, { row, yardstick }] of runs) {
          const r = rows.get(e)!;
          r.runs.push(row!);
          r.yardstickRuns.push(yardstick!);
          r.bareRps.push(bareRun.rps);
          const failures = row!.non2xx + row!.socketErrors;
          console.log(
            `  round ${round + 1} · ${e.name}: ${Math.round(row!.rps)} req/s, ${Math.round(row!.cpuUsPerRequest)} µs/req · ${e.reference ? REFERENCE_NAMES[e.reference] : "bare"} ${Math.round(yardstick!.rps)} req/s → ${(row!.rps / yardstick!.rps).toFixed(2)}${failures ? `, ${row!.non2xx} non-2xx, ${row!.socketErrors} socket errors` : ""}`,
          );
        }
        if (writesBefore) {
          // each round of sends grows the database and its WAL: what this one wrote
          const after = await metrics();
          const groups = describeWriteGroups(writesBefore, after);
          const wal = after.walBytes === null ? "" : `; WAL ${mb(after.walBytes)} MB after it`;
          console.log(`    the round's writes: ${groups}${wal}`);
          for (const e of phase) rows.get(e)!.writes.push(`round ${round + 1}: ${groups}${wal}`);
        }
      }
    }
    const memAfter = processMemory(serverPid);

    const bareRps = medianRps(yardstickRuns.bare)!;
    const yardstickRow = (kind: ReferenceKind): BenchRow | null => {
      const runs = yardstickRuns[kind];
      if (!runs.length) return null;
      const result = combine(runs);
      return {
        name: `reference: Elysia + one ${REFERENCE_NAMES[kind]} (median of ${runs.length})`,
        result,
        ratio: result.rps / bareRps,
        cpuUsPerRequest: result.cpuUsPerRequest,
      };
    };
    const measured = [...rows.values()].map((r) => {
      const ratios = r.runs.map((run, i) => run.rps / r.yardstickRuns[i]!.rps);
      const reference = r.endpoint.reference;
      const result = combine(r.runs);
      const row: BenchRow = {
        name: r.endpoint.name,
        result,
        // a row without a reference is paired with the bare server itself
        ratio: reference ? median(r.runs.map((run, i) => run.rps / r.bareRps[i]!)) : median(ratios),
        reference: reference
          ? {
              name: REFERENCE_NAMES[reference],
              ...ratioRange(ratios),
              // CPU per request of the reference ÷ the row's, round by round: what the machine's load moves least
              cpuRatio: median(r.runs.map((run, i) => r.yardstickRuns[i]!.cpuUsPerRequest / run.cpuUsPerRequest)),
            }
          : undefined,
        cpuUsPerRequest: result.cpuUsPerRequest,
      };
      return { row, runs: r, ratios };
    });
    const bareResult = combine(yardstickRuns.bare);
    const tableRows: BenchRow[] = [
      {
        name: `bare Bun.serve (baseline, median of ${yardstickRuns.bare.length})`,
        result: bareResult,
        ratio: 1,
        cpuUsPerRequest: bareResult.cpuUsPerRequest,
      },
      ...[yardstickRow("select"), yardstickRow("insert")].filter((r): r is BenchRow => r !== null),
      ...measured.map((m) => m.row),
    ];
    const table = markdownTable(tableRows);
    const writes = measured.find((m) => m.runs.writes.length)?.runs.writes ?? [];
    const writeSummary = writes.length
      ? `writes of each round (its write rows together, reads all done before):\n  ${writes.join("\n  ")}\n`
      : "";
    const memory = `server RSS: ${mb(memBefore.rss)} MB idle after seeding → ${mb(memAfter.rss)} MB after the runs (peak ${mb(memAfter.peakRss)} MB); baseline process ${mb(baselineMem.rss)} MB`;
    console.log(
      `\n× bare and × reference: medians over ${opts.rounds} rounds of the ratio to the run next to the row (× ref min–max: the rounds' range; × ref CPU: the reference's CPU µs/req ÷ the row's); req/s, p50, CPU: medians; p99: the worst round\n\n${table}\n\n${writeSummary}${memory}\nload average at the end: ${loadAverage()}`,
    );

    const report = {
      date: new Date().toISOString(),
      machine: {
        cpus: navigator.hardwareConcurrency,
        bun: Bun.version,
        platform: process.platform,
        arch: process.arch,
        loadAverage: loadavg(),
      },
      wrk: { ...wrkOpts, rounds: opts.rounds, pin },
      posts,
      settled: fixtures.settled,
      baseline: { rps: bareRps, runs: yardstickRuns.bare },
      references: {
        select: { rps: medianRps(yardstickRuns.select), runs: yardstickRuns.select },
        insert: { rps: medianRps(yardstickRuns.insert), runs: yardstickRuns.insert },
      },
      endpoints: measured.map(({ row, runs, ratios }) => ({
        name: row.name,
        ratio: row.ratio,
        referenceRatio: row.reference?.ratio,
        referenceRatioMin: row.reference?.min,
        referenceRatioMax: row.reference?.max,
        referenceCpuRatio: row.reference?.cpuRatio,
        reference: row.reference?.name,
        writeGroups: runs.writes.length ? runs.writes.join("; ") : undefined,
        ...row.result,
        rounds: runs.runs.map((run, i) => ({
          ...run,
          yardstickRps: runs.yardstickRuns[i]!.rps,
          yardstickCpuUsPerRequest: runs.yardstickRuns[i]!.cpuUsPerRequest,
          ratio: ratios[i],
        })),
      })),
      memory: {
        serverRssBefore: memBefore.rss,
        serverRssAfter: memAfter.rss,
        serverPeakRss: memAfter.peakRss,
        baselineRss: baselineMem.rss,
      },
    };
    writeFileSync(RESULTS, JSON.stringify(report, null, 2) + "\n");
    console.log(`\nwritten to ${RESULTS}`);
  } finally {
    await server?.stop();
    await baseline.stop();
    await references.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** E's request in the run named RUN: a clientMessageId unique over the runs too (a repeated one is answered without a write). */
function roundRequest(e: Endpoint, run: string): WrkRequest {
  const template = e.request.bodyTemplate;
  return template ? { ...e.request, bodyTemplate: template.replace("{n}", `${run}-{n}`) } : e.request;
}

/** The median req/s of RUNS, null when there were none (a reference no selected row uses). */
const medianRps = (runs: Measured[]) => (runs.length ? median(runs.map((r) => r.rps)) : null);

if (process.argv.includes(CHILD_FLAG)) await runChild();
else await main();
