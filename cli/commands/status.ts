import type { Command } from "commander";
import { resolveDataDir } from "../../src/config";
import type { Readiness } from "../../src/ops/health";
import { collectStatus, type InstanceStatus } from "../../src/ops/status";
import { emit, type GlobalOptions } from "../output";
import { globals } from "../context";
import { formatBytes } from "./backup";
import { socialctl } from "../hints";
import { NODE_GONE_MS, type NodeReadiness } from "../../src/ops/nodes";
import { JOB_STATES, type JobsStatus } from "../../src/jobs/dead-letters";

function describe(s: InstanceStatus, opts: GlobalOptions): string {
  const lines = [`socialctl ${s.version}, data dir ${s.dataDir}`];
  if (!s.initialised)
    return [...lines, `No instance here yet: run '${socialctl(opts)} init' or '${socialctl(opts)} serve'.`].join("\n");
  const srv = s.server;
  lines.push(
    srv.running
      ? `server: running (pid ${srv.pid}, ${srv.url})${srv.healthy ? `, up ${formatDuration(srv.uptimeSeconds ?? 0)}` : ", NOT answering /healthz"}`
      : "server: not running",
    ...(srv.readiness ? [`readiness: ${describeReadiness(srv.readiness)}`] : []),
    s.database.engine === "postgres"
      ? `database: ${s.database.server ?? "PostgreSQL"} (database.url), ${formatBytes(s.database.sizeBytes)}`
      : `database: SQLite, ${formatBytes(s.database.sizeBytes)} (WAL ${formatBytes(s.database.walSizeBytes)})`,
    `files: ${s.files.count} (${formatBytes(s.files.totalBytes)})`,
  );
  for (const [kind, v] of Object.entries(s.files.byKind ?? {}))
    lines.push(`  ${kind}: ${v.count} (${formatBytes(v.bytes)})`);
  const counts = Object.entries(s.counts)
    .filter(([, n]) => n !== null)
    .map(([k, n]) => `${k} ${n}`);
  if (counts.length) lines.push(`counts: ${counts.join(", ")}`);
  lines.push(
    s.lastBackup
      ? `last backup: ${s.lastBackup.createdAt} ${s.lastBackup.path} (${formatBytes(s.lastBackup.sizeBytes)})`
      : "last backup: none",
  );
  if (s.engines) {
    const { pubsub, files } = s.engines;
    // what the nodes do meanwhile: they stay ready and serve without it
    const health = (problem: string | null, without: string) =>
      problem ? `UNREACHABLE: ${problem}; nodes serve on, ${without}` : "ok";
    lines.push(
      pubsub.engine === "redis"
        ? `pub/sub: redis ${pubsub.url} (${health(pubsub.problem, "each with its own realtime and limits")})`
        : "pub/sub: in this process (pubsub.url empty)",
      files.engine === "s3"
        ? `file store: s3 bucket ${files.bucket}${files.endpoint ? ` at ${files.endpoint}` : ""} (${health(files.problem, "file uploads and downloads answer 503")})`
        : "file store: files under the data dir",
    );
  }
  const { minimum } = s.schema;
  lines.push(
    `schema: ${s.schema.version ?? "empty"} (this socialctl knows up to ${s.schema.level}; ` +
      `${minimum ? `the database requires ${minimum.schema} or newer, from socialctl ${minimum.version}` : "no breaking migration recorded"})`,
  );
  if (s.schema.pending.length)
    lines.push(`pending migrations (applied by 'socialctl migrate' or on serve): ${s.schema.pending.join(", ")}`);
  if (s.schema.problem) lines.push(`ERROR: ${s.schema.problem}`);
  else if (s.schema.unknown.length)
    lines.push(
      `note: the database has migrations of a newer socialctl (${s.schema.unknown.join(", ")}), none breaking this one: it may serve on`,
    );
  if (s.nodes.length) {
    lines.push("nodes:");
    const now = Date.now();
    for (const n of s.nodes)
      lines.push(
        `  ${n.id}: socialctl ${n.version} (schema ${n.schema}), last seen ${formatDuration(Math.max(0, Math.round((now - n.seenAt) / 1000)))} ago` +
          (n.readiness ? `, ${describeReadiness(n.readiness)}` : "") +
          (now - n.seenAt > NODE_GONE_MS ? " (gone?)" : ""),
      );
  }
  if (s.jobs) lines.push(...describeJobs(s.jobs, opts));
  return lines.join("\n");
}

/** The job queue: per state, the kinds with jobs in it; then the dead letters, which want an operator. */
function describeJobs(jobs: JobsStatus, opts: GlobalOptions): string[] {
  const byState = JOB_STATES.map((state) => {
    const of = jobs.counts.filter((c) => c.state === state);
    const total = of.reduce((n, c) => n + c.count, 0);
    return `${state} ${total}${of.length ? ` (${of.map((c) => `${c.kind} ${c.count}`).join(", ")})` : ""}`;
  });
  const lines = [`jobs: ${byState.join(", ")}`];
  if (jobs.dead.length) {
    lines.push(`dead jobs (retry with '${socialctl(opts)} jobs retry ID', or drop):`);
    for (const j of jobs.dead)
      lines.push(
        `  ${j.id} ${j.kind}, ${j.attempts} attempts, last ${new Date(j.updatedAt).toISOString()}: ${j.lastError ?? ""}`,
      );
  }
  return lines;
}

function formatDuration(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return d ? `${d}d ${h}h` : h ? `${h}h ${m}m` : `${m}m ${seconds % 60}s`;
}

export function registerStatus(program: Command) {
  program
    .command("status")
    .description("version, running server, sizes, counts, last backup, pending migrations")
    .action(async (_f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const status = await collectStatus(resolveDataDir(opts.dataDir));
      emit(opts, status, () => describe(status, opts));
    });
}

/** A node's /readyz answer in one line: its state, then whatever is not "ok" (checks first, then engines). */
function describeReadiness(r: Readiness | NodeReadiness): string {
  const wrong = [...Object.entries(r.checks), ...Object.entries(r.engines ?? {})].filter(([, v]) => v !== "ok");
  return wrong.length ? `${r.status} (${wrong.map(([k, v]) => `${k}: ${v}`).join("; ")})` : r.status;
}
