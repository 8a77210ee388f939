import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Elysia } from "elysia";
import type * as PromClient from "prom-client";
import { defineService, type App } from "../app";
import { safeEqual } from "../lib/crypto";
import { ARCHIVE_RE } from "./backup";
import { backupsDir, dbPath } from "../config/layout";
import { fileSize } from "./layout";
import { postgresDatabaseBytes } from "./database-size";
import { realtimeHub } from "../realtime/hub";
import { eventLoopLag } from "./event-loop";
import { readiness } from "./health";
import { JOB_STATES, countJobs } from "../jobs/dead-letters";
import { jobHandlers } from "../jobs/queue";

/**
 * Prometheus metrics of one serving App (prom-client, text exposition format). Counters are
 * bumped on the hot paths (a small share of the cheapest request); sizes, queue lengths and the backup age are
 * read when scraped. prom-client's default Node.js metrics are left out on purpose: under
 * Bun its event-loop and handle gauges report constants, and a metric that measures nothing
 * is worse than none; the process's memory and CPU are read here instead.
 */
type PromLib = Pick<typeof PromClient, "Registry" | "Counter" | "Gauge" | "Histogram">;
/**
 * The four prom-client classes used here, loaded when a serving process first counts (a CLI
 * command never pays for them), each from its own file: the package's index also loads its
 * default Node.js metrics (with @opentelemetry/api), the Pushgateway (node:http, node:https)
 * and cluster aggregation, none of which is used, and all of which would lengthen every server start.
 */
let promClient: PromLib | null = null;
const prom = (): PromLib =>
  (promClient ??= {
    Registry: require("prom-client/lib/registry"),
    Counter: require("prom-client/lib/counter"),
    Gauge: require("prom-client/lib/gauge"),
    Histogram: require("prom-client/lib/histogram"),
  } as PromLib);

/** One label set's observations in a LabelledSeries. */
interface Series {
  labels: Record<string, string>;
  count: number;
  sum: number;
  /** observations per bucket (not cumulative), in the order of the bounds */
  buckets: number[];
}

/**
 * Counts (and a histogram, given bucket bounds) by label set, for the metrics every request
 * bumps. prom-client's Counter.inc and Histogram.observe hash a labels object, validate each
 * label and find the bucket through a number turned into a property name on every call,
 * which together cost more than the rest of a cheap request's bookkeeping; here an observation
 * is one Map lookup by the label values and a few additions. A scrape reads them in
 * prom-client's own shape (`metric`), so the registry formats them as it formats its own
 * counters and histograms.
 */
export class LabelledSeries {
  private readonly series: Series[] = [];
  /** the series by their label values, one Map level per label: no key string built per observation */
  private byValues = new Map<string | number, unknown>();

  constructor(
    private readonly labelNames: readonly string[],
    private readonly bounds: readonly number[] = [],
  ) {}

  /** One observation of VALUE under the label VALUES, given in the order of labelNames. */
  observe(values: readonly (string | number)[], value = 0): void {
    let level = this.byValues;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]!) as Map<string | number, unknown> | undefined;
      if (!next) level.set(values[i]!, (next = new Map()));
      level = next;
    }
    let s = level.get(values[last]!) as Series | undefined;
    if (!s) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = String(values[i])));
      s = { labels, count: 0, sum: 0, buckets: this.bounds.map(() => 0) };
      level.set(values[last]!, s);
      this.series.push(s);
    }
    s.count++;
    s.sum += value;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++)
      if (value <= bounds[i]!) {
        s.buckets[i]!++;
        break;
      }
  }

  /** A counter of the observations, for Registry.registerMetric. */
  counter(name: string, help: string): RegisteredMetric {
    return this.metric(name, help, "counter", () => this.series.map((s) => ({ labels: s.labels, value: s.count })));
  }

  /** A histogram of the observed values (cumulative buckets, +Inf, sum, count) as prom-client's Histogram exports it. */
  histogram(name: string, help: string): RegisteredMetric {
    return this.metric(name, help, "histogram", () =>
      this.series.flatMap((s) => {
        let acc = 0;
        const sharedLabels = s.labels;
        return [
          ...this.bounds.map((le, i) => ({
            labels: { le },
            sharedLabels,
            value: (acc += s.buckets[i]!),
            metricName: `${name}_bucket`,
          })),
          { labels: { le: "+Inf" }, sharedLabels, value: s.count, metricName: `${name}_bucket` },
          { labels: {}, sharedLabels, value: s.sum, metricName: `${name}_sum` },
          { labels: {}, sharedLabels, value: s.count, metricName: `${name}_count` },
        ];
      }),
    );
  }

  private metric(name: string, help: string, type: string, values: () => unknown[]): RegisteredMetric {
    const get = async () => ({ name, help, type, values: values(), aggregator: "sum" });
    const reset = () => {
      this.series.length = 0;
      this.byValues = new Map();
    };
    return { name, help, type, get, reset };
  }
}

