import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { makeUser, signedInClient } from "../../testing/fixtures";
import { quickPerson } from "../../testing/fixtures";
import { storeUpload } from "../../media/uploads";
import { pngOf } from "../../testing/media";
import { findConversationByCuid, getMember } from "../../domain/chats";
import type { DomainHookPayloads } from "../../domain/hooks";

let server: TestServer;
const memberChanges: DomainHookPayloads["member:changed"][] = [];
beforeAll(async () => {
  server = await startTestServer();
  server.app.hooks.on("member:changed", (p) => void memberChanges.push(p));
});
afterAll(() => server.stop());

type Person = Awaited<ReturnType<typeof quickPerson>>;
const person = () => quickPerson(server);

async function group(owner: Person, title: string, members: Person[]): Promise<string> {
  const res = await owner.client.post("/api/social/groups", { title, members: members.map((m) => m.user.username) });
  expect(res.status).toBe(200);
  return res.body.data.conversationId;
}

const contents = async (p: Person, cid: string) =>
  (await p.client.get(`/api/social/messages/${cid}?limit=100`)).body.data.messages.map((m: any) => m.content).reverse();

describe("groups", () => {
  test("create with members; everyone reads and writes; strangers get NOT_FOUND", async () => {
    const [a, b, c, eve] = [await person(), await person(), await person(), await person()];
    const cid = await group(a, "Trip", [b, c]);
    let res = await b.client.get(`/api/social/messages/${cid}`);
    expect(res.status).toBe(200);
    expect(res.body.data.conversation).toMatchObject({
      type: "group",
      title: "Trip",
      memberCount: 3,
      myRole: "member",
    });
    expect(res.body.data.messages[0]).toMatchObject({
      kind: "system",
      system: { action: "group_created", title: "Trip" },
    });
    expect((await c.client.post(`/api/social/messages/${cid}`, { content: "hello all" })).status).toBe(200);
    expect(await contents(a, cid)).toEqual([`${a.user.username} created the group "Trip"`, "hello all"]);
    res = await a.client.get(`/api/social/groups/${cid}/members`);
    expect(res.body.data.members.map((m: any) => [m.user.username, m.role])).toEqual([
      [a.user.username, "creator"],
      [b.user.username, "member"],
      [c.user.username, "member"],
    ]);
    for (const r of [
      await eve.client.get(`/api/social/messages/${cid}`),
      await eve.client.get(`/api/social/groups/${cid}/members`),
      await eve.client.patch(`/api/social/groups/${cid}`, { title: "mine" }),
      await eve.client.post(`/api/social/groups/${cid}/members`, { username: eve.user.username }),
      await eve.client.post(`/api/social/groups/${cid}/invite`),
      await eve.client.post(`/api/social/groups/${cid}/leave`),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("NOT_FOUND");
    }
  });

  test("bad input on create and update", async () => {
    const a = await person();
    let res = await a.client.post("/api/social/groups", { title: "   ", members: [] });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.title).toBeDefined();
    res = await a.client.post("/api/social/groups", { title: "t".repeat(129) });
    expect(res.body.error.details.fieldErrors.title).toBeDefined();
    res = await a.client.post("/api/social/groups", { title: "ok", members: ["nobody_at_all_zz"] });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.members[0]).toContain("nobody_at_all_zz");
    res = await a.client.post("/api/social/groups", { members: [] });
    expect(res.status).toBe(422);
    res = await a.client.post("/api/social/groups", { title: "ok", members: "alice" });
    expect(res.status).toBe(422);
    expect(res.body.error.details.fieldErrors.members).toBeDefined();
    // people who take messages from nobody (or who blocked you) are not put in groups either
    const [shy, blocker] = [await person(), await person()];
    expect((await shy.client.patch("/api/account/settings", { whoCanMessage: "nobody" })).status).toBe(200);
    expect((await blocker.client.post(`/api/social/users/${a.user.username}/block`)).status).toBe(200);
    for (const who of [shy, blocker]) {
      res = await a.client.post("/api/social/groups", { title: "Nope", members: [who.user.username] });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("FORBIDDEN");
    }
    expect((await a.client.get("/api/social/messages")).body.data.conversations).toEqual([]);
    const cid = await group(a, "Solo", []);
    res = await a.client.patch(`/api/social/groups/${cid}`, {});
    expect(res.status).toBe(400);
    res = await a.client.patch(`/api/social/groups/${cid}`, { photoUrl: "https://elsewhere.example/p.png" });
    expect(res.body.error.details.fieldErrors.photoUrl).toBeDefined();
    // a private chat is not a group
    const b = await person();
    const pc = (await a.client.post(`/api/social/users/${b.user.username}/message`)).body.data.conversationId;
    res = await a.client.post(`/api/social/groups/${pc}/members`, { username: b.user.username });
    expect(res.status).toBe(400);
  });

  test("administrators manage; members cannot; rename and photo leave system messages", async () => {
    const [a, b, c, d] = [await person(), await person(), await person(), await person()];
    const cid = await group(a, "Club", [b, c]);
    let res = await b.client.patch(`/api/social/groups/${cid}`, { title: "Hijacked" });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("PERMISSION_DENIED");
    res = await b.client.post(`/api/social/groups/${cid}/members`, { username: d.user.username });
    expect(res.status).toBe(403);
    res = await b.client.delete(`/api/social/groups/${cid}/members/${c.user.username}`);
    expect(res.status).toBe(403);
    res = await b.client.post(`/api/social/groups/${cid}/members/${c.user.username}/promote`, {
      role: "administrator",
    });
    expect(res.status).toBe(403);

    // promote b with chosen rights
    res = await a.client.post(`/api/social/groups/${cid}/members/${b.user.username}/promote`, {
      rights: { can_change_info: true, can_invite_users: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.role).toBe("administrator");
    res = await a.client.post(`/api/social/groups/${cid}/members/${b.user.username}/promote`, {
      rights: { can_fly: true },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors["rights.can_fly"]).toBeDefined();
    res = await a.client.post(`/api/social/groups/${cid}/members/${b.user.username}/promote`, {});
    expect(res.status).toBe(400);
    res = await b.client.patch(`/api/social/groups/${cid}`, { title: "Club 2" });
    expect(res.status).toBe(200);
    expect(res.body.data.conversation.title).toBe("Club 2");
    const photo = await storeUpload(server.app, {
      ownerId: b.user.id,
      kind: "chat-image",
      data: await pngOf(server.app, 4, 4),
    });
    res = await b.client.patch(`/api/social/groups/${cid}`, { photoUrl: photo.url });
    expect(res.body.data.conversation.photoUrl).toBe(photo.url);
    res = await b.client.post(`/api/social/groups/${cid}/members`, { username: d.user.username });
    expect(res.status).toBe(200);
    res = await b.client.post(`/api/social/groups/${cid}/members`, { username: d.user.username });
    expect(res.status).toBe(400);
    // b lacks can_restrict_members, can_pin_messages and can_promote_members
    expect((await b.client.delete(`/api/social/groups/${cid}/members/${d.user.username}`)).status).toBe(403);
    expect(
      (await b.client.post(`/api/social/groups/${cid}/members/${c.user.username}/promote`, { role: "administrator" }))
        .status,
    ).toBe(403);
    const m = (await c.client.post(`/api/social/messages/${cid}`, { content: "pin me" })).body.data.message;
    expect((await b.client.post(`/api/social/messages/${cid}/${m.id}/pin`)).status).toBe(403);
    expect((await a.client.post(`/api/social/messages/${cid}/${m.id}/pin`)).status).toBe(200);
    // the creator deletes anyone's message for everyone
    expect((await a.client.delete(`/api/social/messages/${cid}/${m.id}?forEveryone=true`)).status).toBe(200);

    expect(
      (await a.client.get(`/api/social/messages/${cid}?limit=100`)).body.data.messages
        .map((x: any) => x.system?.action)
        .filter(Boolean)
        .reverse(),
    ).toEqual(["group_created", "title_changed", "photo_changed", "member_added"]);
    res = await b.client.patch(`/api/social/groups/${cid}`, { photoUrl: null });
    expect(res.body.data.conversation.photoUrl).toBeNull();
    // demote back to member: an empty rights set
    res = await a.client.post(`/api/social/groups/${cid}/members/${b.user.username}/promote`, { rights: {} });
    expect(res.body.data.role).toBe("member");
    res = await a.client.get(`/api/social/groups/${cid}/members`);
    expect(res.body.data.members.find((x: any) => x.user.username === b.user.username)).toMatchObject({
      role: "member",
      rights: {},
    });
    res = await a.client.post(`/api/social/groups/${cid}/members/${a.user.username}/promote`, { role: "member" });
    expect(res.status).toBe(403);
  });

  test("removed members return only by invitation; leaving hands over the group", async () => {
    const [a, b, c] = [await person(), await person(), await person()];
    const cid = await group(a, "Private club", [b, c]);
    let res = await a.client.delete(`/api/social/groups/${cid}/members/${b.user.username}`);
    expect(res.status).toBe(200);
    expect((await b.client.get(`/api/social/messages/${cid}`)).status).toBe(404);
    expect((await b.client.post(`/api/social/messages/${cid}`, { content: "still here?" })).status).toBe(404);
    res = await a.client.post(`/api/social/groups/${cid}/members`, { username: b.user.username });
    expect(res.status).toBe(403);
    res = await a.client.delete(`/api/social/groups/${cid}/members/${b.user.username}`);
    expect(res.status).toBe(404);
    res = await a.client.delete(`/api/social/groups/${cid}/members/nobody_at_all_zz`);
    expect(res.status).toBe(404);

    res = await c.client.post(`/api/social/groups/${cid}/invite`);
    expect(res.status).toBe(403);
    res = await a.client.post(`/api/social/groups/${cid}/invite`);
    expect(res.status).toBe(200);
    const { code, inviteLink } = res.body.data;
    expect(inviteLink).toContain(code);
    res = await b.client.post("/api/social/groups/join", { code: "bad code!" });
    expect(res.status).toBe(400);
    res = await b.client.post("/api/social/groups/join", { code: "a".repeat(20) });
    expect(res.status).toBe(404);
    res = await b.client.post("/api/social/groups/join", { code });
    expect(res.status).toBe(200);
    expect(res.body.data.conversationId).toBe(cid);
    expect((await b.client.post("/api/social/groups/join", { code })).status).toBe(200);
    expect((await b.client.get(`/api/social/messages/${cid}`)).body.data.conversation.myRole).toBe("member");
    // a new link revokes the old one
    const fresh = (await a.client.post(`/api/social/groups/${cid}/invite`)).body.data.code;
    expect(fresh).not.toBe(code);
    expect((await c.client.post("/api/social/groups/join", { code })).status).toBe(404);

    res = await a.client.post(`/api/social/groups/${cid}/leave`);
    expect(res.status).toBe(200);
    expect((await a.client.get(`/api/social/messages/${cid}`)).status).toBe(404);
    res = await b.client.get(`/api/social/groups/${cid}/members`);
    const roles = Object.fromEntries(res.body.data.members.map((m: any) => [m.user.username, m.role]));
    expect(roles).toEqual({ [c.user.username]: "creator", [b.user.username]: "member" });
    const lastTwo = (await contents(b, cid)).slice(-1);
    expect(lastTwo).toEqual([`${a.user.username} left the group`]);
  });

  test("a join by link obeys the joiner's who-may-message-me as a direct add by the link's maker does", async () => {
    const [creator, admin, joiner] = [await person(), await person(), await person()];
    const cid = await group(creator, "By link", [admin]);
    await creator.client.post(`/api/social/groups/${cid}/members/${admin.user.username}/promote`, {
      role: "administrator",
    });
    const code = (await admin.client.post(`/api/social/groups/${cid}/invite`)).body.data.code;
    const setWho = (who: string) => joiner.client.patch("/api/account/settings", { whoCanMessage: who });
    const join = () => joiner.client.post("/api/social/groups/join", { code });
    const directAdd = () => admin.client.post(`/api/social/groups/${cid}/members`, { username: joiner.user.username });

    // the group is shown before joining, and showing it joins nobody
    let res = await joiner.client.get(`/api/social/groups/join/${code}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      group: { title: "By link", description: null, photoUrl: null, memberCount: 2 },
      isMember: false,
    });
    expect((await joiner.client.get("/api/social/groups/join/unknowncode1")).status).toBe(404);

    await setWho("nobody");
    expect((await directAdd()).status).toBe(403);
    res = await join();
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    expect(res.body.error.message).toContain("who may message you");
    expect(await getMember(server.app.db, (await findConversationByCuid(server.app.db, cid))!.id, joiner.user.id)).toBe(
      undefined,
    );

    // "followed": the link's maker (not the creator) must be someone the joiner follows
    await setWho("followed");
    await joiner.client.post(`/api/social/users/${creator.user.username}/follow`);
    expect((await join()).status).toBe(403);
    await joiner.client.post(`/api/social/users/${admin.user.username}/follow`);
    res = await join();
    expect(res.status).toBe(200);
    expect(res.body.data.conversationId).toBe(cid);
    expect((await joiner.client.get(`/api/social/groups/join/${code}`)).body.data.isMember).toBe(true);
  });

  test("three accounts: left and kicked states; admins cannot remove admins; a leaver may be added back", async () => {
    const [a, b, c] = [await person(), await person(), await person()];
    const cid = await group(a, "Roles", [b, c]);
    const conv = (await findConversationByCuid(server.app.db, cid))!;
    const roleOf = async (p: Person) => (await getMember(server.app.db, conv.id, p.user.id))?.role;
    expect([await roleOf(a), await roleOf(b), await roleOf(c)]).toEqual(["creator", "member", "member"]);
    // b and c become administrators; b (not the creator) cannot remove c, nor promote anyone
    for (const p of [b, c]) {
      const res = await a.client.post(`/api/social/groups/${cid}/members/${p.user.username}/promote`, {
        role: "administrator",
      });
      expect(res.body.data.role).toBe("administrator");
    }
    expect((await a.client.get(`/api/social/groups/${cid}/members`)).body.data.members.map((m: any) => m.role)).toEqual(
      ["creator", "administrator", "administrator"],
    );
    let res = await b.client.delete(`/api/social/groups/${cid}/members/${c.user.username}`);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("PERMISSION_DENIED");
    res = await b.client.delete(`/api/social/groups/${cid}/members/${a.user.username}`);
    expect(res.status).toBe(403);
    // c leaves: state "left", no reading or writing, and an administrator may add c back
    expect((await c.client.post(`/api/social/groups/${cid}/leave`)).status).toBe(200);
    expect(await roleOf(c)).toBe("left");
    expect((await c.client.get(`/api/social/messages/${cid}`)).status).toBe(404);
    expect((await c.client.post(`/api/social/messages/${cid}`, { content: "ghost" })).status).toBe(404);
    expect((await c.client.post(`/api/social/groups/${cid}/leave`)).status).toBe(404);
    expect((await b.client.post(`/api/social/groups/${cid}/members`, { username: c.user.username })).status).toBe(200);
    expect(await roleOf(c)).toBe("member");
    // the creator kicks b: state "kicked", the chat disappears from b's list, only an invite brings b back
    expect((await a.client.delete(`/api/social/groups/${cid}/members/${b.user.username}`)).status).toBe(200);
    expect(await roleOf(b)).toBe("kicked");
    expect((await b.client.get("/api/social/messages")).body.data.conversations.map((x: any) => x.id)).not.toContain(
      cid,
    );
    res = await a.client.post(`/api/social/groups/${cid}/members`, { username: b.user.username });
    expect(res.status).toBe(403);
    expect(
      (
        await b.client.post("/api/social/groups/join", {
          code: (await a.client.post(`/api/social/groups/${cid}/invite`)).body.data.code,
        })
      ).status,
    ).toBe(200);
    expect(await roleOf(b)).toBe("member");
    expect((await b.client.get(`/api/social/messages/${cid}`)).body.data.conversation).toMatchObject({
      myRole: "member",
      myRights: {},
      memberCount: 3,
    });
  });

  test("a deleted account leaves its groups, hands them on, and its messages are wiped", async () => {
    const a = await signedInClient(server);
    const [b, c] = [await person(), await person()];
    const cid = await group(a, "Ephemeral", [b, c]);
    const pc = (await a.client.post(`/api/social/users/${b.user.username}/message`)).body.data.conversationId;
    await a.client.post(`/api/social/messages/${cid}`, { content: "a's words" });
    await a.client.post(`/api/social/messages/${pc}`, { content: "a's private words" });
    await b.client.post(`/api/social/messages/${pc}`, { content: "b's reply" });
    const res = await a.client.delete("/api/account", { password: a.user.password });
    expect(res.status).toBe(200);
    const members = (await b.client.get(`/api/social/groups/${cid}/members`)).body.data.members;
    expect(members.map((m: any) => [m.user.username, m.role])).toEqual([
      [b.user.username, "creator"],
      [c.user.username, "member"],
    ]);
    expect(await contents(b, cid)).not.toContain("a's words");
    expect(await contents(b, pc)).toEqual(["b's reply"]);
  });

  test("adding a bot emits member:changed; members list pages", async () => {
    const a = await person();
    const bot = await makeUser(server.app, {
      username: `grp${Date.now() % 100000}_bot`,
      isBot: true,
      email: null,
      password: null,
    });
    const others = (await Promise.all([1, 2, 3].map(() => person()))).map((p) => p.user);
    const res0 = await a.client.post("/api/social/groups", { title: "Bots", members: others.map((o) => o.username) });
    const cid = res0.body.data.conversationId;
    const conv = (await findConversationByCuid(server.app.db, cid))!;
    memberChanges.length = 0;
    const res = await a.client.post(`/api/social/groups/${cid}/members`, { username: bot.username });
    expect(res.status).toBe(200);
    expect(memberChanges).toEqual([
      { conversationId: conv.id, userId: bot.id, actorId: a.user.id, oldRole: null, newRole: "member" },
    ]);
    let page = await a.client.get(`/api/social/groups/${cid}/members?limit=2`);
    const seen = page.body.data.members.map((m: any) => m.user.username);
    expect(seen[0]).toBe(a.user.username);
    let guard = 0;
    while (page.body.data.pageInfo.nextCursor && guard++ < 5) {
      page = await a.client.get(
        `/api/social/groups/${cid}/members?limit=2&cursor=${page.body.data.pageInfo.nextCursor}`,
      );
      seen.push(...page.body.data.members.map((m: any) => m.user.username));
    }
    expect(seen.sort()).toEqual([a.user.username, bot.username, ...others.map((o) => o.username)].sort());
    memberChanges.length = 0;
    await a.client.delete(`/api/social/groups/${cid}/members/${bot.username}`);
    expect(memberChanges).toEqual([
      { conversationId: conv.id, userId: bot.id, actorId: a.user.id, oldRole: "member", newRole: "kicked" },
    ]);
  });
});
