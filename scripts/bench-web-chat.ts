#!/usr/bin/env bun
/**
 * The chat screen's figures (issue 14), in chromium against a server on loopback:
 *   - a chat of 10,000 messages: opening it, then scrolling up through its history page by
 *     page (infinite scroll): long tasks over 50 ms recorded all along
 *   - a new message appears in the other person's open chat: from the sender's request to
 *     the text being in the receiver's DOM (wall clock of the same machine), p50 / p99
 * A benchmark, not a test: numbers depend on the machine (docs/benchmarks.md has the current figures).
 *
 * Usage: bun scripts/bench-web-chat.ts [--messages 10000] [--sends 200] [--scroll-seconds 120] [--trace FILE] [--profile]
 * --trace records a Chromium trace of the scrolling into FILE and prints where its long tasks
 * went (self time by trace event: script, style, layout, paint, GC). --profile samples the
 * page's JavaScript while scrolling and prints the functions with the most self time (names
 * are the bundle's, minified).
 */
import { writeFileSync } from "node:fs";
import { cookiesOf, launchBrowser, newPerson } from "../src/testing/browser";
import { requireMembershipByCuid, sendMessage } from "../src/domain/chats";
import { quickPerson } from "../src/testing/fixtures";
import { startTestServer } from "../src/testing/server";
import { attributeLongTasks, selfTimeByFunction, type TraceEvent } from "./bench-lib";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const MESSAGES = arg("--messages", 10_000);
const SENDS = arg("--sends", 200);
const SCROLL_SECONDS = arg("--scroll-seconds", 120);
const traceAt = process.argv.indexOf("--trace");
const TRACE = traceAt > 0 ? process.argv[traceAt + 1] : undefined;
const PROFILE = process.argv.includes("--profile");

const server = await startTestServer({ "limits.messagesPerMinute": 1_000_000 });
const browser = await launchBrowser();
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

