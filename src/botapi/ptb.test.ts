import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { TestServer } from "../testing/server";
import type { TestClient } from "../testing/client";
import type { UserRow } from "../domain/users/table";
import { botApiUserId } from "../domain/bots/ids";
import { grantStars } from "../domain/stars/service";
import { storeUpload } from "../media/uploads";
import { pngOf } from "../testing/media";
import { botWorld, createBotViaApi, openChat, runBotProcess, waitForMessage } from "../testing/botapi";

/** Debian's python-telegram-bot 13.15 lives in the system python, not the pyenv one first on PATH. */
const PYTHON = "/usr/bin/python3";

let server: TestServer;
let owner: TestClient;
let person: TestClient;
let personUser: UserRow;

beforeAll(async () => void ({ server, owner, person, personUser } = await botWorld()));
afterAll(() => server.stop());

/** Runs fixtures/ptb-bot.py for TOKEN until the test is done; resolves once it polls. */
const runPtbBot = (token: string) =>
  runBotProcess([
    PYTHON,
    join(import.meta.dir, "fixtures", "ptb-bot.py"),
    `${server.url}/bot`,
    `${server.url}/file/bot`,
    token,
  ]);

describe("python-telegram-bot 13.15 with base_url = <root>/bot", () => {
  test("commands, inline keyboard with answers and edits, photo as bytes, a paid XTR invoice, downloading a photo, webhook info", async () => {
    const token = await createBotViaApi(owner, "ptb_demo_bot", "PTB Demo");
    const bot = await runPtbBot(token);
    try {
      const cid = await openChat(person, "ptb_demo_bot", "from_ad");
      const welcome = await waitForMessage(person, cid, (m) => m.content === "ptb start from_ad", 15_000);
      expect(welcome.replyMarkup.inline_keyboard[0].map((b: any) => b.callback_data)).toEqual(["yes", "no"]);

      await person.post(`/api/social/messages/${cid}`, { content: "/help" });
      await waitForMessage(person, cid, (m) => m.content === "ptb help: /start, photo, pay, webhook");

      const press = await person.post(`/api/social/messages/${cid}/${welcome.id}/callback`, { data: "yes" });
      expect(press.status).toBe(200);
      expect(press.body.data.answer).toMatchObject({ text: "ptb got yes", showAlert: false });
      await waitForMessage(person, cid, (m) => m.id === welcome.id && m.content === "chosen: yes");

      await person.post(`/api/social/messages/${cid}`, { content: "hello" });
      const id = botApiUserId(personUser.id);
      await waitForMessage(person, cid, (m) => m.content === `ptb ptb_demo_bot: hello (from ${id} in ${id})`);

      await person.post(`/api/social/messages/${cid}`, { content: "photo" });
      const photo = await waitForMessage(person, cid, (m) => m.media?.[0]?.type === "image");
      expect(photo.content).toBe("ptb dot");

      await grantStars(server.app, personUser.id, 20, "test");
      await person.post(`/api/social/messages/${cid}`, { content: "pay" });
      const invoice = await waitForMessage(person, cid, (m) => m.invoice);
      expect(invoice.invoice).toMatchObject({ title: "Tea", currency: "XTR", totalAmount: 5 });
      const paid = await person.post(`/api/social/messages/${cid}/${invoice.id}/pay`);
      expect(paid.status).toBe(200);
      expect(paid.body.data.status).toBe("paid");
      await waitForMessage(person, cid, (m) => m.content === "paid 5 XTR for tea-1");

      // what the person sends, downloaded by get_file().download_as_bytearray()
      const upload = await storeUpload(server.app, {
        ownerId: personUser.id,
        kind: "chat-image",
        data: await pngOf(server.app, 20, 10),
      });
      await person.post(`/api/social/messages/${cid}`, { content: "", media: [{ type: "image", url: upload.url }] });
      await waitForMessage(person, cid, (m) => m.content === `ptb downloaded ${upload.size_bytes} bytes, starting PNG`);

      await person.post(`/api/social/messages/${cid}`, { content: "webhook" });
      await waitForMessage(person, cid, (m) => m.content === "webhook url=[] pending=0");
    } finally {
      const stderr = await bot.stop();
      expect(stderr).not.toContain("Traceback");
    }
  }, 60_000);
});
