import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { lookup } from "node:dns/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import type { App } from "../app";
import { createBot, findBotByUserId } from "../domain/bots/service";
import { enqueueUpdate } from "../domain/bots/updates";
import { makeUser } from "../testing/fixtures";
import { startTestServer, type TestServer } from "../testing/server";
import { waitFor } from "../testing/wait";
import { FETCH_FAILED, fetchLimited, isPrivateAddress } from "../http/outbound";
import { accountIdOf } from "../domain/bots/ids";

/**
 * SSRF: with private targets off (the default), nothing a bot supplies reaches the instance's
 * own network, whatever form the address takes, after DNS, on every redirect hop, and the
 * answer never tells an open port from a closed one.
 */

/** Every form of a non-public address the policy must refuse. */
const REFUSED = [
  // IPv4 loopback, private, link-local, CGNAT, multicast, broadcast, reserved, unspecified
  "127.0.0.1",
  "127.255.0.9",
  "10.0.0.1",
  "172.16.0.1",
  "172.31.255.255",
  "192.168.1.1",
  "169.254.169.254",
  "100.64.0.1",
  "100.127.255.254",
  "224.0.0.1",
  "239.1.2.3",
  "255.255.255.255",
  "0.0.0.0",
  "0.1.2.3",
  "192.0.0.8",
  "192.0.2.1",
  "198.18.0.1",
  "198.51.100.7",
  "203.0.113.9",
  "240.0.0.1",
  // IPv6 loopback, unspecified, unique-local, link-local, multicast, documentation
  "::1",
  "::",
  "fc00::1",
  "fd12:3456::1",
  "fe80::1",
  "fe80::1%eth0",
  "ff02::1",
  "2001:db8::1",
  // IPv4-mapped, hex and dotted (loopback, 169.254.169.254, 10/8, 172.16/12, 192.168/16, 100.64/10, public)
  "::ffff:7f00:1",
  "::ffff:127.0.0.1",
  "::ffff:a9fe:a9fe",
  "::ffff:a00:1",
  "::ffff:ac10:1",
  "::ffff:c0a8:101",
  "::ffff:6440:1",
  "0:0:0:0:0:ffff:7f00:1",
  "::FFFF:7F00:1",
  "::ffff:808:808",
  // SIIT (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96, 64:ff9b:1::/48)
  "::ffff:0:7f00:1",
  "::7f00:1",
  "::127.0.0.1",
  "64:ff9b::7f00:1",
  "64:ff9b::127.0.0.1",
  "64:ff9b::a9fe:a9fe",
  "64:ff9b:1::a00:1",
  // 6to4 (2002::/16) and Teredo (2001::/32) embed IPv4 addresses too
  "2002:7f00:1::1",
  "2002:a9fe:a9fe::",
  "2001:0:4136:e378:8000:63bf:3fff:fdd2",
  // not an address at all
  "not an ip",
  "",
  "127.1",
  "0x7f000001",
];

const PUBLIC = [
  "8.8.8.8",
  "1.1.1.1",
  "172.32.0.1",
  "100.128.0.1",
  "93.184.216.34",
  "2606:4700::1111",
  "2a00:1450:4001:80b::200e",
];

describe("address classification", () => {
  test("every refused form is refused", () => {
    const wrong = REFUSED.filter((ip) => !isPrivateAddress(ip));
    expect(wrong).toEqual([]);
  });

  test("global unicast addresses are public", () => {
    const wrong = PUBLIC.filter((ip) => isPrivateAddress(ip));
    expect(wrong).toEqual([]);
  });
});

/** A loopback TCP listener that counts connections: any connection at all is a failure. */
function canary() {
  let connections = 0;
  const listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: { open: () => void connections++, data() {} },
  });
  return {
    port: listener.port,
    get connections() {
      return connections;
    },
    stop: () => listener.stop(true),
  };
}

