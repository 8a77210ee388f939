import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestServer } from "../testing/server";
import type { TestClient } from "../testing/client";
import type { UserRow } from "../domain/users/table";
import { botWorld, createBotViaApi, openChat, runBotProcess, waitForMessage } from "../testing/botapi";

/*
 * A Go bot on Debian's telebot.v3 (golang-gopkg-telebot.v3-dev), built offline from the packaged
 * sources: GOPATH mode over /usr/share/gocode, with no module proxy to reach.
 */

let server: TestServer;
let owner: TestClient;
let person: TestClient;
let personUser: UserRow;
let buildDir: string;
let binary: string;

/** Builds fixtures/telebot-bot into BUILD_DIR; the compile cache is kept between runs. */
async function buildTelebotBot(): Promise<string> {
  const out = join(buildDir, "telebot-bot");
  const build = Bun.spawn(["go", "build", "-o", out, "main.go"], {
    cwd: join(import.meta.dir, "fixtures", "telebot-bot"),
    env: {
      ...process.env,
      GO111MODULE: "off",
      GOPATH: "/usr/share/gocode",
      GOPROXY: "off",
      GOFLAGS: "",
      GOCACHE: join(tmpdir(), "socialctl-go-build-cache"),
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  if ((await build.exited) !== 0) throw new Error(`go build failed: ${await new Response(build.stderr).text()}`);
  return out;
}

beforeAll(async () => {
  buildDir = mkdtempSync(join(tmpdir(), "socialctl-telebot-"));
  [{ server, owner, person, personUser }, binary] = await Promise.all([botWorld(), buildTelebotBot()]);
}, 120_000);
afterAll(async () => {
  await server.stop();
  rmSync(buildDir, { recursive: true, force: true });
});

describe("telebot.v3 (Go) with URL = <root>", () => {
  test("starts (getMe with a null body), answers a command with an inline keyboard, handles a press and a text", async () => {
    const token = await createBotViaApi(owner, "telebot_demo_bot", "Telebot Demo");
    const bot = await runBotProcess([binary, server.url, token]);
    try {
      const cid = await openChat(person, "telebot_demo_bot", "from_go");
      const welcome = await waitForMessage(person, cid, (m) => m.content === "go start from_go", 15_000);
      // telebot.v3 sends an empty switch_inline_query_current_chat beside each action: the action counts
      expect(welcome.replyMarkup.inline_keyboard).toEqual([
        [
          { text: "Tea", callback_data: "\ftea" },
          { text: "Coffee", callback_data: "\fcoffee" },
        ],
        [{ text: "Site", url: "https://example.com/" }],
      ]);

      const press = await person.post(`/api/social/messages/${cid}/${welcome.id}/callback`, { data: "\ftea" });
      expect(press.status).toBe(200);
      expect(press.body.data.answer).toMatchObject({ text: "go got tea", showAlert: false });
      await waitForMessage(person, cid, (m) => m.id === welcome.id && m.content === "chosen: tea");

      await person.post(`/api/social/messages/${cid}`, { content: "hello" });
      const hello = await waitForMessage(person, cid, (m) => m.content === "hello");
      const reply = await waitForMessage(person, cid, (m) => m.content === "go telebot_demo_bot: hello");
      expect(reply.replyTo).toMatchObject({ id: hello.id, content: "hello" });
    } finally {
      const stderr = await bot.stop();
      expect(stderr).not.toContain("cannot start");
      expect(stderr).not.toContain("handler error");
    }
  }, 60_000);
});
