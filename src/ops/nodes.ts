import { hostname } from "node:os";
import type { Kysely } from "kysely";
import { defineService, type App } from "../app";
import { VERSION } from "../config/layout";
import { untrustedProxyWatch } from "../http/untrusted-proxy";
import { readSchemaMinimum, schemaIncompatibility } from "../db/schema-guard";

/** How often a serving node records that it is alive, and re-reads the database's minimum schema. */
export const NODE_HEARTBEAT_MS = 60_000;

/** How long a readiness probe reuses the last reading of the minimum: probes come every few seconds. */
const GUARD_TTL_MS = 5_000;

/** A node that has not been seen for this long is listed as gone; after a week its row is removed. */
export const NODE_GONE_MS = 3 * NODE_HEARTBEAT_MS;
const NODE_FORGOTTEN_MS = 7 * 24 * 3600_000;

/** One serving node as the database records it. */
export interface NodeRecord {
  id: string;
  version: string;
  /** the newest migration its binary knows */
  schema: string;
  startedAt: number;
  seenAt: number;
  /** the last request with X-Forwarded-For while trustProxy was off, if any since the node started */
  forwardedForSeenAt: number | null;
  /** the node's own readiness (its /readyz answer) as of seenAt; null when it does not report it (an older version) */
  readiness: NodeReadiness | null;
}

/** A node's /readyz answer (ops/health.ts Readiness) as recorded with its heartbeat. */
export interface NodeReadiness {
  status: string;
  checks: Record<string, string>;
  engines?: Record<string, string>;
}

/** A recorded readiness column's value, or null when absent or unreadable. */
export function parseNodeReadiness(raw: unknown): NodeReadiness | null {
  if (typeof raw !== "string") return null;
  try {
    const value = JSON.parse(raw) as NodeReadiness;
    return typeof value?.status === "string" ? value : null;
  } catch {
    return null;
  }
}

/**
 * Whether the database still lets this node's code use it: another node may migrate it past
 * this node's level while it serves. Read at most every GUARD_TTL_MS (the heartbeat and
 * readiness probes ask), one SELECT of one row.
 */
class SchemaGuard {
  private readAt = -Infinity;
  private last: Promise<string | null> = Promise.resolve(null);

  constructor(private readonly app: App) {}

  problem(): Promise<string | null> {
    const now = Date.now();
    if (now - this.readAt >= GUARD_TTL_MS) {
      this.readAt = now;
      this.last = readSchemaMinimum(this.app.db).then((min) => schemaIncompatibility(min, this.app.schemaLevel));
    }
    return this.last;
  }
}

const guardKey = defineService("schema guard", (app) => new SchemaGuard(app));
export const schemaGuard = (app: App): SchemaGuard => app.services.get(guardKey);

/**
 * Records this node (host:PORT, its version, schema level and REPORT of its readiness) at start and every
 * NODE_HEARTBEAT_MS; each beat also re-reads the minimum schema, so a node migrated
 * under logs it and turns unready (readiness asks the same guard). Resolves once the node is
 * recorded (or its failure logged).
 */
export function startNodeHeartbeat(app: App, port: number, report: () => Promise<NodeReadiness>): Promise<void> {
  const id = `${hostname()}:${port}`;
  const startedAt = app.clock.now();
  let warned = false;
  const beat = async () => {
    const now = app.clock.now();
    const values = {
      version: VERSION,
      schema: app.schemaLevel,
      seen_at: now,
      forwarded_for_seen_at: untrustedProxyWatch(app).lastSeenAt,
      readiness: JSON.stringify(await report()),
    };
    const db = app.db as Kysely<any>;
    await db
      .insertInto("nodes")
      .values({ id, started_at: startedAt, ...values })
      .onConflict((oc) => oc.column("id").doUpdateSet(values))
      .execute();
    await db
      .deleteFrom("nodes")
      .where("seen_at", "<", now - NODE_FORGOTTEN_MS)
      .execute();
    const problem = await schemaGuard(app).problem();
    if (problem && !warned) app.log.error("this node can no longer use the database", { reason: problem });
    warned = problem !== null;
  };
  const run = () => beat().catch((err: unknown) => app.log.warn("node heartbeat failed", { error: String(err) }));
  // doctor learns of a proxy the node does not trust without waiting for the next beat
  untrustedProxyWatch(app).onWarning(() => void run());
  const timer = setInterval(run, NODE_HEARTBEAT_MS);
  timer.unref?.();
  app.onClose(() => clearInterval(timer));
  return run();
}

/** The nodes the database knows, by name. */
export async function listNodes(db: Kysely<any>): Promise<NodeRecord[]> {
  const rows = await db.selectFrom("nodes").selectAll().orderBy("id").execute();
  return rows.map((r) => ({
    id: r.id as string,
    version: r.version as string,
    schema: r.schema as string,
    startedAt: Number(r.started_at),
    seenAt: Number(r.seen_at),
    forwardedForSeenAt: r.forwarded_for_seen_at === null ? null : Number(r.forwarded_for_seen_at),
    readiness: parseNodeReadiness(r.readiness),
  }));
}
