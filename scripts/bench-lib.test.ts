import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  attributeLongTasks,
  describeWriteGroups,
  markdownTable,
  median,
  pairedRuns,
  parseMetric,
  parseWriteGroups,
  parseWrkOutput,
  processCpuSeconds,
  pinProcess,
  processMemory,
  runWrk,
  spread,
  wrkScript,
} from "./bench-lib";

// The benchmark plumbing only: what wrk is told to send and how its report is read.
// No speed is asserted here (speed is measured by `npm run bench`, never in tests).

describe("wrk script and report", () => {
  test("the Lua script sets method, headers and body, and reports one JSON line", () => {
    const lua = wrkScript({
      url: "http://127.0.0.1:1/x",
      method: "POST",
      headers: { "x-csrf-token": "a.b", cookie: 'k="v"' },
      body: '{"text":"hi"}',
    });
    expect(lua).toContain('wrk.method = "POST"');
    expect(lua).toContain('wrk.headers["x-csrf-token"] = "a.b"');
    expect(lua).toContain('wrk.headers["cookie"] = "k=\\"v\\""');
    expect(lua).toContain('wrk.body = "{\\"text\\":\\"hi\\"}"');
    expect(lua).toContain("BENCH_RESULT");
    expect(lua).not.toContain("function request()");
  });

  test("a body template needs its {n} placeholder", () => {
    expect(() => wrkScript({ url: "http://127.0.0.1:1/x", bodyTemplate: '{"id":"fixed"}' })).toThrow("{n}");
    expect(wrkScript({ url: "http://127.0.0.1:1/x", bodyTemplate: '{"id":"b-{n}"}' })).toContain("function request()");
  });

  test("the report line becomes req/s and milliseconds", () => {
    const r = parseWrkOutput(
      'Running 5s test\nnoise\nBENCH_RESULT {"requests":1000,"duration_us":2000000,"non2xx":3,"socket_errors":2,"p50_us":1500,"p99_us":12000}\n',
    );
    expect(r).toEqual({ requests: 1000, rps: 500, p50Ms: 1.5, p99Ms: 12, non2xx: 3, socketErrors: 2 });
  });

  test("output without the report line is an error naming the output", () => {
    expect(() => parseWrkOutput("unable to connect to 127.0.0.1:1 Connection refused")).toThrow("Connection refused");
  });

  test("the table shows ratios and counts failures", () => {
    const result = { requests: 10, rps: 1234.4, p50Ms: 1, p99Ms: 2.345, non2xx: 1, socketErrors: 2 };
    const table = markdownTable([
      { name: "GET /x", result, ratio: 0.256 },
      { name: "POST /y", result, ratio: 0.1, reference: { name: "INSERT", ratio: 0.555 } },
    ]);
    expect(table.split("\n")[2]).toBe("| GET /x | 1,234 | 1.00 | 2.35 | 0.26 |  | 3 |");
    expect(table.split("\n")[3]).toBe("| POST /y | 1,234 | 1.00 | 2.35 | 0.10 | 0.56 (INSERT) | 3 |");
    // the CPU column appears when a row has it
    const withCpu = markdownTable([
      { name: "GET /x", result, ratio: 0.256 },
      { name: "POST /y", result, ratio: 0.1, cpuUsPerRequest: 123.4 },
    ]).split("\n");
    expect(withCpu[0]).toEndWith("| non-2xx | CPU µs/req |");
    expect(withCpu[2]).toBe("| GET /x | 1,234 | 1.00 | 2.35 | 0.26 |  | 3 |  |");
    expect(withCpu[3]).toBe("| POST /y | 1,234 | 1.00 | 2.35 | 0.10 |  | 3 | 123 |");
  });

  test("range and CPU-ratio columns appear when a row has its reference ratio over rounds", () => {
    const result = { requests: 10, rps: 1000, p50Ms: 1, p99Ms: 2, non2xx: 0, socketErrors: 0 };
    const table = markdownTable([
      { name: "bare", result, ratio: 1, cpuUsPerRequest: 7 },
      {
        name: "GET /x",
        result,
        ratio: 0.4,
        reference: { name: "PK SELECT", ratio: 0.555, min: 0.5, max: 0.625, cpuRatio: 0.571 },
        cpuUsPerRequest: 21.4,
      },
    ]).split("\n");
    expect(table[0]).toBe(
      "| endpoint | req/s | p50 ms | p99 ms | × bare | × reference | × ref min–max | × ref CPU | non-2xx | CPU µs/req |",
    );
    expect(table[1]).toBe("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    expect(table[2]).toBe("| bare | 1,000 | 1.00 | 2.00 | 1.00 |  |  |  | 0 | 7 |");
    expect(table[3]).toBe("| GET /x | 1,000 | 1.00 | 2.00 | 0.40 | 0.56 (PK SELECT) | 0.50–0.63 | 0.57 | 0 | 21 |");
  });

  test("memory is read from /proc for a live process", () => {
    const mem = processMemory(process.pid);
    expect(mem.rss).toBeGreaterThan(1024 * 1024);
    expect(mem.peakRss).toBeGreaterThanOrEqual(mem.rss);
  });

  test("CPU time is read from /proc and grows with work", () => {
    const before = processCpuSeconds(process.pid);
    expect(before).toBeGreaterThanOrEqual(0);
    // work until the next 10 ms tick is counted (bounded: a busy machine may give us little CPU)
    let after = before;
    const deadline = performance.now() + 10_000;
    while (after === before && performance.now() < deadline) {
      let x = 0;
      for (let i = 0; i < 100_000; i++) x += Math.sqrt(i);
      if (x < 0) break;
      after = processCpuSeconds(process.pid);
    }
    expect(after).toBeGreaterThan(before);
  });

  test.skipIf(!Bun.which("taskset"))("a pinned process and its threads run on the CPUs given", async () => {
    const child = Bun.spawn(["sleep", "30"]);
    try {
      pinProcess(child.pid, "0");
      const status = await Bun.file(`/proc/${child.pid}/status`).text();
      expect(status).toMatch(/^Cpus_allowed_list:\s+0$/m);
      expect(() => pinProcess(child.pid, "no-such-cpu")).toThrow(`could not pin ${child.pid}`);
    } finally {
      child.kill();
    }
  });

  test("runWrk refuses anything but loopback", async () => {
    await expect(
      runWrk("/bin/false", { url: "http://example.com/" }, { seconds: 1, threads: 1, connections: 1 }),
    ).rejects.toThrow("loopback");
  });
});

const wrk = Bun.which("wrk");

describe.skipIf(!wrk)("wrk against a recording server", () => {
  const bodies: string[] = [];
  const paths: string[] = [];
  /** each request's path with its cookie header */
  const cookies: string[] = [];
  let badRequests = 0;
  let server: ReturnType<typeof Bun.serve>;

  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        if (req.method !== "POST" || req.headers.get("x-csrf-token") !== "tok") badRequests++;
        const body = await req.text();
        bodies.push(body);
        paths.push(new URL(req.url).pathname);
        cookies.push(`${new URL(req.url).pathname} ${req.headers.get("cookie")}`);
        // every tenth request fails, so the failure count must be non-zero
        return new Response("{}", { status: bodies.length % 10 === 0 ? 500 : 200 });
      },
    });
  });
  afterAll(() => server.stop(true));

  test("every request carries the headers and a body with a number unique in the run", async () => {
    const r = await runWrk(
      wrk!,
      {
        url: `http://127.0.0.1:${server.port}/send`,
        method: "POST",
        headers: { "x-csrf-token": "tok" },
        bodyTemplate: '{"clientMessageId":"bench-{n}"}',
      },
      { seconds: 1, threads: 2, connections: 4 },
    );
    expect(r.requests).toBeGreaterThan(0);
    expect(badRequests).toBe(0);
    expect(new Set(bodies).size).toBe(bodies.length);
    expect(bodies[0]).toMatch(/^\{"clientMessageId":"bench-[12]-\d+"\}$/);
    expect(r.non2xx).toBeGreaterThan(0);
    expect(r.non2xx).toBeLessThanOrEqual(Math.ceil(bodies.length / 10));
    expect(r.p99Ms).toBeGreaterThanOrEqual(r.p50Ms);
  });

  test("requests take the given paths in turn", async () => {
    paths.length = 0;
    const r = await runWrk(
      wrk!,
      {
        url: `http://127.0.0.1:${server.port}/`,
        method: "POST",
        headers: { "x-csrf-token": "tok" },
        paths: ["/chat/a", "/chat/b", "/chat/c"],
        bodyTemplate: '{"clientMessageId":"p-{n}"}',
      },
      { seconds: 1, threads: 1, connections: 1 },
    );
    expect(r.requests).toBeGreaterThan(3);
    // one connection: each request takes the path after the previous one's, every path is used
    const order = ["/chat/a", "/chat/b", "/chat/c"];
    const next = paths.slice(0, 6).map((p) => order[(order.indexOf(p) + 1) % order.length]);
    expect(paths.slice(1, 6)).toEqual(next.slice(0, 5));
    expect(new Set(paths)).toEqual(new Set(order));
    expect(() => wrkScript({ url: "http://127.0.0.1:1/", paths: ["chat"] })).toThrow("paths");
  });

  test("each path's requests carry that path's headers beside the common ones", async () => {
    cookies.length = 0;
    const before = badRequests;
    const r = await runWrk(
      wrk!,
      {
        url: `http://127.0.0.1:${server.port}/`,
        method: "POST",
        headers: { "x-csrf-token": "tok" },
        paths: ["/chat/a", "/chat/b"],
        pathHeaders: [{ cookie: "s=alice" }, { cookie: "s=bob" }],
        bodyTemplate: '{"clientMessageId":"h-{n}"}',
      },
      { seconds: 1, threads: 1, connections: 2 },
    );
    expect(r.requests).toBeGreaterThan(2);
    expect(new Set(cookies)).toEqual(new Set(["/chat/a s=alice", "/chat/b s=bob"]));
    // the common header went with every request too
    expect(badRequests).toBe(before);
    expect(() =>
      wrkScript({ url: "http://127.0.0.1:1/", paths: ["/a", "/b"], pathHeaders: [{ cookie: "s=alice" }] }),
    ).toThrow("pathHeaders");
  });
});