/** What Registry.registerMetric needs of a metric it did not make. */
interface RegisteredMetric {
  name: string;
  help: string;
  type: string;
  get(): Promise<{ name: string; help: string; type: string; values: unknown[]; aggregator: string }>;
  reset(): void;
}

export class Metrics {
  private readonly lib = prom();
  readonly registry = new this.lib.Registry();

  /** requests by method, route pattern and status: social_http_requests_total and the duration histogram */
  private readonly requests = this.register(
    new LabelledSeries(
      ["method", "route", "status"],
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    ),
    (series) => [
      series.counter("social_http_requests_total", "HTTP requests answered, by method, route pattern and status"),
      series.histogram(
        "social_http_request_duration_seconds",
        "Time to the response head, by method, route pattern and status",
      ),
    ],
  );

  /** Bot API calls by method and error code: social_botapi_calls_total */
  private readonly botCalls = this.register(new LabelledSeries(["method", "code"]), (series) => [
    series.counter(
      "social_botapi_calls_total",
      'Bot API calls by method (unknown names as "unknown") and error code (200 when ok)',
    ),
  ]);

  readonly webhookDeliveries = new this.lib.Counter({
    name: "social_webhook_deliveries_total",
    help: "Webhook delivery attempts by result (ok, failed)",
    labelNames: ["result"] as const,
    registers: [this.registry],
  });

  readonly writeGroups = new this.lib.Histogram({
    name: "social_db_write_group_size",
    help: "Write transactions per database commit: concurrent writes share one commit (group commit)",
    buckets: [1, 2, 4, 8, 16, 32, 64],
    registers: [this.registry],
  });

  constructor(app: App) {
    const registers = [this.registry];
    app.storage.onWriteGroup((size) => this.writeGroups.observe(size));
    const db = dbPath(app.dataDir);
    new this.lib.Gauge({
      name: "social_bot_updates_queued",
      help: "Bot updates stored and not yet delivered (getUpdates or webhook)",
      registers,
      async collect() {
        const row = await app.db
          .selectFrom("bot_updates")
          .select((e) => e.fn.countAll<number>().as("n"))
          .where("delivered_at", "is", null)
          .executeTakeFirst();
        this.set(Number(row?.n ?? 0));
      },
    });
    new this.lib.Counter({
      name: "social_db_statements_total",
      help: "SQL statements run by the server (BEGIN, COMMIT and savepoints included)",
      registers,
      collect() {
        this.reset();
        this.inc(app.storage.statements());
      },
    });
    new this.lib.Gauge({
      name: "social_jobs",
      help: "Jobs in the durable queue (mail and other side effects) by kind and state: queued, running, done (kept a day), dead (out of attempts: retry or drop them)",
      labelNames: ["kind", "state"] as const,
      registers,
      async collect() {
        const counts = await countJobs(app.db);
        this.reset();
        // every state of every kind this node handles or has jobs of, zero included, so a dead-letter alert can clear
        const kinds = new Set([...jobHandlers(app).keys(), ...counts.map((c) => c.kind)]);
        for (const kind of kinds) for (const state of JOB_STATES) this.set({ kind, state }, 0);
        for (const c of counts) this.set({ kind: c.kind, state: c.state }, c.count);
      },
    });
    new this.lib.Gauge({
      name: "social_realtime_connections",
      help: "Open realtime connections (WebSocket and SSE)",
      registers,
      collect() {
        this.set(realtimeHub(app).connectionCount());
      },
    });
    new this.lib.Gauge({
      name: "social_database_bytes",
      help: "Size of the database: social.db, or the PostgreSQL database as its server reports it",
      registers,
      async collect() {
        if (app.storage.sqlite) return this.set(fileSize(db));
        this.set(await postgresDatabaseBytes(app.db));
      },
    });
    new this.lib.Gauge({
      name: "social_database_wal_bytes",
      help: "Size of social.db-wal",
      registers,
      collect() {
        this.set(fileSize(`${db}-wal`));
      },
    });
    new this.lib.Gauge({
      name: "social_backup_age_seconds",
      help: "Seconds since the newest backup archive in data/backups was written (+Inf when there is none)",
      registers,
      collect() {
        const newest = newestArchiveMtime(app.dataDir);
        this.set(newest === null ? Infinity : Math.max(0, (Date.now() - newest) / 1000));
      },
    });
    new this.lib.Gauge({
      name: "social_engine_up",
      help: "Whether this node reaches each engine it uses (1) or not (0): database, pubsub (Redis), files (the bucket)",
      labelNames: ["engine"] as const,
      registers,
      async collect() {
        const report = await readiness(app);
        this.reset();
        this.set({ engine: "database" }, report.checks.database === "ok" ? 1 : 0);
        for (const [engine, state] of Object.entries(report.engines ?? {}))
          this.set({ engine }, state === "ok" ? 1 : 0);
      },
    });
    new this.lib.Gauge({
      name: "social_event_loop_lag_seconds",
      help: "How late this node's event loop runs timers (readiness fails past readiness.maxEventLoopLagMs)",
      registers,
      collect() {
        this.set(eventLoopLag(app).lagMs() / 1000);
      },
    });
    new this.lib.Gauge({
      name: "process_resident_memory_bytes",
      help: "Resident memory of the server process",
      registers,
      collect() {
        this.set(process.memoryUsage.rss());
      },
    });
    new this.lib.Counter({
      name: "process_cpu_seconds_total",
      help: "User and system CPU time of the server process",
      registers,
      collect() {
        const u = process.cpuUsage();
        this.reset();
        this.inc((u.user + u.system) / 1e6);
      },
    });
  }

