/** Shapes of the admin API's answers (docs/client-api.md, "Administration"). */
import type { Account } from "../../lib/types";

export interface AdminAccount extends Account {
  disabled: boolean;
  disabledAt: string | null;
  postingBlockedUntil: string | null;
}

export interface AdminBot {
  id: string;
  username: string;
  name: string;
  owner: string | null;
  enabled: boolean;
  blocked: boolean;
  createdAt: string;
}

export interface AdminInvite {
  code: string;
  /** the register page with the code filled in */
  url: string;
  maxUses: number;
  uses: number;
  expiresAt: string;
  revokedAt: string | null;
  createdAt: string;
  createdBy: string | null;
  state: "live" | "revoked" | "expired" | "used_up";
}

export interface LiveSetting {
  key: string;
  value: string | number | boolean | string[];
  default: string | number | boolean | string[];
  describe: string;
}

export interface ContentItem {
  kind: "post" | "comment" | "story";
  id: string;
  text: string;
  author: { id: string | null; username: string | null };
  createdAt: string;
}

export interface AuditEntry {
  id: string;
  actor: { username: string };
  action: string;
  target: { type: string; id: string; label: string };
  details: Record<string, unknown>;
  createdAt: string;
}

export interface InstanceStatus {
  version: string;
  dataDir: string;
  server: {
    running: boolean;
    pid?: number;
    url?: string;
    startedAt?: string;
    uptimeSeconds?: number;
    healthy?: boolean;
    /** the node that answered: its own readiness, live */
    readiness?: NodeReadiness;
  };
  database: { sizeBytes: number; walSizeBytes: number };
  files: { count: number; totalBytes: number; byKind: Record<string, { count: number; bytes: number }> | null };
  counts: Record<string, number | null>;
  lastBackup: { path: string; createdAt: string; sizeBytes: number; kind: string } | null;
  schema: { version: string | null; applied: number; pending: string[]; unknown: string[] };
  /** every serving node the database has seen, with the readiness it last reported (times in ms) */
  nodes: Array<{
    id: string;
    version: string;
    schema: string;
    startedAt: number;
    seenAt: number;
    readiness: NodeReadiness | null;
  }>;
  /** the job queue: counts per kind and state, the newest dead jobs (times in ms) */
  jobs: {
    counts: Array<{ kind: string; state: JobState; count: number }>;
    dead: DeadJob[];
  } | null;
}

/** ready: everything answers; degraded: serving without an optional engine; unavailable: cannot serve */
export interface NodeReadiness {
  status: "ready" | "degraded" | "unavailable";
  checks: Record<string, string>;
  engines?: Record<string, string>;
}

export type JobState = "queued" | "running" | "done" | "dead";

export interface DeadJob {
  id: number;
  kind: string;
  key: string | null;
  state: JobState;
  attempts: number;
  lastError: string | null;
  runAt: number;
  createdAt: number;
  updatedAt: number;
}

/** A backup archive or pre-migration snapshot in data/backups (GET /api/admin/maintenance/backups). */
export interface BackupEntry {
  kind: "archive" | "pre-migrate";
  name: string;
  sizeBytes: number;
  createdAt: string;
  schemaVersion: string | null;
  fileCount: number | null;
  withoutDerived?: boolean;
  error?: string;
}

export interface RebuildReport {
  rebuilt: number;
  present: number;
  failed: Array<{ upload: string; file: string; reason: string }>;
}