describe("rounds", () => {
  test("the median is the middle value, or the mean of the two middle ones", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([0.61, 0.43, 0.66, 0.55])).toBeCloseTo(0.58, 10);
    expect(median([5])).toBe(5);
    expect(() => median([])).toThrow("median of nothing");
  });

  test("the spread is the median with the smallest and largest value, the input left as it was", () => {
    const values = [0.57, 0.61, 0.66, 0.65, 0.55];
    expect(spread(values)).toEqual({ median: 0.61, min: 0.55, max: 0.66 });
    expect(values).toEqual([0.57, 0.61, 0.66, 0.65, 0.55]);
  });

  test("each row runs next to its reference, the reference first in even rounds and second in odd ones", () => {
    const ref = (row: number) => ({ row, reference: true });
    const run = (row: number) => ({ row, reference: false });
    expect(pairedRuns(0, 2)).toEqual([ref(0), run(0), ref(1), run(1)]);
    expect(pairedRuns(1, 2)).toEqual([run(0), ref(0), run(1), ref(1)]);
    expect(pairedRuns(2, 1)).toEqual([ref(0), run(0)]);
    // over two rounds each row has its reference once before and once after it
    for (let row = 0; row < 3; row++) {
      const order = [0, 1].map((round) => pairedRuns(round, 3).filter((r) => r.row === row));
      expect(order.map(([first]) => first!.reference)).toEqual([true, false]);
    }
  });
});

