import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { inProcessApp, type InProcessApp } from "../testing/in-process";
import { signedInClient } from "../testing/fixtures";
import { createBotViaApi, openChat } from "../testing/botapi";
import { BOT_METHODS } from "./dispatcher";
import { FILE_FIELDS } from "./files";
import { sweep } from "../testing/sweep";

/**
 * A fuzz sweep over every Bot API method of the dispatcher's table: every parameter name the
 * methods read, all set to a value of the wrong type at once (as JSON and as a form), and each
 * on its own past otherwise valid parameters. Whatever is sent, the answer is never a 5xx,
 * always in the Bot API envelope, and in bounded time. In process: what is checked is what one
 * request answers, tens of thousands of them.
 */

let server: InProcessApp;
let token: string;
/** parameters that name real things (the owner's chat with the bot, a message in it), so one bad parameter is checked past the others */
let baseline: Record<string, unknown>;

beforeAll(async () => {
  server = await inProcessApp();
  const owner = await signedInClient(server);
  token = await createBotViaApi(owner.client, "fuzzed_bot", "Fuzzed");
  await openChat(owner.client, "fuzzed_bot");
  const sent = await server.fetch(`/bot${token}/sendMessage`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ chat_id: owner.user.id, text: "hello" }),
  });
  expect(sent.status).toBe(200);
  const messageId = ((await sent.json()) as { result: { message_id: number } }).result.message_id;
  baseline = { chat_id: owner.user.id, user_id: owner.user.id, text: "x", message_id: messageId };
});
afterAll(() => server.stop());

/** Every parameter name the methods read (params.str("x"), params.int("x"), ...), from their source. */
function parameterNames(): string[] {
  const names = new Set<string>(Object.keys(FILE_FIELDS));
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) {
        for (const m of readFileSync(path, "utf8").matchAll(/params\.\w+\(\s*"([a-z_]+)"/g)) names.add(m[1]!);
      }
    }
  };
  walk(import.meta.dir);
  // a long poll's timeout is the one parameter that may legitimately hold the answer back
  names.delete("timeout");
  return [...names].sort();
}

/** per parameter: the wrong container types and a NUL, each tried past the other parameters */
const ONE_AT_A_TIME: unknown[] = [[{}], { a: [] }, "\u0000"];
const BAD_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  2 ** 53,
  1.5,
  "",
  "x",
  "-1",
  "@",
  "<b>",
  "\u0000",
  "a".repeat(5000),
  [],
  [null],
  [[[]]],
  {},
  { a: {} },
];

describe("fuzzing every Bot API method", () => {
  test("no bad parameter gets a 5xx or an answer outside the envelope", async () => {
    const methods = Object.keys(BOT_METHODS);
    const names = parameterNames();
    expect(names.length).toBeGreaterThan(40);
    const probes: Array<{ method: string; init: RequestInit; label: string }> = [];
    for (const method of methods) {
      for (const value of BAD_VALUES) {
        const params = Object.fromEntries(names.map((n) => [n, value]));
        probes.push({
          method,
          label: JSON.stringify(value).slice(0, 40),
          init: { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(params) },
        });
      }
      // one parameter wrong at a time, the others naming real things
      for (const name of names) {
        for (const value of ONE_AT_A_TIME) {
          probes.push({
            method,
            label: `${name}=${JSON.stringify(value)}`,
            init: {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ ...baseline, [name]: value }),
            },
          });
        }
      }
      const form = new URLSearchParams(names.map((n): [string, string] => [n, "\u0000{[<"]));
      probes.push({
        method,
        label: "form",
        init: {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: form.toString(),
        },
      });
      probes.push({
        method,
        label: "not JSON",
        init: { method: "POST", headers: { "content-type": "application/json" }, body: "{" },
      });
    }
    // getUpdates' timeout on its own, never a value that parks the call
    for (const timeout of [-1, "x", [], {}, 1.5]) {
      probes.push({
        method: "getUpdates",
        label: `timeout ${JSON.stringify(timeout)}`,
        init: {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ timeout: timeout === 1.5 ? 0 : timeout }),
        },
      });
    }
    const { problems, slowest } = await sweep(
      probes,
      (p) => server.fetch(`/bot${token}/${p.method}`, p.init),
      (p, { status, text, json, ms }) => {
        const enveloped =
          status < 300
            ? json?.ok === true && "result" in json
            : json?.ok === false && json.error_code === status && typeof json.description === "string";
        // how long an answer took is reported below, not judged (a stall of the machine is no bug of
        // the method); a method that hangs fails the test by its timeout
        return status >= 500 || !enveloped
          ? { method: p.method, value: p.label, status, answer: text.slice(0, 160), ms: Math.round(ms) }
          : null;
      },
    );
    console.log(
      `Bot API fuzz: ${probes.length} requests over ${methods.length} methods and ${names.length} parameters; slowest ${Math.round(slowest.ms)} ms (${slowest.item?.method})`,
    );
    expect(problems).toEqual([]);
    expect((await server.fetch(`/bot${token}/getMe`)).status).toBe(200);
  }, 300_000);
});
