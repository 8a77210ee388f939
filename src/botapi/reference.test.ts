import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { compileErrors, validate } from "@readme/openapi-parser";
import { BOT_METHODS } from "./dispatcher";
import { unsupportedMethods } from "./methods/unsupported";
import { telegramDifferences } from "./reference";
import { MAX_TEXT } from "./text";
import { DESCRIPTION_MAX, SHORT_DESCRIPTION_MAX } from "../domain/bots/service";
import { botCall, botWorld, createBotViaApi, type BotWorld } from "../testing/botapi";

type Json = Record<string, any>;

let world: BotWorld;
let document: Json;
let token: string;

beforeAll(async () => {
  world = await botWorld();
  token = await createBotViaApi(world.owner, "reference_bot");
  const res = await fetch(`${world.server.url}/api/bot-openapi.json`);
  expect(res.status).toBe(200);
  document = (await res.json()) as Json;
});
afterAll(() => world.server.stop());

const paramsOf = (method: string): Json =>
  document.paths[`/api/bot/{token}/${method}`].post.requestBody?.content["application/json"].schema.properties ?? {};

describe("/api/bot-openapi.json (the Bot API reference)", () => {
  test("is a valid OpenAPI 3.1 document", async () => {
    const result = await validate(structuredClone(document) as never);
    if (!result.valid) throw new Error(compileErrors(result));
    expect(result.valid).toBe(true);
  });

  test("documents every method of the method table, supported or not", () => {
    const documented = Object.keys(document.paths).map((p) => p.replace("/api/bot/{token}/", ""));
    expect(documented.sort()).toEqual(Object.keys(BOT_METHODS).sort());
    for (const name of Object.keys(BOT_METHODS)) {
      const op = document.paths[`/api/bot/{token}/${name}`].post;
      expect([name, op.summary.length > 3]).toEqual([name, true]);
      if (name in unsupportedMethods) expect(op.description).toContain("Always answers 400");
      else expect(op.description).toStartWith("Returns ");
    }
    // parameters with their limits, from the constants the methods check
    expect(paramsOf("sendMessage").text).toMatchObject({ minLength: 1, maxLength: MAX_TEXT });
    expect(paramsOf("sendMessage").chat_id).toBeDefined();
    expect(
      document.paths["/api/bot/{token}/sendMessage"].post.requestBody.content["application/json"].schema.required,
    ).toEqual(["chat_id", "text"]);
    expect(paramsOf("getUpdates").limit).toMatchObject({ minimum: 1, maximum: 100 });
  });

  test("says what differs from the Telegram Bot API (docs/bot-api.md's list, embedded)", () => {
    const description: string = document.info.description;
    expect(description).toContain("Differences from the Telegram Bot API");
    expect(description).toContain(telegramDifferences());
    for (const difference of [
      "No inline mode",
      "stars only",
      "`file_id` is the file's direct URL",
      "`getFile`",
      "supergroups",
    ])
      expect(telegramDifferences()).toContain(difference);
    expect(description).toContain(`${world.server.app.config["limits.botCallsPerMinute"]} calls a minute per token`);
    expect(description).toContain(
      `${world.server.app.config["limits.botNewChatsPerHour"]} new chats an hour opened by writing first`,
    );
  });

  // the documented limits are the ones enforced: one character more is refused, naming the parameter
  const limits: Array<[method: string, param: string, max: number]> = [
    ["setMyDescription", "description", DESCRIPTION_MAX],
    ["setMyShortDescription", "short_description", SHORT_DESCRIPTION_MAX],
    ["setMyName", "name", 64],
    ["answerCallbackQuery", "text", 200],
  ];
  for (const [method, param, max] of limits)
    test(`${method}: ${param} up to ${max} characters, as documented`, async () => {
      expect(paramsOf(method)[param].maxLength).toBe(max);
      const extra = method === "answerCallbackQuery" ? { callback_query_id: "1" } : {};
      const over = await botCall(world.server.url, token, method, { ...extra, [param]: "x".repeat(max + 1) });
      expect(over.status).toBe(400);
      expect(over.body.description).toContain(param);
      const at = await botCall(world.server.url, token, method, { ...extra, [param]: "x".repeat(max) });
      expect(at.body.description ?? "").not.toContain("too long");
    });
});