/** URL hosts that all reach 127.0.0.1 (or would through a NAT64/6to4 gateway). */
const LOOPBACK_HOSTS = [
  "[::ffff:7f00:1]",
  "[::ffff:127.0.0.1]",
  "[0:0:0:0:0:ffff:7f00:1]",
  "[::ffff:0:7f00:1]",
  "[64:ff9b::7f00:1]",
  "[2002:7f00:1::1]",
  "[::127.0.0.1]",
  "127.1",
  "0x7f000001",
  "2130706433",
];

describe("the Bot API with the default policy", () => {
  let server: TestServer;
  let token: string;
  let botId: number;
  let chatId: number;
  let trap: ReturnType<typeof canary>;

  beforeAll(async () => {
    server = await startTestServer();
    const owner = await makeUser(server.app);
    const made = await createBot(server.app, { ownerId: owner.id, username: "ssrf_bot", name: "SSRF" });
    token = made.token;
    botId = made.bot.id;
    chatId = owner.id;
    trap = canary();
  });
  afterAll(async () => {
    trap.stop();
    await server.stop();
  });

  const call = async (method: string, params: Record<string, unknown>) => {
    const res = await fetch(`${server.url}/bot${token}/${method}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(params),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  test("setWebhook refuses every loopback form", async () => {
    const accepted: string[] = [];
    for (const host of LOOPBACK_HOSTS) {
      const r = await call("setWebhook", { url: `https://${host}:${trap.port}/hook` });
      if (r.status !== 400) accepted.push(host);
    }
    expect(accepted).toEqual([]);
  });

  test("setWebhook resolves host names and refuses one that resolves to a private address", async () => {
    const name = hostname();
    const addresses = await lookup(name, { all: true }).catch(() => []);
    if (addresses.length === 0 || !addresses.every((a) => isPrivateAddress(a.address))) {
      console.warn(`skipped: this machine's name ${name} does not resolve to private addresses only`);
      return;
    }
    const r = await call("setWebhook", { url: `https://${name}:${trap.port}/hook` });
    expect({ status: r.status, description: r.body.description }).toEqual({
      status: 400,
      description: "Bad Request: bad webhook: URL host is not public",
    });
  });

  test("sendPhoto and sendDocument by URL never connect to loopback forms, with one neutral error", async () => {
    const answers = new Set<string>();
    for (const host of LOOPBACK_HOSTS) {
      for (const [method, field] of [
        ["sendPhoto", "photo"],
        ["sendDocument", "document"],
      ] as const) {
        const r = await call(method, { chat_id: chatId, [field]: `https://${host}:${trap.port}/x.png` });
        expect({ host, status: r.status }).toEqual({ host, status: 400 });
        answers.add(r.body.description);
      }
    }
    expect(trap.connections).toBe(0);
    expect([...answers]).toEqual(["Bad Request: failed to get HTTP URL content"]);
  });

  test("a closed port and an open one answer the same", async () => {
    const closed = canary();
    closed.stop();
    const open = await call("sendDocument", { chat_id: chatId, document: `https://[::ffff:7f00:1]:${trap.port}/a` });
    const shut = await call("sendDocument", { chat_id: chatId, document: `https://[::ffff:7f00:1]:${closed.port}/a` });
    expect(open).toEqual(shut);
  });

  test("webhook delivery checks the stored URL again and records a neutral error", async () => {
    // a URL stored before this policy (or whose name now resolves elsewhere) is checked again at delivery
    await server.app.db
      .updateTable("bots")
      .set({ webhook_url: `https://[::ffff:7f00:1]:${trap.port}/hook` })
      .where("id", "=", botId)
      .execute();
    const found = (await findBotByUserId(server.app.db, accountIdOf(Number(token.split(":")[0]))))!;
    await enqueueUpdate(server.app, found.bot, "message", {
      message_id: 1,
      date: 0,
      chat: { id: chatId, type: "private" },
      text: "hi",
    });
    const bot = await waitFor(
      async () => {
        const row = await server.app.db
          .selectFrom("bots")
          .select(["webhook_last_error_message"])
          .where("id", "=", botId)
          .executeTakeFirst();
        return row?.webhook_last_error_message ? row : null;
      },
      10_000,
      "a webhook delivery attempt",
    );
    expect(bot.webhook_last_error_message).toBe("Connection failed");
    expect(trap.connections).toBe(0);
  });
});