describe("write groups", () => {
  const exposition = (ones: number, twos: number, eights: number) =>
    [
      "# HELP social_db_write_group_size Write transactions per database commit",
      "# TYPE social_db_write_group_size histogram",
      `social_db_write_group_size_bucket{le="1"} ${ones}`,
      `social_db_write_group_size_bucket{le="2"} ${ones + twos}`,
      `social_db_write_group_size_bucket{le="8"} ${ones + twos + eights}`,
      `social_db_write_group_size_bucket{le="+Inf"} ${ones + twos + eights}`,
      `social_db_write_group_size_sum ${ones + 2 * twos + 8 * eights}`,
      `social_db_write_group_size_count ${ones + twos + eights}`,
      'social_http_requests_total{method="GET",route="/",status="200"} 3',
    ].join("\n");

  test("the histogram is read from /metrics text, and a run is the difference of two readings", () => {
    const before = parseWriteGroups(exposition(10, 0, 0));
    expect(before).toEqual({ buckets: { "1": 10, "2": 10, "8": 10, "+Inf": 10 }, sum: 10, count: 10 });
    // then 1 commit of one, 2 of two and 97 of eight
    const after = parseWriteGroups(exposition(11, 2, 97));
    expect(describeWriteGroups(before, after)).toBe(
      "100 commits for 781 writes (mean 7.8 per commit; p50 ≤ 8, p99 ≤ 8)",
    );
    expect(describeWriteGroups(after, after)).toBe("no commits");
  });

  test("an unlabelled gauge is read by its exact name", () => {
    const text = [
      "# TYPE social_database_wal_bytes gauge",
      "social_database_wal_bytes_total 7",
      "social_database_wal_bytes 6182912",
      'social_http_requests_total{method="GET"} 3',
    ].join("\n");
    expect(parseMetric(text, "social_database_wal_bytes")).toBe(6182912);
    expect(parseMetric(text, "social_database_bytes")).toBeNull();
  });
});

