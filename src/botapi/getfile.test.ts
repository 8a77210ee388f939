import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Bot } from "grammy";
import type { TestServer } from "../testing/server";
import type { TestClient } from "../testing/client";
import type { UserRow } from "../domain/users/table";
import { storeUpload } from "../media/uploads";
import { botApiUserId } from "../domain/bots/ids";
import { botCall, botWorld, createBotViaApi, openChat, waitFor, waitForLongPoll } from "../testing/botapi";
import { pngOf } from "../testing/media";

let server: TestServer;
let owner: TestClient;
let person: TestClient;
let personUser: UserRow;

beforeAll(async () => void ({ server, owner, person, personUser } = await botWorld()));
afterAll(() => server.stop());

/** The person sends an image to the chat; returns the image's bytes. */
async function sendImage(cid: string, caption: string): Promise<Uint8Array> {
  const data = await pngOf(server.app, 40, 30);
  const upload = await storeUpload(server.app, { ownerId: personUser.id, kind: "chat-image", data });
  const sent = await person.post(`/api/social/messages/${cid}`, {
    content: caption,
    media: [{ type: "image", url: upload.url }],
  });
  expect(sent.status).toBe(200);
  return new Uint8Array(await (await fetch(server.url + new URL(upload.url).pathname)).arrayBuffer());
}

describe("getFile and /file/bot<TOKEN>/<file_path> (compatibility extension)", () => {
  test("a grammY bot downloads what a person sent with ctx.getFile(); others cannot", async () => {
    const token = await createBotViaApi(owner, "getfile_bot", "Files");
    const otherToken = await createBotViaApi(owner, "getfile_other_bot", "Other");
    const bot = new Bot(token, { client: { apiRoot: server.url } });
    const downloads: { path: string; bytes: Uint8Array; size?: number }[] = [];
    bot.on("message:photo", async (ctx) => {
      const file = await ctx.getFile();
      // what grammY's files plugin and its docs do: <apiRoot>/file/bot<token>/<file_path>
      const res = await fetch(`${server.url}/file/bot${token}/${file.file_path}`);
      downloads.push({ path: file.file_path!, bytes: new Uint8Array(await res.arrayBuffer()), size: file.file_size });
      await ctx.reply(`got ${file.file_size} bytes`);
    });
    const running = bot.start({ timeout: 1 });
    try {
      // bot.isRunning() holds before start() has dropped the pending updates: one made meanwhile could go
      await waitForLongPoll(server.app, token);
      const cid = await openChat(person, "getfile_bot");
      const original = await sendImage(cid, "look");
      const got = await waitFor(() => downloads[0], 10_000, "the bot's download");
      expect(got.bytes).toEqual(original);
      expect(got.size).toBe(original.length);

      // the largest PhotoSize is the original; thumbnails download too
      const stored = await server.app.db
        .selectFrom("messages")
        .select("media")
        .where("content", "=", "look")
        .executeTakeFirstOrThrow();
      const fileId = JSON.parse(stored.media!)[0].url as string;
      expect((await botCall(server.url, token, "getFile", { file_id: fileId })).body.result).toMatchObject({
        file_id: fileId,
        file_path: got.path,
        file_size: original.length,
      });

      // a bot that never saw the file gets neither its path nor its bytes
      expect((await botCall(server.url, otherToken, "getFile", { file_id: fileId })).body).toEqual({
        ok: false,
        error_code: 400,
        description: "Bad Request: invalid file_id",
      });
      const foreign = await fetch(`${server.url}/file/bot${otherToken}/${got.path}`);
      expect(foreign.status).toBe(404);
      expect(await foreign.json()).toEqual({ ok: false, error_code: 404, description: "Not Found" });
      expect((await fetch(`${server.url}/file/bot${token.split(":")[0]}:${"x".repeat(30)}/${got.path}`)).status).toBe(
        401,
      );
      expect((await fetch(`${server.url}/file/bot${token}/../../config.json`)).status).toBe(404);
      expect((await fetch(`${server.url}/file/bot${token}/nonexistent000000000000000.png`)).status).toBe(404);
      expect((await botCall(server.url, token, "getFile", { file_id: "https://elsewhere.example/x.png" })).status).toBe(
        400,
      );
      expect((await botCall(server.url, token, "getFile", {})).body.description).toBe("Bad Request: file_id is empty");
    } finally {
      await bot.stop();
      await running;
    }
  }, 30_000);

  test("a file the bot sent itself can be fetched back", async () => {
    const token = await createBotViaApi(owner, "getfile_own_bot", "Own");
    await openChat(person, "getfile_own_bot");
    const form = new FormData();
    form.set("chat_id", String(botApiUserId(personUser.id)));
    form.set("document", new File([new TextEncoder().encode("bot notes")], "notes.txt", { type: "text/plain" }));
    const sent = (await (
      await fetch(`${server.url}/bot${token}/sendDocument`, { method: "POST", body: form })
    ).json()) as any;
    const file = (await botCall(server.url, token, "getFile", { file_id: sent.result.document.file_id })).body.result;
    expect(file.file_size).toBe(9);
    expect(await (await fetch(`${server.url}/file/bot${token}/${file.file_path}`)).text()).toBe("bot notes");
  });
});
