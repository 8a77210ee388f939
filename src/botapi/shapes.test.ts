import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestServer } from "../testing/server";
import type { TestClient } from "../testing/client";
import type { UserRow } from "../domain/users/table";
import { botApiUserId } from "../domain/bots/ids";
import { botCall, botWorld, createBotViaApi, openChat, PNG_1x1 } from "../testing/botapi";

/** Every parameter shape the compatible API documents for the spec's methods is accepted. */

let server: TestServer;
let owner: TestClient;
let person: TestClient;
let personUser: UserRow;
let token: string;
let chatId: number;
const call = (method: string, params: Record<string, unknown> = {}) => botCall(server.url, token, method, params);

beforeAll(async () => {
  ({ server, owner, person, personUser } = await botWorld());
  token = await createBotViaApi(owner, "shapes_bot", "Shapes");
  await openChat(person, "shapes_bot");
  chatId = botApiUserId(personUser.id);
});
afterAll(() => server.stop());

describe("parameter shapes", () => {
  test("replies (reply_parameters, legacy reply_to_message_id + allow_sending_without_reply), link previews, threads, protect_content", async () => {
    const first = (await call("sendMessage", { chat_id: chatId, text: "first" })).body.result.message_id;
    for (const params of [
      { reply_parameters: { message_id: first } },
      { reply_to_message_id: first },
      { reply_to_message_id: 999999, allow_sending_without_reply: true },
      { reply_parameters: { message_id: 999999, allow_sending_without_reply: true } },
      { link_preview_options: { is_disabled: true } },
      { disable_web_page_preview: true },
      { message_thread_id: 1, protect_content: true, disable_notification: true },
    ]) {
      const r = await call("sendMessage", { chat_id: chatId, text: "reply https://example.com", ...params });
      expect({ params, status: r.status }).toEqual({ params, status: 200 });
    }
    expect(
      (await call("sendMessage", { chat_id: chatId, text: "x", reply_to_message_id: first })).body.result
        .reply_to_message.message_id,
    ).toBe(first);
  });

  test("keyboards: reply keyboard, ForceReply, ReplyKeyboardRemove, copy_text and web_app buttons", async () => {
    for (const reply_markup of [
      {
        keyboard: [["Yes", "No"], [{ text: "Maybe" }]],
        resize_keyboard: true,
        one_time_keyboard: true,
        input_field_placeholder: "Choose",
      },
      { force_reply: true, input_field_placeholder: "Your answer" },
      { remove_keyboard: true },
      {
        inline_keyboard: [
          [
            { text: "Copy", copy_text: { text: "ABC-123" } },
            { text: "Open", web_app: { url: "https://app.example.com" } },
          ],
        ],
      },
    ]) {
      const r = await call("sendMessage", { chat_id: chatId, text: "keys", reply_markup });
      expect({ reply_markup, status: r.status, body: r.status === 200 ? "" : r.body }).toEqual({
        reply_markup,
        status: 200,
        body: "",
      });
    }
  });

  test("polls: InputPollOption objects and quiz polls with correct_option_id", async () => {
    const quiz = await call("sendPoll", {
      chat_id: chatId,
      question: "2+2?",
      options: [{ text: "3" }, { text: "4" }],
      type: "quiz",
      correct_option_id: 1,
      is_anonymous: false,
    });
    expect(quiz.body.result.poll).toMatchObject({
      type: "quiz",
      correct_option_id: 1,
      is_anonymous: false,
      options: [{ text: "3" }, { text: "4" }],
    });
  });

  test("sendMediaGroup with attach:// parts and with instance URLs", async () => {
    const form = new FormData();
    form.set("chat_id", String(chatId));
    form.set(
      "media",
      JSON.stringify([
        { type: "photo", media: "attach://one", caption: "pair" },
        { type: "photo", media: "attach://two" },
      ]),
    );
    form.set("one", new File([PNG_1x1], "one.png", { type: "image/png" }));
    form.set("two", new File([PNG_1x1], "two.png", { type: "image/png" }));
    const attached = (await (
      await fetch(`${server.url}/bot${token}/sendMediaGroup`, { method: "POST", body: form })
    ).json()) as any;
    expect(attached.ok).toBe(true);
    expect(attached.result).toHaveLength(2);
    const urls = attached.result.map((m: any) => m.photo.at(-1).file_id);
    const again = await call("sendMediaGroup", {
      chat_id: chatId,
      media: urls.map((media: string) => ({ type: "photo", media })),
    });
    expect(again.status).toBe(200);
    expect(again.body.result[0].media_group_id).toBe(again.body.result[1].media_group_id);
  });
});
