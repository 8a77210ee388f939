import { afterAll, beforeAll, expect, test } from "bun:test";
import { leases } from "../cluster/leases";
import { pubsub } from "../cluster/pubsub";
import { findBotByUserId } from "../domain/bots/service";
import { accountIdOf } from "../domain/bots/ids";
import { botCall, botWorld, createBotViaApi, openChat, waitFor, type BotWorld } from "../testing/botapi";

/*
 * The webhook deliverer's lease (webhooks.ts): a node that loses it mid-POST (another node
 * took it: this one stalled past it) aborts that POST and records nothing, so two nodes never
 * go on delivering one bot's updates side by side; the update goes again under its id. The
 * other node is played here by taking the lease under another owner; real nodes killed
 * mid-delivery are in src/cluster/three-nodes.test.ts.
 */

let world: BotWorld;
beforeAll(async () => void (world = await botWorld({ "bot.allowPrivateWebhooks": true })));
afterAll(() => world.server.stop());

test("a deliverer that loses its lease mid-POST aborts it, records no failure, and the update goes again under the same id", async () => {
  const { app } = world.server;
  const posts: Array<{ update: any; aborted: boolean }> = [];
  let holding = true;
  const receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const entry = { update: await req.json(), aborted: false };
      posts.push(entry);
      if (!holding) return Response.json({});
      // held until the sender gives up: its abort closes the connection
      return new Promise<Response>((resolve) => {
        req.signal.addEventListener("abort", () => {
          entry.aborted = true;
          resolve(new Response(null, { status: 499 }));
        });
      });
    },
  });
  try {
    const token = await createBotViaApi(world.owner, "lease_bot");
    const cid = await openChat(world.person, "lease_bot");
    const found = await findBotByUserId(app.db, accountIdOf(Number(token.split(":")[0])));
    const lease = `webhook:${found!.bot.id}`;
    const queued = async () =>
      (await app.db.selectFrom("bot_updates").select("id").where("bot_id", "=", found!.bot.id).execute()).length;
    expect((await botCall(world.server.url, token, "setWebhook", { url: `${receiver.url}/` })).status).toBe(200);
    expect((await world.person.post(`/api/social/messages/${cid}`, { content: "once" })).status).toBe(200);
    await waitFor(() => posts.length === 1 || null, 10_000, "the first POST");

    // another node takes the lease, as if this one had stalled past it
    expect(await leases(app).release(lease, pubsub(app).nodeId)).toBe(true);
    expect(await leases(app).acquire(lease, "another-node", 60_000)).toBe(true);
    // the next renewal (within 3 s) finds it taken and aborts the POST
    await waitFor(() => posts[0]!.aborted || null, 10_000, "the POST to be aborted");
    expect(await queued()).toBe(1);
    // not a failure of the bot's server: nothing recorded, no backoff
    const info = await botCall(world.server.url, token, "getWebhookInfo");
    expect(info.body.result.last_error_message).toBeUndefined();
    await Bun.sleep(500);
    expect(posts).toHaveLength(1);

    // the other node goes away without delivering: this one takes over on its next scan
    holding = false;
    expect(await leases(app).release(lease, "another-node")).toBe(true);
    await waitFor(() => posts.length === 2 || null, 15_000, "the update again");
    expect(posts[1]!.update).toEqual(posts[0]!.update);
    await waitFor(async () => (await queued()) === 0 || null, 5_000, "the queue to empty");
    expect(posts).toHaveLength(2);
  } finally {
    receiver.stop(true);
  }
  // a renewal period, then up to a scan period of waiting: seconds of real time
}, 60_000);
