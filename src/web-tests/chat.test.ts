import { describe, expect } from "bun:test";
import type { Page } from "playwright-core";
import { requireMembershipByCuid, sendMessage } from "../domain/chats";
import { pageProblems, expectAccessible } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";

// Two people chatting live in two browser pages against a real server (sending as fast as a
// test seeds a long history).
const suite = browserSuite({ "limits.messagesPerMinute": 1_000_000 });
const { it } = suite;

function person(
  name: string,
  opts: { viewport?: { width: number; height: number }; colorScheme?: "light" | "dark" } = {},
) {
  return suite.person({ ...opts, username: `${name}_${Math.random().toString(36).slice(2, 6)}`, displayName: name });
}

/** The header's Messages link with N unread chats ("Messages, 1 unread chat"), or with none. */
const messagesLink = (page: Page, unreadChats: number) =>
  page.getByRole("navigation", { name: "Main" }).getByRole("link", {
    name: unreadChats ? new RegExp(`^Messages\\W+${unreadChats} unread chats?$`) : "Messages",
    exact: !unreadChats,
  });

const messageItem = (page: Page, text: string | RegExp) =>
  page.getByRole("listitem").filter({ has: page.locator(".msg-text", { hasText: text }) });

describe("web app: chats", () => {
  it("two people chat live: list order and unread count, typing, reply, edit, reactions, read marker, delete", async () => {
    const ann = await person("Ann");
    const bob = await person("Bob");
    await bob.page.goto("/dashboard/messages");
    await bob.page.getByRole("heading", { level: 1, name: "Messages" }).waitFor();
    await bob.page.getByText("No chats yet").waitFor();

    // Ann opens the chat by Bob's username; the address becomes the chat's own
    await ann.page.goto(`/dashboard/messages?user=${bob.user.username}`);
    await ann.page.getByRole("heading", { level: 2, name: "Bob" }).waitFor();
    expect(ann.page.url()).toMatch(/\/dashboard\/messages\/[a-z0-9]+$/);
    await ann.page.getByLabel("Message", { exact: true }).fill("Hello Bob, *this* is Ann");
    await ann.page.getByRole("button", { name: "Send" }).click();
    await messageItem(ann.page, "Hello Bob").waitFor();

    // Bob's list shows the new chat with one unread message, live
    const row = bob.page.getByRole("link", { name: /Ann/ });
    await row.waitFor();
    await row.getByLabel("1 unread").waitFor();
    // and the header counts the chat, live
    await messagesLink(bob.page, 1).waitFor();
    await row.click();
    await messageItem(bob.page, "Hello Bob").waitFor();
    await bob.page.getByRole("link", { name: /Ann/ }).getByLabel("1 unread").waitFor({ state: "detached" });
    await messagesLink(bob.page, 0).waitFor();
    // Ann sees that Bob read it
    await messageItem(ann.page, "Hello Bob").getByText("Read").waitFor();
    // and still after a reload (the chat carries how far the other side read)
    await ann.page.reload();
    await messageItem(ann.page, "Hello Bob").getByText("Read").waitFor();

    // typing shows on the other side
    await bob.page.getByLabel("Message", { exact: true }).pressSequentially("Hi", { delay: 20 });
    await ann.page.getByText(`${bob.user.username} is typing…`).waitFor();

    // Bob replies to Ann's message
    await messageItem(bob.page, "Hello Bob").getByRole("button", { name: "Message actions" }).click();
    await bob.page.getByRole("button", { name: "Reply", exact: true }).click();
    await bob.page.getByText(`Replying to @${ann.user.username}`).waitFor();
    await bob.page.getByLabel("Message", { exact: true }).fill("Hi Ann! #welcome /help");
    await bob.page.getByLabel("Message", { exact: true }).press("Enter");
    const reply = messageItem(ann.page, "Hi Ann!");
    await reply.waitFor();
    await reply.getByText(`@${ann.user.username}`, { exact: true }).waitFor();
    await reply.getByRole("link", { name: "#welcome" }).waitFor();

    // Ann reacts; Bob sees the reaction
    await reply.getByRole("button", { name: "Message actions" }).click();
    await ann.page.getByRole("button", { name: "React 👍" }).click();
    await messageItem(bob.page, "Hi Ann!").getByRole("button", { name: "👍 1" }).waitFor();

    // Ann edits her message; Bob sees the new text, marked edited
    await messageItem(ann.page, "Hello Bob").getByRole("button", { name: "Message actions" }).click();
    await ann.page.getByRole("button", { name: "Edit", exact: true }).click();
    await ann.page.getByLabel("Message", { exact: true }).fill("Hello Bob (edited by Ann)");
    await ann.page.getByRole("button", { name: "Save" }).click();
    await messageItem(bob.page, "Hello Bob (edited by Ann)").locator(".msg-meta").getByText("edited").waitFor();

    // pinning shows the pinned bar to both
    await messageItem(ann.page, "Hi Ann!").getByRole("button", { name: "Message actions" }).click();
    await ann.page.getByRole("button", { name: "Pin", exact: true }).click();
    await bob.page.getByRole("button", { name: /Pinned message Hi Ann!/ }).waitFor();

    // Bob deletes his reply for everyone; it disappears from Ann's page
    await messageItem(bob.page, "Hi Ann!").getByRole("button", { name: "Message actions" }).click();
    await bob.page.getByRole("button", { name: "Delete for everyone" }).click();
    await messageItem(ann.page, "Hi Ann!").waitFor({ state: "detached" });

    // the newest chat moves to the top of Ann's list when a second person writes
    const cat = await person("Cat");
    await ann.page.goto("/dashboard/messages");
    const opened = await cat.client.post(`/api/social/users/${ann.user.username}/message`, {});
    await cat.client.post(`/api/social/messages/${opened.body.data.conversationId}`, { content: "Cat here" });
    await ann.page.locator(".chat-row").first().filter({ hasText: "Cat here" }).waitFor();
    await messagesLink(ann.page, 1).waitFor();

    await expectAccessible(ann.page);
    await expectAccessible(bob.page);
    expect(pageProblems(ann.page)).toEqual([]);
    expect(pageProblems(bob.page)).toEqual([]);
    await ann.context.close();
    await bob.context.close();
    await cat.context.close();
  });

  it("history: older pages on scrolling up, day separators, a failed send retried once", async () => {
    const dan = await person("Dan");
    const eve = await person("Eve", { viewport: { width: 390, height: 844 }, colorScheme: "dark" });
    const cid = (await dan.client.post(`/api/social/users/${eve.user.username}/message`, {})).body.data.conversationId;
    for (let i = 1; i <= 90; i++) {
      if (i === 46) suite.server.clock.advance(2 * 86_400_000);
      expect((await dan.client.post(`/api/social/messages/${cid}`, { content: `number ${i}` })).status).toBe(200);
    }
    await eve.page.goto(`/dashboard/messages/${cid}`);
    await messageItem(eve.page, "number 90").waitFor();
    // on a phone the open chat replaces the list; Back returns to it
    expect(await eve.page.getByRole("heading", { level: 2, name: "Chats" }).isVisible()).toBe(false);
    expect(await messageItem(eve.page, /^number 1$/).count()).toBe(0);
    const history = eve.page.getByRole("region", { name: "Message history" });
    for (let i = 0; i < 20 && !(await messageItem(eve.page, /^number 1$/).count()); i++) {
      await history.evaluate((el) => (el.scrollTop = 0));
      await eve.page.waitForTimeout(150);
    }
    await messageItem(eve.page, /^number 1$/).waitFor();
    await eve.page.getByText("This is the beginning of the chat.").waitFor();
    expect(await eve.page.locator(".day-separator").count()).toBe(2);

    // the first attempt fails on the way; Retry sends it with the same clientMessageId
    let failed = 0;
    await eve.page.route(`**/api/social/messages/${cid}`, (route) =>
      route.request().method() === "POST" && failed++ === 0 ? route.abort() : route.continue(),
    );
    await eve.page.getByLabel("Message", { exact: true }).fill("flaky network");
    await eve.page.getByRole("button", { name: "Send" }).click();
    await eve.page.getByText("Not sent").waitFor();
    await eve.page.getByRole("button", { name: "Retry" }).click();
    await messageItem(eve.page, "flaky network").locator(".msg-meta").getByText("Sent").waitFor();
    const shown = (await dan.client.get(`/api/social/messages/${cid}?limit=5`)).body.data.messages.filter(
      (m: { content: string }) => m.content === "flaky network",
    );
    expect(shown.length).toBe(1);

    await eve.page.getByRole("button", { name: "Back to chats" }).click();
    await eve.page.getByRole("heading", { level: 2, name: "Chats" }).waitFor();
    await expectAccessible(eve.page);
    await dan.context.close();
    await eve.context.close();
  });
  it("a long history: rows stay put as older pages arrive above, the page keeps a window, Show the newest messages", async () => {
    const fay = await person("Fay");
    const gus = await person("Gus");
    const cid = (await fay.client.post(`/api/social/users/${gus.user.username}/message`, {})).body.data.conversationId;
    for (let i = 1; i <= 340; i++)
      expect((await fay.client.post(`/api/social/messages/${cid}`, { content: `line ${i}` })).status).toBe(200);
    const page = gus.page;
    await page.goto(`/dashboard/messages/${cid}`);
    await messageItem(page, "line 340").waitFor();
    const history = page.getByRole("region", { name: "Message history" });
    // the newest row's element is remembered: an older page must not make it anew
    await messageItem(page, "line 340").evaluate((el) => ((window as unknown as { probe: Element }).probe = el));

    // to the top, and what is on top then, in one step (the older page may arrive right after)
    const scrollToTop = () =>
      history.evaluate((h) => {
        h.scrollTop = 0;
        const first = h.querySelector<HTMLElement>(".messages > li.msg")!;
        return { id: first.dataset.messageId!, y: first.getBoundingClientRect().top };
      });
    const onTopOf = (id: string) =>
      history.evaluate((h, mid) => h.querySelector(`[data-message-id="${mid}"]`)!.getBoundingClientRect().top, id);
    for (let pageNo = 0; pageNo < 3; pageNo++) {
      const before = await scrollToTop();
      await page.waitForFunction(
        (id) => document.querySelector<HTMLElement>(".messages > li.msg")?.dataset.messageId !== id,
        before.id,
      );
      // the message that was on top is still where it was on the screen
      expect(Math.abs((await onTopOf(before.id)) - before.y)).toBeLessThan(2);
      expect(
        await messageItem(page, "line 340").evaluate(
          (el) => el === (window as unknown as { probe: Element }).probe && el.isConnected,
        ),
      ).toBe(true);
    }

    // far back, the newest messages are let go; the button brings them back
    for (let i = 0; i < 20 && !(await messageItem(page, /^line 1$/).count()); i++) {
      const { id } = await scrollToTop();
      await page.waitForFunction(
        (was) => document.querySelector<HTMLElement>(".messages > li.msg")?.dataset.messageId !== was,
        id,
      );
    }
    await page.getByText("This is the beginning of the chat.").waitFor();
    expect(await messageItem(page, "line 340").count()).toBe(0);
    expect(await page.locator(".messages > li.msg").count()).toBeLessThanOrEqual(200);
    await page.getByRole("button", { name: "Show the newest messages" }).click();
    await messageItem(page, "line 340").waitFor();
    expect(await messageItem(page, /^line 1$/).count()).toBe(0);
    await expectAccessible(page);
    expect(pageProblems(page)).toEqual([]);
    await fay.context.close();
    await gus.context.close();
  }, 120_000);
  it("far back and all the way down again: every message shown once and in order, the row read stays put, live ones wait below", async () => {
    const hal = await person("Hal");
    const ivy = await person("Ivy");
    const cid = (await hal.client.post(`/api/social/users/${ivy.user.username}/message`, {})).body.data.conversationId;
    // seeded in-process (the send path without HTTP): the browser is what is tested here
    const { app } = suite.server;
    const conversationId = (await requireMembershipByCuid(app.db, cid, hal.user.id)).conversation.id;
    // four windows' worth (a window keeps at most 200 rows): pages leave it at both ends many times over
    const N = 800;
    for (let i = 1; i <= N; i += 8)
      await Promise.all(
        Array.from({ length: Math.min(8, N + 1 - i) }, (_, k) =>
          sendMessage(app, {
            conversationId,
            senderId: (i + k) % 3 ? hal.user.id : ivy.user.id,
            content: `line ${i + k}`,
            clientMessageId: `seed-${i + k}`,
          }),
        ),
      );
    const page = ivy.page;
    await page.goto(`/dashboard/messages/${cid}`);
    await messageItem(page, `line ${N}`).waitFor();
    const history = page.getByRole("region", { name: "Message history" });

    // what the page shows, in order, and the first row in view with its place on the screen;
    // TO moves the scroll first, in the same step (the next page may arrive right after)
    const look = (to: "top" | "bottom" | "none") =>
      history.evaluate((h, where) => {
        if (where === "top") h.scrollTop = 0;
        if (where === "bottom") h.scrollTop = h.scrollHeight;
        const rows = [...h.querySelectorAll<HTMLElement>(".messages > li.msg")];
        const top = h.getBoundingClientRect().top;
        const inView = rows.find((r) => r.getBoundingClientRect().bottom > top)!;
        return {
          ids: rows.map((r) => Number(r.dataset.messageId)),
          inView: inView.dataset.messageId!,
          y: inView.getBoundingClientRect().top,
        };
      }, to);
    const yOf = (id: string) =>
      history.evaluate((h, mid) => h.querySelector(`[data-message-id="${mid}"]`)!.getBoundingClientRect().top, id);
    const consecutive = (ids: number[]) => ids.every((id, i) => i === 0 || id === ids[i - 1]! + 1);

    // up to the beginning, a page at a time
    let seen = await look("none");
    for (let i = 0; i < 100 && seen.ids[0] !== 1; i++) {
      const was = await look("top");
      await page.waitForFunction(
        (id) => document.querySelector<HTMLElement>(".messages > li.msg")?.dataset.messageId !== String(id),
        was.ids[0],
      );
      expect(Math.abs((await yOf(was.inView)) - was.y)).toBeLessThan(2);
      seen = await look("none");
      expect(consecutive(seen.ids)).toBe(true);
      expect(seen.ids.length).toBeLessThanOrEqual(200);
    }
    expect(seen.ids[0]).toBe(1);
    await page.getByText("This is the beginning of the chat.").waitFor();
    const newest = page.getByRole("button", { name: "Show the newest messages" });
    await newest.waitFor();

    // a message arriving now does not move what is read (it waits below, beyond what is shown)
    const still = await look("none");
    expect((await hal.client.post(`/api/social/messages/${cid}`, { content: "live while away" })).status).toBe(200);
    await page.waitForTimeout(300);
    expect(Math.abs((await yOf(still.inView)) - still.y)).toBeLessThan(2);
    expect(await messageItem(page, "live while away").count()).toBe(0);

    // and all the way down again: each window continues the last one without a gap, so every
    // message was shown, once, in order; the row in view stays put as pages come and go
    let reached = seen.ids[seen.ids.length - 1]!;
    for (let i = 0; i < 100 && (await newest.count()); i++) {
      const was = await look("bottom");
      await page.waitForFunction(
        (last) => {
          const rows = document.querySelectorAll<HTMLElement>(".messages > li.msg");
          return rows[rows.length - 1]?.dataset.messageId !== String(last);
        },
        was.ids[was.ids.length - 1],
      );
      expect(Math.abs((await yOf(was.inView)) - was.y)).toBeLessThan(2);
      seen = await look("none");
      expect(consecutive(seen.ids)).toBe(true);
      expect(seen.ids.length).toBeLessThanOrEqual(200);
      expect(seen.ids[0]).toBeLessThanOrEqual(reached + 1);
      reached = seen.ids[seen.ids.length - 1]!;
    }
    expect(reached).toBe(N + 1);
    await messageItem(page, "live while away").waitFor();
    expect(await newest.count()).toBe(0);

    // back with the newest, a live message shows at the bottom of the view
    await look("bottom");
    expect((await hal.client.post(`/api/social/messages/${cid}`, { content: "live at the bottom" })).status).toBe(200);
    await messageItem(page, "live at the bottom").waitFor();
    await page.waitForFunction(() => {
      const h = document.querySelector(".history")!;
      return h.scrollHeight - h.scrollTop - h.clientHeight < 2;
    });
    await expectAccessible(page);
    expect(pageProblems(page)).toEqual([]);
    await hal.context.close();
    await ivy.context.close();
  }, 240_000);
});