/**
 * A redirect from a public address to a private one. A public-looking address needs a network
 * the test owns: a network namespace joined by a veth pair, so nothing leaves the machine.
 */
describe("redirect hops are checked again (network namespace)", () => {
  const ns = `sochard${process.pid}`;
  const hostSide = `sh${process.pid % 100000}a`;
  const nsSide = `sh${process.pid % 100000}b`;
  // 100.128.3.0/30 is ordinary unicast space (not special-purpose): the policy calls it public,
  // and the veth route keeps it on this machine
  const HOST_ADDR = "100.128.3.1";
  const NS_ADDR = "100.128.3.2";
  const ip = (...args: string[]) => spawnSync("ip", args, { encoding: "utf8", timeout: 5_000 });
  const usable = process.getuid?.() === 0 && ip("-V").status === 0;
  let trap: ReturnType<typeof canary>;
  let child: ReturnType<typeof spawn> | null = null;
  let output = "";

  beforeAll(async () => {
    if (!usable) return;
    trap = canary();
    for (const args of [
      ["netns", "add", ns],
      ["link", "add", hostSide, "type", "veth", "peer", "name", nsSide],
      ["link", "set", nsSide, "netns", ns],
      ["addr", "add", `${HOST_ADDR}/30`, "dev", hostSide],
      ["link", "set", hostSide, "up"],
      ["-n", ns, "addr", "add", `${NS_ADDR}/30`, "dev", nsSide],
      ["-n", ns, "link", "set", nsSide, "up"],
      ["-n", ns, "link", "set", "lo", "up"],
    ]) {
      const r = ip(...args);
      if (r.status !== 0) throw new Error(`ip ${args.join(" ")}: ${r.stderr}`);
    }
    const pem = join(import.meta.dir, "fixtures", "hook-test-tls.pem");
    const script = join(import.meta.dir, "fixtures", "redirect-server.ts");
    child = spawn(
      "ip",
      [
        "netns",
        "exec",
        ns,
        process.execPath,
        script,
        NS_ADDR,
        "8443",
        pem,
        `https://[::ffff:7f00:1]:${trap.port}/secret`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the redirect server did not start")), 10_000);
      child!.stdout!.on("data", (d: Buffer) => {
        output += d.toString();
        if (output.includes("ready")) (clearTimeout(timer), resolve());
      });
      child!.on("exit", (code) => (clearTimeout(timer), reject(new Error(`the redirect server exited with ${code}`))));
    });
  });

  afterAll(() => {
    if (!usable) return;
    child?.kill("SIGKILL");
    trap?.stop();
    ip("link", "del", hostSide);
    ip("netns", "del", ns);
  });

  test("a public HTTPS server redirecting to a loopback form is not followed", async () => {
    if (!usable) {
      console.warn("skipped: needs root and iproute2 (`ip`) to build a network namespace");
      return;
    }
    const app = { config: { "bot.allowPrivateWebhooks": false } } as unknown as App;
    // the fixture's certificate names hook.test, not the address: the test waives the
    // certificate check so the redirect is what is under test
    const err = await fetchLimited(app, `https://${NS_ADDR}:8443/start.png`, 1024, 5_000, {
      rejectUnauthorized: false,
    }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(FETCH_FAILED);
    // the first hop was fetched (so the refusal was the redirect's), the loopback one never;
    // the server's "request" line comes through a pipe and may arrive after the refusal
    await waitFor(() => output.includes("request"), 5_000, "the redirect server's request line");
    expect(trap.connections).toBe(0);
  });
});
