import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../testing/server";
import { TestClient } from "../testing/client";
import { makeUser } from "../testing/fixtures";

/*
 * Every per-address limit (the login budget, limits.clientRps, the abuse block) counts an IPv6
 * client by its /64 and an IPv4 client by its address, over real sockets. The IPv6 clients live
 * in a network namespace whose loopback holds addresses of three /64s, joined to this one by a
 * veth pair, so requests really come from many addresses of one network and nothing leaves the
 * machine. The IPv4 clients use addresses of 127.0.0.0/8 against the same dual-stack listener,
 * which sees them IPv4-mapped (::ffff:127.0.0.2).
 */

const FIXTURE = join(import.meta.dir, "fixtures", "bound-requests.ts");
const ns = `sa31${process.pid}`;
const hostSide = `pl${process.pid % 100000}a`;
const nsSide = `pl${process.pid % 100000}b`;
// 2001:db8::/32 is for documentation: never routed anywhere else; the pid keeps parallel runs apart
const base = `2001:db8:${(process.pid % 0xffff).toString(16)}`;
const HOST_ADDR = `${base}::1`;
const NS_LINK_ADDR = `${base}::2`;
/** Address I of the N-th /64 on the namespace's loopback. */
const addressIn = (n: number, i: number) => `${base}:${n}::${i.toString(16)}`;

const ip = (...args: string[]) => spawnSync("ip", args, { encoding: "utf8", timeout: 5_000 });
const usable = process.getuid?.() === 0 && ip("-V").status === 0;

interface Sent {
  from: string;
  url: string;
  method: string;
  headers?: Record<string, string>;
  body?: string;
}
interface Answer {
  status: number;
  code: string | null;
  retryAfter: string | null;
}

/**
 * Sends REQUESTS one after another, each from its `from` address, from a child process (inside
 * the namespace when IN_NAMESPACE); never synchronously, as the servers answer in this process.
 */
async function sendFrom(requests: Sent[], inNamespace: boolean): Promise<Answer[]> {
  const command = [process.execPath, FIXTURE, JSON.stringify({ requests })];
  const child = Bun.spawn(inNamespace ? ["ip", "netns", "exec", ns, ...command] : command, {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill(), 30_000);
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  if (code !== 0) throw new Error(`bound requests failed: ${err}`);
  return JSON.parse(out.trim()) as Answer[];
}

let rps: TestServer;
let login: TestServer;

beforeAll(async () => {
  if (!usable) return;
  const steps = [
    ["netns", "add", ns],
    ["link", "add", hostSide, "type", "veth", "peer", "name", nsSide],
    ["link", "set", nsSide, "netns", ns],
    ["-6", "addr", "add", `${HOST_ADDR}/64`, "dev", hostSide, "nodad"],
    ["link", "set", hostSide, "up"],
    ["-n", ns, "-6", "addr", "add", `${NS_LINK_ADDR}/64`, "dev", nsSide, "nodad"],
    ["-n", ns, "link", "set", nsSide, "up"],
    ["-n", ns, "link", "set", "lo", "up"],
  ];
  for (const n of [1, 2, 3]) {
    for (let i = 1; i <= 9; i++) steps.push(["-n", ns, "-6", "addr", "add", `${addressIn(n, i)}/64`, "dev", "lo"]);
    steps.push(["-6", "route", "add", `${base}:${n}::/64`, "via", NS_LINK_ADDR, "dev", hostSide]);
  }
  for (const args of steps) {
    const r = ip(...args);
    if (r.status !== 0) throw new Error(`ip ${args.join(" ")}: ${r.stderr}`);
  }
  // both listen on every address, IPv4 and IPv6 (dual stack), as `host: "::"` does in production
  rps = await startTestServer({
    host: "::",
    "limits.clientRps": 5,
    "limits.blockAfterRejections": 3,
    "limits.blockSeconds": 60,
  });
  login = await startTestServer({ host: "::", "limits.loginPer10Min": 3 });
});

afterAll(async () => {
  if (!usable) return;
  await rps?.stop();
  await login?.stop();
  ip("link", "del", hostSide);
  ip("netns", "del", ns);
});

const skipped = () => {
  if (usable) return false;
  console.warn("skipped: needs root and iproute2 (`ip`) to build a network namespace");
  return true;
};

/** A wrong-password login to SERVER's account EMAIL from address FROM, with a CSRF pair fetched here. */
async function wrongLogins(server: TestServer, email: string, froms: string[], host: string): Promise<Answer[]> {
  const client = new TestClient(`http://127.0.0.1:${server.app.config.port}`);
  await client.fetchCsrf();
  const url = `http://${host}:${server.app.config.port}/api/auth/login`;
  const headers = {
    "content-type": "application/json",
    cookie: client.cookieHeader(),
    "x-csrf-token": client.csrf!,
  };
  const body = JSON.stringify({ email, password: "not the password" });
  return await sendFrom(
    froms.map((from) => ({ from, url, method: "POST", headers, body })),
    host.startsWith("["),
  );
}

describe("per-address limits count an IPv6 client by its /64 (network namespace)", () => {
  test("the login budget: eight addresses of one /64 share limits.loginPer10Min; another /64 has its own", async () => {
    if (skipped()) return;
    const user = await makeUser(login.app);
    const froms = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => addressIn(1, i));
    const answers = await wrongLogins(login, user.email!, [...froms, addressIn(2, 1)], `[${HOST_ADDR}]`);
    expect(answers.map((a) => a.code)).toEqual([
      ...Array(3).fill("INVALID_CREDENTIALS"),
      ...Array(5).fill("RATE_LIMITED"),
      "INVALID_CREDENTIALS",
    ]);
    expect(Number(answers[3]!.retryAfter)).toBeGreaterThan(500);
  });

  test("limits.clientRps and the abuse block: one /64 shares one budget and is blocked as one", async () => {
    if (skipped()) return;
    const url = `http://[${HOST_ADDR}]:${rps.app.config.port}/api/auth/csrf`;
    const get = (from: string): Sent => ({ from, url, method: "GET" });
    const eight = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => get(addressIn(3, i)));
    const answers = await sendFrom([...eight, ...eight], true);
    expect(answers.map((a) => a.status)).toEqual([...Array(5).fill(200), ...Array(11).fill(429)]);
    // a later second: the window is new, but the /64 hammered past limits.blockAfterRejections
    rps.clock.advance(2000);
    const [blocked, otherNetwork] = await sendFrom([get(addressIn(3, 9)), get(addressIn(1, 1))], true);
    expect(blocked!.status).toBe(429);
    expect(Number(blocked!.retryAfter)).toBeGreaterThan(50);
    expect(otherNetwork!.status).toBe(200);
  });
});

describe("an IPv4 client counts by its address, also IPv4-mapped on a dual-stack listener", () => {
  test("127.0.0.2 spends its login budget; 127.0.0.3 still has its own", async () => {
    if (skipped()) return;
    const user = await makeUser(login.app);
    const answers = await wrongLogins(
      login,
      user.email!,
      ["127.0.0.2", "127.0.0.2", "127.0.0.2", "127.0.0.2", "127.0.0.3"],
      "127.0.0.1",
    );
    expect(answers.map((a) => a.code)).toEqual([
      "INVALID_CREDENTIALS",
      "INVALID_CREDENTIALS",
      "INVALID_CREDENTIALS",
      "RATE_LIMITED",
      "INVALID_CREDENTIALS",
    ]);
  });
});
