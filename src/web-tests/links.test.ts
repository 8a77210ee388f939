import { describe, expect } from "bun:test";
import { botApiUserId } from "../domain/bots/ids";
import { pageProblems, expectAccessible } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";
import { botCall, createBotViaApi, waitFor } from "../testing/botapi";
import { quickPerson } from "../testing/fixtures";

// Links that act: a start link, a group invite and a bot's buttons to this site's own pages
// do nothing until the person presses what says what will happen; sign-in pages never open from a bot.
const suite = browserSuite();
const it = suite.it;

/** The texts of the updates TOKEN's bot has not yet taken (they stay queued). */
async function queuedTexts(token: string): Promise<string[]> {
  const res = await botCall(suite.server.url, token, "getUpdates", { timeout: 0 });
  return (res.body.result as any[]).map((u) => u.message?.text).filter((t): t is string => typeof t === "string");
}

describe("web app: links act on a press", () => {
  it("a start link shows what START sends and sends /start <label> once, on the press", async () => {
    const owner = await quickPerson(suite.server);
    const token = await createBotViaApi(owner.client, "welcome_link_bot", "Welcome");
    const { page } = await suite.person();

    // as if followed from another site: the chat opens, nothing reaches the bot
    await page.goto("/dashboard/messages?user=welcome_link_bot&start=promo-7");
    const prompt = page.getByRole("region", { name: "Start the bot" });
    await prompt.getByText("/start promo-7").waitFor();
    await prompt.getByText("the bot then knows your name and username").waitFor();
    await expectAccessible(page);
    await page.waitForTimeout(300);
    expect(await queuedTexts(token)).toEqual([]);
    await page.reload();
    await prompt.getByRole("button", { name: "START" }).waitFor();
    expect(await queuedTexts(token)).toEqual([]);

    await prompt.getByRole("button", { name: "START" }).click();
    await prompt.waitFor({ state: "hidden" });
    await waitFor(async () => (await queuedTexts(token)).length === 1, 5000, "the /start message");
    expect(await queuedTexts(token)).toEqual(["/start promo-7"]);
    // the address is the chat's own now: a reload sends nothing more
    expect(page.url()).not.toContain("start=");
    await page.reload();
    await page.getByRole("region", { name: "Message history" }).waitFor();
    await page.waitForTimeout(300);
    expect(await queuedTexts(token)).toEqual(["/start promo-7"]);
    expect(pageProblems(page)).toEqual([]);
  });

  it("an invite link shows the group and joins on JOIN, unless who may message me refuses it", async () => {
    const creator = await quickPerson(suite.server);
    const cid = (await creator.client.post("/api/social/groups", { title: "Night owls", members: [] })).body.data
      .conversationId;
    const code = (await creator.client.post(`/api/social/groups/${cid}/invite`)).body.data.code;
    const me = await suite.person();
    const { page } = me;
    const isMember = async () => (await me.client.get(`/api/social/messages/${cid}`)).status === 200;

    await page.goto(`/dashboard/messages?join=${code}`);
    await page.getByRole("heading", { name: "Night owls" }).waitFor();
    await page.getByText("1 member", { exact: true }).waitFor();
    await expectAccessible(page);
    await page.reload();
    await page.getByRole("button", { name: "JOIN" }).waitFor();
    expect(await isMember()).toBe(false);

    // allowing nobody to message me: the join is refused, with the reason
    expect((await me.client.patch("/api/account/settings", { whoCanMessage: "nobody" })).status).toBe(200);
    await page.getByRole("button", { name: "JOIN" }).click();
    await page.getByText("Your setting of who may message you does not let this group's inviter add you").waitFor();
    expect(await isMember()).toBe(false);

    expect((await me.client.patch("/api/account/settings", { whoCanMessage: "everyone" })).status).toBe(200);
    await page.getByRole("button", { name: "JOIN" }).click();
    await page.getByRole("heading", { level: 2, name: "Night owls" }).waitFor();
    await page
      .getByRole("region", { name: "Message history" })
      .getByText(`${me.user.username} joined by invite link`)
      .waitFor();
    expect(page.url()).toContain(`/dashboard/messages/${cid}`);
    expect(await isMember()).toBe(true);
    expect(pageProblems(page)).toEqual([]);
  });

  it("a bot's buttons to this site's pages ask first; a sign-in approval page never opens", async () => {
    const owner = await quickPerson(suite.server);
    const token = await createBotViaApi(owner.client, "pages_link_bot", "Pages");
    const cid = (await owner.client.post("/api/social/groups", { title: "Bot's club", members: [] })).body.data
      .conversationId;
    const code = (await owner.client.post(`/api/social/groups/${cid}/invite`)).body.data.code;
    const me = await suite.person();
    const { page } = me;
    await me.client.post("/api/social/users/pages_link_bot/message", {});
    const base = suite.server.url;
    const sent = await botCall(base, token, "sendMessage", {
      chat_id: botApiUserId(me.user.id),
      text: "Pick one, or approve here",
      entities: [{ type: "text_link", offset: 13, length: 12, url: `${base}/auth/link?t=attackers-session` }],
      reply_markup: {
        inline_keyboard: [
          [{ text: "Join the club", url: `${base}/dashboard/messages?join=${code}` }],
          [{ text: "Approve", url: `${base}/auth/link?t=attackers-session` }],
          [{ text: "Approve again", url: `${base}/AUTH//Link/?t=attackers-session` }],
        ],
      },
    });
    expect(sent.status).toBe(200);
    await page.goto("/dashboard/messages?user=pages_link_bot");
    const message = page
      .getByRole("region", { name: "Message history" })
      .getByRole("listitem")
      .filter({ hasText: "Pick one" });
    await message.waitFor();

    // a page of this site: the same confirmation as any link, and nothing joined before it
    await message.getByRole("button", { name: "Join the club" }).click();
    const confirm = page.getByRole("dialog", { name: "Open this link?" });
    await confirm.getByText("This link opens a page of this site:").waitFor();
    await confirm.getByText(`${base}/dashboard/messages?join=${code}`).waitFor();
    await expectAccessible(page);
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "hidden" });
    expect(page.url()).not.toContain("join=");

    // the QR sign-in approval, in any spelling of its path: refused with the reason
    for (const name of ["Approve", "Approve again"]) {
      await message.getByRole("button", { name, exact: true }).click();
      const refused = page.getByRole("dialog", { name: "This link is not opened" });
      await refused.getByText("a link from a bot never opens it").waitFor();
      expect(await page.getByRole("dialog", { name: "Open this link?" }).count()).toBe(0);
      await refused.getByRole("button", { name: "OK" }).click();
      await refused.waitFor({ state: "hidden" });
      expect(page.url()).not.toContain("/auth/");
    }
    // nor does a link in the text of a message
    await message.getByText("approve here", { exact: true }).waitFor();
    expect(await message.getByRole("link", { name: "approve here" }).count()).toBe(0);
    await expectAccessible(page);

    // confirmed, the page of this site opens: the group is shown, still not joined
    await message.getByRole("button", { name: "Join the club" }).click();
    await confirm.getByRole("button", { name: "Open link" }).click();
    await page.getByRole("button", { name: "JOIN" }).waitFor();
    expect((await me.client.get(`/api/social/messages/${cid}`)).status).toBe(404);
    expect(pageProblems(page)).toEqual([]);
  });
});