try {
  const ann = await quickPerson(server, { displayName: "Ann" });
  const bob = await quickPerson(server, { displayName: "Bob" });
  const cid: string = (await ann.client.post(`/api/social/users/${bob.user.username}/message`, {})).body.data
    .conversationId;
  const seedStart = performance.now();
  // seeded in-process (the send path without HTTP): the browser is what is measured here
  const conversationId = (await requireMembershipByCuid(server.app.db, cid, ann.user.id)).conversation.id;
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < MESSAGES) {
        const i = ++next;
        await sendMessage(server.app, {
          conversationId,
          senderId: (i % 3 ? ann : bob).user.id,
          content: `message ${i}: ${"lorem ipsum ".repeat(1 + (i % 7))}`,
          clientMessageId: `seed-${i}`,
        });
      }
    }),
  );
  console.log(`seeded ${MESSAGES} messages in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

  const viewer = await newPerson(browser, server.url, { viewport: { width: 1280, height: 800 } });
  await viewer.context.addCookies(cookiesOf(bob.client, server.url));
  const { page } = viewer;
  await page.addInitScript(() => {
    const w = window as unknown as { longTasks: number[] };
    w.longTasks = [];
    new PerformanceObserver((list) => list.getEntries().forEach((e) => w.longTasks.push(e.duration))).observe({
      type: "longtask",
      buffered: true,
    });
  });
  // a first visit builds and caches the app's bundle: opening the chat is measured after it
  await page.goto("/dashboard/messages");
  await page.locator(".chat-row").first().waitFor({ timeout: 60_000 });
  await page.evaluate(() => (window as unknown as { longTasks: number[] }).longTasks.splice(0));
  const openStart = performance.now();
  await page.goto(`/dashboard/messages/${cid}`);
  await page.locator(".msg-text", { hasText: `message ${MESSAGES}:` }).waitFor({ timeout: 60_000 });
  const openMs = performance.now() - openStart;
  const openTasks: number[] = await page.evaluate(() =>
    (window as unknown as { longTasks: number[] }).longTasks.splice(0),
  );

  // scroll to the top again and again: each time the next older page loads above (the page
  // keeps a window of messages, so the oldest one shown is what moves)
  const oldestShown = () =>
    page.evaluate(() => Number(document.querySelector(".messages > li.msg")?.getAttribute("data-message-id") ?? 0));
  if (TRACE)
    await browser.startTracing(page, {
      categories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8", "blink"],
    });
  const cdp = PROFILE ? await page.context().newCDPSession(page) : null;
  if (cdp) {
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 250 });
    await cdp.send("Profiler.start");
  }
  const scrollStart = performance.now();
  let reached = await oldestShown();
  while (performance.now() - scrollStart < SCROLL_SECONDS * 1000 && reached > 1) {
    await page.evaluate(() => {
      document.querySelector(".history")!.scrollTop = 0;
    });
    await page.waitForFunction(
      (n) => Number(document.querySelector(".messages > li.msg")?.getAttribute("data-message-id") ?? 0) < n,
      reached,
      { timeout: 30_000 },
    );
    reached = await oldestShown();
  }
  const loaded = MESSAGES - reached + 1;
  const scrollMs = performance.now() - scrollStart;
  const pagingTasks: number[] = await page.evaluate(() =>
    (window as unknown as { longTasks: number[] }).longTasks.splice(0),
  );
  // and down through all of it again, a screen at a time: newer pages load below as the bottom
  // comes near (the window lets the oldest go), until the newest message is shown
  const downStart = performance.now();
  const downSteps = await page.evaluate(async (limitMs) => {
    const h = document.querySelector(".history")!;
    const start = performance.now();
    let steps = 0;
    const frame = () => new Promise((r) => requestAnimationFrame(() => r(null)));
    while (performance.now() - start < limitMs) {
      const atBottom = h.scrollHeight - h.scrollTop - h.clientHeight < 2;
      if (atBottom && !document.querySelector(".history-bottom")) break;
      h.scrollTop += 600;
      steps++;
      await frame();
    }
    return steps;
  }, SCROLL_SECONDS * 1000);
  const downMs = performance.now() - downStart;
  const downReached = await page.evaluate(() =>
    Number(document.querySelector(".messages > li.msg:last-child")?.getAttribute("data-message-id") ?? 0),
  );
  const downTasks: number[] = await page.evaluate(() =>
    (window as unknown as { longTasks: number[] }).longTasks.splice(0),
  );
  if (cdp) {
    const { profile } = await cdp.send("Profiler.stop");
    console.log("JavaScript self time while scrolling (sampled):");
    for (const [name, ms] of selfTimeByFunction(profile).slice(0, 15))
      console.log(`  ${name.padEnd(60)} ${ms.toFixed(0).padStart(6)} ms`);
  }
  if (TRACE) {
    const trace = await browser.stopTracing();
    writeFileSync(TRACE, trace);
    const events = JSON.parse(trace.toString()).traceEvents as TraceEvent[];
    const { tasks, longestCpuMs, selfMs } = attributeLongTasks(events);
    const busy = tasks.filter((t) => t.cpuMs > 50).length;
    // the CPU time of every main-thread task: what the page asks of a core, whatever the load
    const main = events.find((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain");
    const cpu = events
      .filter((e) => e.pid === main?.pid && e.tid === main?.tid && e.name === "RunTask" && e.dur !== undefined)
      .map((e) => (e.tdur ?? e.dur!) / 1000);
    console.log(
      `main-thread tasks while scrolling: ${cpu.length}, ${cpu.reduce((a, b) => a + b, 0).toFixed(0)} ms of CPU in all; CPU per task p99 ${pct(cpu, 99).toFixed(1)} ms, max ${Math.max(...cpu).toFixed(1)} ms; ${cpu.filter((c) => c > 8).length} tasks over 8 ms of CPU, ${cpu.filter((c) => c > 16).length} over 16 ms`,
    );
    console.log(
      `trace of the scrolling: ${tasks.length} main-thread tasks over 50 ms by the clock, ${busy} of them over 50 ms of CPU time (the longest task's CPU time: ${longestCpuMs.toFixed(0)} ms); self time in the long ones:`,
    );
    for (const [name, ms] of selfMs.slice(0, 12)) console.log(`  ${name.padEnd(40)} ${ms.toFixed(0).padStart(6)} ms`);
  }

  // live delivery: Ann sends, Bob's open chat shows it (back at the newest messages first)
  const newest = page.getByRole("button", { name: "Show the newest messages" });
  if (await newest.count()) await newest.click();
  await page.locator(".msg-text", { hasText: `message ${MESSAGES}:` }).waitFor({ timeout: 60_000 });
  // the moment each "live N" text enters the page (watched from now on only: the observer's own
  // work on every row paged in would count in the scrolling figures)
  await page.evaluate(() => {
    const w = window as unknown as { seen: Map<string, number> };
    w.seen = new Map();
    new MutationObserver((records) => {
      for (const r of records)
        for (const n of r.addedNodes) {
          if (!(n instanceof Element)) continue;
          for (const el of [n, ...n.querySelectorAll(".msg-text")]) {
            const m = /^live (\d+)$/.exec(el.textContent ?? "");
            if (m && el.classList.contains("msg-text") && !w.seen.has(m[1]!)) w.seen.set(m[1]!, Date.now());
          }
        }
    }).observe(document, { subtree: true, childList: true });
  });
  const delays: number[] = [];
  for (let i = 1; i <= SENDS; i++) {
    const t0 = Date.now();
    await ann.client.post(`/api/social/messages/${cid}`, { content: `live ${i}` });
    const seenAt = await page.waitForFunction(
      (k) => (window as unknown as { seen: Map<string, number> }).seen.get(k),
      String(i),
      { timeout: 10_000, polling: 5 },
    );
    delays.push(((await seenAt.jsonValue()) as number) - t0);
  }

  const fmt = (xs: number[]) =>
    `${xs.length} long tasks over 50 ms${xs.length ? ` (longest ${Math.max(...xs).toFixed(0)} ms)` : ""}`;
  console.log(`open a chat of ${MESSAGES} messages: newest shown after ${openMs.toFixed(0)} ms; ${fmt(openTasks)}`);
  console.log(
    `scroll up through ${loaded} messages (${(scrollMs / 1000).toFixed(1)} s of paging): ${fmt(pagingTasks)}; back down to message ${downReached} (${downSteps} screens, ${(downMs / 1000).toFixed(1)} s): ${fmt(downTasks)}`,
  );
  console.log(
    `new message in the other person's open chat (${SENDS} sends): p50 ${pct(delays, 50)} ms, p99 ${pct(delays, 99)} ms, max ${Math.max(...delays)} ms`,
  );
  await viewer.context.close();
} finally {
  await browser.close();
  server.stop();
}
