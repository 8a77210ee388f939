/**
 * Hot-path benchmark (not a test): req/s and latency of the requests a busy instance serves
 * most, each as a ratio to a bare Bun.serve JSON baseline measured in the same run, plus the
 * server's memory. Prints a markdown table and writes .tmp/bench-results.json.
 *
 *   bun scripts/bench.ts [--seconds 5] [--threads 2] [--connections 50] [--posts 1000] [--only feed,getMe] [--profile]
 *
 * --only runs the endpoints whose names contain one of the words; --profile writes a CPU
 * profile of the server (markdown, Bun's --cpu-prof-md) into .tmp/.
 *
 * The server is the real one (startServer) in a child process on a fresh temporary data dir,
 * rate limits lifted, loopback only, logging as `socialctl serve` does (into
 * .tmp/bench-server.log); the data dir is removed afterwards. Needs wrk
 * (apt-get install -y wrk). Reads run before writes so every read sees the same database.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import {
  arg,
  describeWriteGroups,
  fetchWriteGroups,
  LIFTED_LIMITS,
  markdownTable,
  mb,
  processCpuSeconds,
  processMemory,
  requireWrk,
  runWrk,
  serveChild,
  spawnChild,
  startBaseline,
  startReferences,
  type BenchRow,
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
}

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
    overrides: { ...LIFTED_LIMITS, "metrics.enabled": true, "metrics.token": metricsToken },
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

  // the chat list: people who wrote to the reader (two messages each), besides the chats above
  const { openPrivateChat, sendMessage } = await import("../src/domain/chats");
  const { createComment } = await import("../src/domain/comments/service");
  for (let i = 0; i < WRITER_COUNT; i++) {
    const writer = await makeUser(app, { username: `bench_writer${i}` });
    const conversation = await openPrivateChat(app, writer.id, reader.id);
    for (const content of [`Hi ${i}`, `How are you, ${i}?`])
      await sendMessage(app, { conversationId: conversation.id, senderId: writer.id, content });
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

  Bun.gc(true);
  const fixtures: Fixtures = {
    url: server.url,
    cookie: client.cookieHeader(),
    csrf: client.csrf!,
    conversationId: chat.body.data.conversationId,
    botToken: bot.token,
    botChatId: reader.id,
    posts: postCount,
    follows,
    newcomerCookie: newcomerClient.cookieHeader(),
    postId: discussed.cuid,
    commentId: firstComment,
    profileUsername: authors[0]!.username,
    metricsToken,
  };
  serveChild(fixtures, () => server.stop());
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

async function main(): Promise<void> {
  const wrk = requireWrk();
  const opts = {
    seconds: Number(arg("seconds", "5")),
    threads: Number(arg("threads", "2")),
    connections: Number(arg("connections", "50")),
  };
  if (![opts.seconds, opts.threads, opts.connections].every((n) => Number.isInteger(n) && n > 0 && n <= 10_000)) {
    console.error("--seconds, --threads and --connections must be positive integers");
    process.exit(1);
  }
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
    botToken: "",
    botChatId: 0,
    posts,
    follows: 0,
    newcomerCookie: "",
    postId: "",
    commentId: "",
    profileUsername: "",
    metricsToken: "",
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
    const memBefore = processMemory(server.pid);
    const baselineMem = processMemory(baseline.pid);

    /** A wrk run against the process PID serves, with that process's CPU time per request. */
    const measure = async (pid: number, request: WrkRequest): Promise<Measured> => {
      const cpuBefore = processCpuSeconds(pid);
      const result = await runWrk(wrk, request, opts);
      const cpuSeconds = processCpuSeconds(pid) - cpuBefore;
      return { ...result, cpuUsPerRequest: result.requests > 0 ? (cpuSeconds * 1e6) / result.requests : 0 };
    };
    const meanCpu = (runs: Measured[]) => runs.reduce((sum, r) => sum + r.cpuUsPerRequest, 0) / runs.length;

    // the baseline runs before and after the endpoints; the ratio uses their mean
    const baselineRequest: WrkRequest = { url: `${baseline.ready.url}/` };
    console.log(`wrk: ${opts.threads} threads, ${opts.connections} connections, ${opts.seconds} s per endpoint`);
    const baselineFirst = await measure(baseline.pid, baselineRequest);
    console.log(`  bare Bun.serve: ${Math.round(baselineFirst.rps)} req/s`);
    const referenceRequests: Record<ReferenceKind, WrkRequest> = {
      select: { url: `${references.ready.url}/select` },
      insert: {
        url: `${references.ready.url}/insert`,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ content: "Hello from the benchmark" }),
      },
    };
    const referenceRuns: Record<ReferenceKind, Measured[]> = { select: [], insert: [] };
    const runReferences = async () => {
      for (const kind of ["select", "insert"] as const) {
        const result = await measure(references.pid, referenceRequests[kind]);
        console.log(
          `  reference ${REFERENCE_NAMES[kind]}: ${Math.round(result.rps)} req/s, p99 ${result.p99Ms.toFixed(2)} ms`,
        );
        referenceRuns[kind].push(result);
      }
    };
    await runReferences();
    const measured: { name: string; result: Measured; reference?: ReferenceKind; writeGroups?: string }[] = [];
    const writeGroups = () => fetchWriteGroups(fixtures.url, fixtures.metricsToken);
    for (const e of endpoints(fixtures)) {
      if (!isSelected(e.name)) continue;
      await probe(e);
      const groupsBefore = e.reference === "insert" ? await writeGroups() : null;
      const result = await measure(server.pid, e.request);
      // how many writes each commit carried during the row (group commit, src/db/group-commit.ts)
      const groups = groupsBefore ? describeWriteGroups(groupsBefore, await writeGroups()) : undefined;
      console.log(
        `  ${e.name}: ${Math.round(result.rps)} req/s, p99 ${result.p99Ms.toFixed(2)} ms${result.non2xx + result.socketErrors ? `, ${result.non2xx} non-2xx, ${result.socketErrors} socket errors` : ""}${groups ? `\n    write groups: ${groups}` : ""}`,
      );
      measured.push({ name: e.name, result, reference: e.reference, writeGroups: groups });
    }
    await runReferences();
    const baselineLast = await measure(baseline.pid, baselineRequest);
    const baselineRps = (baselineFirst.rps + baselineLast.rps) / 2;
    const referenceRps = (kind: ReferenceKind) =>
      referenceRuns[kind].reduce((sum, r) => sum + r.rps, 0) / referenceRuns[kind].length;
    const referenceRow = (kind: ReferenceKind): BenchRow => {
      const [first, last] = referenceRuns[kind] as [Measured, Measured];
      const rps = referenceRps(kind);
      return {
        name: `reference: Elysia + one ${REFERENCE_NAMES[kind]} (mean of 2)`,
        result: {
          ...first,
          rps,
          requests: first.requests + last.requests,
          p50Ms: Math.max(first.p50Ms, last.p50Ms),
          p99Ms: Math.max(first.p99Ms, last.p99Ms),
        },
        ratio: rps / baselineRps,
        cpuUsPerRequest: meanCpu(referenceRuns[kind]),
      };
    };
    const memAfter = processMemory(server.pid);

    const rows: BenchRow[] = [
      {
        name: "bare Bun.serve (baseline, mean of 2)",
        result: {
          ...baselineFirst,
          rps: baselineRps,
          requests: baselineFirst.requests + baselineLast.requests,
          p50Ms: Math.max(baselineFirst.p50Ms, baselineLast.p50Ms),
          p99Ms: Math.max(baselineFirst.p99Ms, baselineLast.p99Ms),
        },
        ratio: 1,
        cpuUsPerRequest: meanCpu([baselineFirst, baselineLast]),
      },
      referenceRow("select"),
      referenceRow("insert"),
      ...measured.map((m) => ({
        name: m.name,
        result: m.result,
        ratio: m.result.rps / baselineRps,
        reference: m.reference
          ? { name: REFERENCE_NAMES[m.reference], ratio: m.result.rps / referenceRps(m.reference) }
          : undefined,
        cpuUsPerRequest: m.result.cpuUsPerRequest,
      })),
    ];
    const table = markdownTable(rows);
    const groupLines = measured
      .filter((m) => m.writeGroups)
      .map((m) => `write groups during ${m.name}: ${m.writeGroups}`)
      .join("\n");
    const memory = `server RSS: ${mb(memBefore.rss)} MB idle after seeding → ${mb(memAfter.rss)} MB after the runs (peak ${mb(memAfter.peakRss)} MB); baseline process ${mb(baselineMem.rss)} MB`;
    console.log(`\n${table}\n\n${groupLines ? `${groupLines}\n` : ""}${memory}`);

    const report = {
      date: new Date().toISOString(),
      machine: {
        cpus: navigator.hardwareConcurrency,
        bun: Bun.version,
        platform: process.platform,
        arch: process.arch,
      },
      wrk: opts,
      posts,
      baseline: { rps: baselineRps, runs: [baselineFirst, baselineLast] },
      references: {
        select: { rps: referenceRps("select"), runs: referenceRuns.select },
        insert: { rps: referenceRps("insert"), runs: referenceRuns.insert },
      },
      endpoints: rows.slice(3).map((r, i) => ({
        name: r.name,
        ratio: r.ratio,
        referenceRatio: r.reference?.ratio,
        reference: r.reference?.name,
        writeGroups: measured[i]?.writeGroups,
        ...r.result,
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

if (process.argv.includes(CHILD_FLAG)) await runChild();
else await main();
