import { t } from "elysia";
import { Account } from "./resources";
import { NullableInteger, NullableString, NullableTime, Open, Resource, Time } from "./schema";

/* The resources of the admin API's answers (/api/admin/*), as resources.ts is for the rest. */

/** An account as an administrator sees it: the owner's view plus its moderation state. */
export const AdminAccount = Resource(
  {
    ...Account.properties,
    disabled: t.Boolean(),
    disabledAt: NullableTime,
    postingBlockedUntil: t.Union([Time, t.Null()], { description: "set while the account may not publish" }),
  },
  "an account with its moderation state",
);

export const AdminBot = Resource({
  id: t.String(),
  username: t.String(),
  name: t.String(),
  owner: t.Union([t.String({ description: "the owner's username" }), t.Null()]),
  enabled: t.Boolean(),
  blocked: t.Boolean(),
  createdAt: Time,
});

export const Invite = Resource({
  code: t.String(),
  url: t.String({ description: "the register page with the code filled in" }),
  maxUses: t.Integer(),
  uses: t.Integer(),
  expiresAt: Time,
  revokedAt: NullableTime,
  createdAt: Time,
  createdBy: t.Union([t.String({ description: "username" }), t.Null()]),
  state: t.UnionEnum(["live", "revoked", "expired", "used_up"]),
});

const SettingValue = t.Union([t.String(), t.Number(), t.Boolean(), t.Array(t.String())]);

/** A config key an administrator may change while the server runs. */
export const LiveSetting = Resource({
  key: t.String(),
  value: SettingValue,
  default: SettingValue,
  describe: t.String({ description: "what the key does" }),
});

/** A post, comment or story as the content lookup shows it. */
export const ContentItem = Resource({
  kind: t.UnionEnum(["post", "comment", "story"]),
  id: t.String(),
  text: t.String(),
  author: Resource({ id: NullableString, username: NullableString }),
  createdAt: Time,
});

export const AuditEntry = Resource({
  id: t.String(),
  actor: Resource({ username: t.String() }),
  action: t.String(),
  target: Resource({ type: t.String(), id: t.String(), label: t.String() }),
  details: Open,
  createdAt: Time,
});

/** ready: everything answers; degraded: serving without an optional engine; unavailable: cannot serve. */
export const NodeReadiness = Resource({
  status: t.UnionEnum(["ready", "degraded", "unavailable"]),
  checks: t.Record(t.String(), t.String()),
  engines: t.Optional(t.Record(t.String(), t.String())),
});

/** A node's readiness as it last recorded it (a node of another version may name a state this one does not know). */
export const RecordedReadiness = Resource({
  ...NodeReadiness.properties,
  status: t.String({ description: "ready, degraded or unavailable" }),
});

export const JobState = t.UnionEnum(["queued", "running", "done", "dead"]);

/** A job as operators see it in the status (times in ms). */
export const DeadJob = Resource({
  id: t.Integer(),
  kind: t.String(),
  key: NullableString,
  state: JobState,
  attempts: t.Integer(),
  lastError: NullableString,
  runAt: t.Integer(),
  createdAt: t.Integer(),
  updatedAt: t.Integer(),
});

/** A job as /api/admin/jobs lists it. */
export const Job = Resource({ ...DeadJob.properties, runAt: Time, createdAt: Time, updatedAt: Time });

export const JobCount = Resource({ kind: t.String(), state: JobState, count: t.Integer() });

/** What `socialctl status` prints, from the serving process itself (times of nodes and jobs in ms). */
export const InstanceStatus = Resource({
  version: t.String(),
  dataDir: t.String(),
  server: Resource({
    running: t.Boolean(),
    pid: t.Optional(t.Integer()),
    url: t.Optional(t.String()),
    startedAt: t.Optional(t.String()),
    uptimeSeconds: t.Optional(t.Number()),
    healthy: t.Optional(t.Boolean()),
    readiness: t.Optional(Resource(NodeReadiness.properties, "the node that answered: its own readiness, live")),
  }),
  database: Resource({ sizeBytes: t.Number(), walSizeBytes: t.Number() }),
  files: Resource({
    count: t.Integer(),
    totalBytes: t.Number(),
    byKind: t.Union([t.Record(t.String(), Resource({ count: t.Integer(), bytes: t.Number() })), t.Null()]),
  }),
  counts: t.Record(t.String(), NullableInteger, { description: "null where the feature's table does not exist" }),
  lastBackup: t.Union([
    Resource({ path: t.String(), createdAt: t.String(), sizeBytes: t.Number(), kind: t.String() }),
    t.Null(),
  ]),
  schema: Resource({
    version: NullableString,
    applied: t.Integer(),
    pending: t.Array(t.String()),
    unknown: t.Array(t.String()),
  }),
  nodes: t.Array(
    Resource({
      id: t.String(),
      version: t.String(),
      schema: t.String(),
      startedAt: t.Number(),
      seenAt: t.Number(),
      readiness: t.Union([RecordedReadiness, t.Null()]),
    }),
    { description: "every serving node the database has seen, with the readiness it last reported" },
  ),
  jobs: t.Union([
    Resource(
      { counts: t.Array(JobCount), dead: t.Array(DeadJob) },
      "the job queue: counts per kind and state, the newest dead jobs",
    ),
    t.Null(),
  ]),
});

/** A backup archive or pre-migration snapshot in data/backups. */
export const Backup = Resource({
  kind: t.UnionEnum(["archive", "pre-migrate"]),
  name: t.String(),
  sizeBytes: t.Integer(),
  createdAt: Time,
  schemaVersion: NullableString,
  fileCount: NullableInteger,
  withoutDerived: t.Optional(t.Boolean()),
  error: t.Optional(t.String({ description: "why the entry could not be read (a damaged archive is listed)" })),
});

export const Backups = t.Object({
  backups: t.Array(Backup),
  running: t.Union([t.String({ description: "the maintenance running now" }), t.Null()]),
  keep: t.Integer(),
  everySeconds: t.Integer(),
});

export const RebuildReport = Resource({
  rebuilt: t.Integer(),
  present: t.Integer(),
  failed: t.Array(Resource({ upload: t.String(), file: t.String(), reason: t.String() })),
});
