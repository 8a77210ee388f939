import { afterAll, beforeAll, describe, expect } from "bun:test";
import { cookiesOf, newPerson, expectAccessible, pushDelivery } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";
import { TestClient } from "../testing/client";
import { quickPerson, signedInClient } from "../testing/fixtures";
import { startTestPushService, type TestPushService } from "../testing/push-service";
import { waitFor } from "../testing/wait";

// Settings → Notifications, and the chat on screen keeping its pushes away.
const suite = browserSuite({ "push.allowPrivateEndpoints": true });
const it = suite.it;

let service: TestPushService;
beforeAll(() => void (service = startTestPushService()));
afterAll(() => service.stop());

/** Subscribes CLIENT's session (a browser's, when the page shares its cookies) at the loopback push service. */
async function subscribe(client: TestClient) {
  const browser = service.subscribe();
  const res = await client.post("/api/push/subscriptions", { endpoint: browser.endpoint, keys: browser.keys });
  expect(res.status).toBe(200);
  return browser;
}

describe("web app: notifications", () => {
  it("switches kinds, lists the devices that get pushes and removes one", async () => {
    const { user, client } = await signedInClient(suite.server);
    const me = await newPerson(suite.browser, suite.server.url);
    suite.watch(me.page);
    await me.context.addCookies(cookiesOf(client, suite.server.url));
    await subscribe(client);
    const firefox = new TestClient(suite.server.url);
    firefox.userAgent = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0";
    expect((await firefox.login(user.email!, user.password)).status).toBe(200);
    await subscribe(firefox);

    const { page } = me;
    await page.goto("/settings");
    const section = page.getByRole("region", { name: "Notifications" });
    const devices = section.getByRole("list", { name: "Devices that get notifications" });
    await devices.getByText("Firefox on Linux").waitFor();
    await devices.getByText("This device").waitFor();
    expect(await devices.getByRole("listitem").count()).toBe(2);
    // this device gets them already: no button to enable them
    expect(await section.getByRole("button", { name: "Enable notifications on this device" }).count()).toBe(0);
    await expectAccessible(page);

    const follows = section.getByRole("switch", { name: "New followers" });
    expect(await follows.isChecked()).toBe(true);
    await follows.uncheck();
    await section.getByText("Saved.").waitFor();
    expect((await client.get("/api/account/notification-settings")).body.data.push).toMatchObject({
      follows: false,
      messages: true,
    });

    // the e-mail digest is off until switched on
    const digest = section.getByRole("switch", { name: "E-mail digest when away" });
    expect(await digest.isChecked()).toBe(false);
    await digest.check();
    await section.getByText("You will get an e-mail of what you missed after a while away.").waitFor();
    expect((await client.get("/api/account/notification-settings")).body.data.email).toEqual({ digest: true });

    await section.getByRole("button", { name: "Remove Firefox on Linux" }).click();
    await section.getByText("Firefox on Linux will get no more notifications.").waitFor();
    expect(await devices.getByRole("listitem").count()).toBe(1);
    await section.getByRole("button", { name: /^Remove .* \(this device\)$/ }).click();
    await section.getByText("No device gets notifications yet.").waitFor();
    await section.getByRole("button", { name: "Enable notifications on this device" }).waitFor();
    await expectAccessible(page);
  });

  it("no push about the chat on screen; pushes again once the person leaves it", async () => {
    const me = await suite.person({ displayName: "Reader" });
    const friend = await quickPerson(suite.server, { displayName: "Writer" });
    const browser = await subscribe(me.client);
    const opened = await friend.client.post(`/api/social/users/${me.user.username}/message`);
    const cid = opened.body.data.conversationId as string;
    const send = async (content: string) =>
      expect((await friend.client.post(`/api/social/messages/${cid}`, { content })).status).toBe(200);

    await me.page.goto(`/dashboard/messages/${cid}`);
    await waitFor(
      () =>
        suite.server.app.db
          .selectFrom("chat_viewing")
          .select("user_id")
          .where("user_id", "=", me.user.id)
          .executeTakeFirst(),
      10_000,
      "the app to say the chat is on screen",
    );
    await send("seen as it arrives");
    await me.page.getByText("seen as it arrives").first().waitFor();

    await me.page.goto("/settings");
    await waitFor(
      async () =>
        !(await suite.server.app.db
          .selectFrom("chat_viewing")
          .select("user_id")
          .where("user_id", "=", me.user.id)
          .executeTakeFirst()),
      10_000,
      "the app to say the chat was left",
    );
    await send("after leaving");
    const pushes = await service.waitFor(browser.endpoint);
    expect(pushes.map((p) => JSON.parse(browser.decrypt(p.body)).body)).toEqual(["after leaving"]);
  });
});

describe("web app: a push in the service worker", () => {
  it("a delivered push shows a notification; clicking it opens the chat", async () => {
    const me = await suite.person({ displayName: "Pushed", serviceWorkers: "allow" });
    const friend = await quickPerson(suite.server, { displayName: "Sender" });
    const browser = await subscribe(me.client);
    const opened = await friend.client.post(`/api/social/users/${me.user.username}/message`);
    const cid = opened.body.data.conversationId as string;
    expect((await friend.client.post(`/api/social/messages/${cid}`, { content: "Ring ring" })).status).toBe(200);
    // the payload as the push service carried it, decrypted as the browser would
    const [received] = await service.waitFor(browser.endpoint);
    const payload = browser.decrypt(received!.body);

    const { page, context } = me;
    await context.grantPermissions(["notifications"], { origin: suite.server.url });
    await page.goto("/settings");
    const shown = (await (await pushDelivery(me, suite.server.url)).deliver(payload)).map(({ title, body, url }) => ({
      title,
      body,
      url,
    }));
    expect(shown).toEqual([{ title: "Sender", body: "Ring ring", url: `/dashboard/messages/${cid}` }]);

    // a click as the system delivers it: the worker's notificationclick with the shown notification
    const [worker] = context.serviceWorkers();
    await worker!.evaluate(async () => {
      const scope = self as unknown as {
        registration: { getNotifications(): Promise<unknown[]> };
        dispatchEvent(e: Event): boolean;
      };
      const [notification] = await scope.registration.getNotifications();
      const NotificationEventClass = (
        globalThis as unknown as { NotificationEvent: new (t: string, i: unknown) => Event }
      ).NotificationEvent;
      scope.dispatchEvent(new NotificationEventClass("notificationclick", { notification }));
    });
    await page.waitForURL(`**/dashboard/messages/${cid}`);
    await page.getByText("Ring ring").first().waitFor();
  });
});
