import { afterAll, beforeAll, describe, expect } from "bun:test";
import { botCall, createBotViaApi, openChat } from "../testing/botapi";
import { pageProblems, expectAccessible } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";
import { serveHttps } from "../testing/tls";

// Mini-apps whose pages allow or refuse being framed, served over HTTPS on this machine (bot
// development: private targets allowed, so the instance can ask the page as it opens).
const suite = browserSuite({ "bot.allowPrivateWebhooks": true });

const PAGE = `<!doctype html><title>Mini-app</title><h1>Mini-app</h1><script>document.body.append("has launch data: "+new URLSearchParams(location.hash.slice(1)).has("tgWebAppData"))</script>`;

/** The mini-app's answer per path: /refuses sends X-Frame-Options DENY, /frames lets the instance frame it. */
function miniAppAnswer(path: string): { status: number; headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = { "content-type": "text/html" };
  if (path === "/refuses") headers["x-frame-options"] = "DENY";
  else if (path === "/frames") headers["content-security-policy"] = `frame-ancestors 'self' ${suite.server.url}`;
  else return { status: 404, headers, body: "" };
  return { status: 200, headers, body: PAGE };
}

let miniApp: ReturnType<typeof serveHttps>;
beforeAll(() => {
  miniApp = serveHttps((req) => {
    const a = miniAppAnswer(new URL(req.url).pathname);
    return new Response(a.body, { status: a.status, headers: a.headers });
  });
});
afterAll(() => miniApp?.stop(true));

describe("web app: mini-apps", () => {
  suite.it("a page that allows framing opens in the panel; one that refuses opens in a new tab", async () => {
    const { page, client, context } = await suite.person({ displayName: "Mia" });
    // the browser gets the same answers without the self-signed certificate in its way
    const origin = `https://127.0.0.1:${miniApp.port}`;
    await context.route(`${origin}/**`, (route) =>
      route.fulfill(miniAppAnswer(new URL(route.request().url()).pathname)),
    );
    const owner = (await suite.person({ displayName: "Owner" })).client;
    const token = await createBotViaApi(owner, "frames_demo_bot", "Frames");
    await openChat(client, "frames_demo_bot", "hi");
    const update = (await botCall(suite.server.url, token, "getUpdates")).body.result[0];
    const sent = await botCall(suite.server.url, token, "sendMessage", {
      chat_id: update.message.chat.id,
      text: "Two apps",
      reply_markup: {
        inline_keyboard: [
          [{ text: "Framed app", web_app: { url: `${origin}/frames` } }],
          [{ text: "Own tab app", web_app: { url: `${origin}/refuses` } }],
        ],
      },
    });
    expect(sent.status).toBe(200);

    await page.goto("/dashboard/messages?user=frames_demo_bot");
    await page.getByRole("button", { name: "Framed app" }).click();
    const panel = page.getByRole("complementary", { name: "Mini-app: Frames" });
    await panel.frameLocator('iframe[title="Mini-app: Frames"]').getByText("has launch data: true").waitFor();
    // the instance asked the page and was allowed: no hint about blank frames
    expect(await panel.getByText("If the mini-app stays blank").count()).toBe(0);
    await panel.getByRole("button", { name: "Close mini-app" }).click();

    const opened = context.waitForEvent("page");
    await page.getByRole("button", { name: "Own tab app" }).click();
    const tab = await opened;
    await tab.getByText("has launch data: true").waitFor();
    expect(tab.url()).toStartWith(`${origin}/refuses#tgWebAppData=`);
    // the panel says why, frames nothing, and offers the tab again
    await panel.getByRole("status").filter({ hasText: "does not allow being shown inside another site" }).waitFor();
    expect(await panel.locator("iframe").count()).toBe(0);
    expect(await panel.getByRole("link", { name: "Open in a new tab" }).getAttribute("href")).toBe(tab.url());
    await expectAccessible(page);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });
});