  private register(series: LabelledSeries, metrics: (series: LabelledSeries) => RegisteredMetric[]): LabelledSeries {
    // registered in the order the fields are declared, as prom-client's own metrics register themselves
    for (const metric of metrics(series)) this.registry.registerMetric(metric as never);
    return series;
  }

  /** One answered HTTP request; ROUTE is the route's pattern, never the raw path. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe([method, route, status], seconds);
  }

  /** One Bot API call: METHOD as the API spells it ("unknown" for no such method), CODE its error code or "200". */
  countBotCall(method: string, code: string): void {
    this.botCalls.observe([method, code]);
  }
}

/** Newest backup-*.tar.gz by mtime; a stat per archive, no archive opened. */
function newestArchiveMtime(dataDir: string): number | null {
  let newest: number | null = null;
  try {
    const dir = backupsDir(dataDir);
    for (const name of readdirSync(dir)) {
      if (!ARCHIVE_RE.test(name)) continue;
      const m = statSync(join(dir, name)).mtimeMs;
      if (newest === null || m > newest) newest = m;
    }
  } catch {
    // no backups folder yet
  }
  return newest;
}

/** The App's metrics; counters are bumped whether or not /metrics is served (the cost is small). */
export const metricsService = defineService("ops:metrics", (app) => new Metrics(app));

export const metricsFor = (app: App): Metrics => app.services.get(metricsService);

/** Where /metrics is served, from metrics.enabled / metrics.port / metrics.token. */
export function metricsPlacement(app: App): "off" | "main" | "port" {
  if (!app.config["metrics.enabled"]) return "off";
  if (app.config["metrics.port"] > 0) return "port";
  // on the public listener only behind a token: sizes and call counts are not for everyone
  return app.config["metrics.token"] ? "main" : "off";
}

/** GET /metrics: the exposition text, behind `Authorization: Bearer <metrics.token>` when a token is set. */
export async function metricsResponse(app: App, request: Request): Promise<Response> {
  const token = app.config["metrics.token"];
  if (token) {
    const given = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
    if (!safeEqual(given, token))
      return new Response("unauthorized\n", { status: 401, headers: { "www-authenticate": 'Bearer realm="metrics"' } });
  }
  const registry = metricsFor(app).registry;
  return new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } });
}

/** The /metrics route on the main listener, when metrics are served there. */
export function metricsRoutes(app: App) {
  const routes = new Elysia({ name: "metrics" });
  return metricsPlacement(app) === "main"
    ? routes.get("/metrics", ({ request }) => metricsResponse(app, request))
    : routes;
}

/**
 * A listener of its own on 127.0.0.1:metrics.port that answers /metrics only, so a scraper
 * on the machine needs no token and nothing of it is reachable from outside. Returns its stop.
 */
export function startMetricsListener(app: App): { port: number; stop: () => void } {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: app.config["metrics.port"],
    fetch: (request) =>
      new URL(request.url).pathname === "/metrics"
        ? metricsResponse(app, request)
        : new Response("not found\n", { status: 404 }),
  });
  return { port: server.port!, stop: () => void server.stop(true) };
}
