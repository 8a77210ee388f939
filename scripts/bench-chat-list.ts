/**
 * The chat list under writes (not a test): CPU per read of a person's whole chat list (50
 * chats, as the Client API answers it: `chatListAnswer`) in process, with no HTTP around it,
 * in four situations taken in turn, round by round:
 *   elsewhere   right after a send in a chat of two other people
 *   post        right after someone else's post (a table no chat list is read from)
 *   mine        right after a send in one of the reader's own chats (its answer must change)
 *   quiet       nothing written since the last two reads
 * and the CPU of the sends themselves. Each read waits 1 ms first, so what a write leaves to run
 * after it is not counted in the read (it reads from colder caches for it).
 *
 *   bun scripts/bench-chat-list.ts [--rounds 3000] [--tree /path/to/another/checkout]
 *
 * --tree runs the same measurement against another checkout's source (an A/B of two trees:
 * run it for each, alternated). The server is `startTestServer` (SQLite in a temporary data
 * dir); bounded: at most 20,000 rounds.
 */
import { resolve } from "node:path";
import { arg, LIFTED_LIMITS } from "./bench-lib";

const tree = resolve(arg("tree", resolve(import.meta.dir, "..")));
const rounds = Math.min(20_000, Math.max(100, Number(arg("rounds", "3000")) || 3000));
const CHATS = 50;

const { startTestServer } = await import(`${tree}/src/testing/server`);
const { makeUser } = await import(`${tree}/src/testing/fixtures`);
const { openPrivateChat, sendMessage, sendMessageByCuid } = await import(`${tree}/src/domain/chats`);
const { chatListAnswer } = await import(`${tree}/src/clientapi/chats/list-answers`);
const { createPost } = await import(`${tree}/src/domain/posts/service`);

// rate limits lifted, as the other benchmarks run (a post a round is far past a person's budget)
const server = await startTestServer(LIFTED_LIMITS);
try {
  const app = server.app;
  const reader = await makeUser(app, { username: "bench_reader" });
  let mine: { cuid: string } | undefined;
  let mineWriter = 0;
  for (let i = 0; i < CHATS; i++) {
    const writer = await makeUser(app, { username: `bench_writer${i}` });
    const chat = await openPrivateChat(app, writer.id, reader.id);
    await sendMessage(app, { conversationId: chat.id, senderId: writer.id, content: `Hi ${i}` });
    if (i === 0) [mine, mineWriter] = [chat, writer.id];
  }
  const [a, b] = [
    await makeUser(app, { username: "bench_other_a" }),
    await makeUser(app, { username: "bench_other_b" }),
  ];
  const elsewhere = await openPrivateChat(app, a.id, b.id);

  const cpuUs = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  const totals = { quiet: 0, elsewhere: 0, post: 0, mine: 0, send: 0 };
  // what a write leaves to run after it (live events, hooks, a post's fan-out, timers) runs before the read is timed
  const settled = () => Bun.sleep(1);
  const read = async (into: "quiet" | "elsewhere" | "post" | "mine") => {
    await settled();
    const t = cpuUs();
    const answer = await chatListAnswer(app, reader.id, undefined, CHATS);
    totals[into] += cpuUs() - t;
    if (!answer) throw new Error("no answer");
  };
  const send = async (cuid: string, senderId: number, n: number) => {
    const t = cpuUs();
    await sendMessageByCuid(app, cuid, senderId, { content: `Message ${n}` });
    totals.send += cpuUs() - t;
  };
  const round = async (n: number) => {
    await send(elsewhere.cuid, a.id, n);
    await read("elsewhere");
    await createPost(app, b, { content: `Post ${n}` });
    await read("post");
    await send(mine!.cuid, mineWriter, n);
    await read("mine");
    // the first repeat of a new answer makes its UTF-8 bytes (list-answers.ts); later ones write them
    await chatListAnswer(app, reader.id, undefined, CHATS);
    await read("quiet");
  };
  for (let n = 0; n < 200; n++) await round(n);
  for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] = 0;
  for (let n = 0; n < rounds; n++) await round(n);
  const per = (us: number, count = rounds) => Number((us / count).toFixed(1));
  console.log(
    JSON.stringify({
      tree,
      rounds,
      readQuietUs: per(totals.quiet),
      readAfterSendElsewhereUs: per(totals.elsewhere),
      readAfterPostUs: per(totals.post),
      readAfterSendInMyChatUs: per(totals.mine),
      sendUs: per(totals.send, rounds * 2),
    }),
  );
} finally {
  await server.stop();
}