describe("long-task attribution from a Chromium trace", () => {
  test("only the renderer main thread's tasks over the limit count; self time is summed by event name", () => {
    const main = { pid: 1, tid: 7 };
    const ev = (name: string, ts: number, dur: number, tdur?: number, where = main) => ({
      name,
      ph: "X",
      ts,
      dur,
      tdur,
      ...where,
    });
    const { tasks, longestCpuMs, selfMs } = attributeLongTasks([
      { name: "thread_name", ph: "M", ts: 0, ...main, args: { name: "CrRendererMain" } },
      // a long task: 80 ms, of which 30 ms of script holding 10 ms of layout, and 40 ms of paint
      ev("RunTask", 1_000, 80_000, 20_000),
      ev("FunctionCall", 2_000, 30_000),
      ev("Layout", 5_000, 10_000),
      ev("Paint", 40_000, 40_000),
      // short, and on another thread: not counted
      ev("RunTask", 100_000, 30_000, 30_000),
      ev("Layout", 101_000, 20_000),
      ev("RunTask", 200_000, 90_000, 90_000, { pid: 1, tid: 8 }),
    ]);
    expect(tasks).toEqual([{ wallMs: 80, cpuMs: 20 }]);
    expect(longestCpuMs).toBe(30);
    expect(Object.fromEntries(selfMs)).toEqual({ FunctionCall: 20, Layout: 10, Paint: 40, RunTask: 10 });
  });

  test("a trace without a renderer main thread attributes nothing", () => {
    expect(attributeLongTasks([{ name: "RunTask", ph: "X", ts: 0, dur: 90_000, pid: 1, tid: 1 }])).toEqual({
      tasks: [],
      longestCpuMs: 0,
      selfMs: [],
    });
  });
});
