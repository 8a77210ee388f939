import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { createLogger } from "../lib/log";
import { createBotViaApi } from "../testing/botapi";
import { signedInClient } from "../testing/fixtures";
import { startTestServer, type TestServer } from "../testing/server";
import { waitFor } from "../testing/wait";

const lines: string[] = [];
let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer({}, { log: createLogger({ level: "debug", sink: (l) => lines.push(l) }) });
  token = await createBotViaApi((await signedInClient(server)).client, "paths_bot");
});
afterAll(() => server.stop());

/**
 * A request sent with PATH exactly as given: fetch() folds a leading "//" into one slash, the
 * HTTP clients of bot libraries given an API root ending in "/" do not.
 */
function rawRequest(method: string, path: string, body = ""): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.write(
        `${method} ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n` +
          (body ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` : "") +
          `\r\n${body}`,
      ),
    );
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const [head = "", ...rest] = answer.split("\r\n\r\n");
      const chunked = /transfer-encoding: chunked/i.test(head);
      const text = rest.join("\r\n\r\n");
      resolve({
        status: Number(head.split(" ")[1]),
        body: chunked ? text.replace(/^[0-9a-f]+\r\n/i, "").replace(/\r\n0\r\n\r\n$/, "") : text,
      });
    });
  });
}

const requestLines = () => lines.map((l) => JSON.parse(l)).filter((r) => r.msg === "request");

describe("bot tokens in the request log", () => {
  test("every path form a token can come in is logged without it", async () => {
    const secret = token.split(":")[1]!;
    const forms = [
      `/bot${token}/getMe`,
      `//bot${token}/getMe`,
      `/Bot${token}/getMe`,
      `/BOT${token}/getMe`,
      `/api/bot${token}/getMe`,
      `/api/bot/${token}/getMe`,
      `/api/bot${encodeURIComponent(token)}/getMe`,
      `//api/bot/${token}/getMe`,
      `/file/bot${token}/x.png`,
      `/somewhere/${token}/else`,
    ];
    lines.length = 0;
    for (const path of forms) await rawRequest("GET", path);
    await waitFor(() => requestLines().length >= forms.length, 3000, "a request line per form");
    const logged = requestLines().map((r) => r.path);
    expect(logged).toEqual([
      "/bot<redacted>/getMe",
      "//bot<redacted>/getMe",
      "/Bot<redacted>/getMe",
      "/BOT<redacted>/getMe",
      "/api/bot<redacted>/getMe",
      "/api/bot/<redacted>/getMe",
      "/api/bot<redacted>/getMe",
      "//api/bot/<redacted>/getMe",
      "/file/bot<redacted>/x.png",
      "/somewhere/<redacted>/else",
    ]);
    const all = lines.join("\n");
    expect(all).not.toContain(secret);
    expect(all).not.toContain(encodeURIComponent(token));
  });
});

describe("an API root ending in a slash", () => {
  test("//bot<TOKEN>/<method> is the Bot API, with its envelope", async () => {
    const me = await rawRequest("GET", `//bot${token}/getMe`);
    expect(me.status).toBe(200);
    expect(JSON.parse(me.body).result).toMatchObject({ username: "paths_bot", is_bot: true });
    const wrong = await rawRequest("GET", `//bot${token.split(":")[0]}:wrong/getMe`);
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.body)).toEqual({ ok: false, error_code: 401, description: "Unauthorized" });
    const posted = await rawRequest("POST", `//bot${token}/getMyCommands`, "{}");
    expect(posted.status).toBe(200);
    expect(JSON.parse(posted.body)).toEqual({ ok: true, result: [] });
  });
});
