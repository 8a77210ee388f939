import type { Static, TSchema } from "elysia";
import type { serializeAccount, serializePublicUser } from "./serializers/account";
import type { serializeProfile } from "./people/serialize";
import type { serializeComment } from "./posts/serialize";
import type { serializeStory } from "./stories/serialize";
import type { serializeUpload } from "./uploads/serialize";
import type { serializeNotification } from "./notifications/serialize";
import type { Account, Comment, Notification, Profile, PublicUser, Story, Upload } from "../contract/resources";
import type { Backup, DeadJob, InstanceStatus, LiveSetting, RebuildReport } from "../contract/admin";
import type { InstanceStatus as CollectedStatus } from "../ops/status";
import type { BackupListing } from "../ops/backup";
import type { RebuildReport as RebuildReportMade } from "../ops/rebuild-derived";
import type { JobSummary } from "../jobs/dead-letters";
import type { liveSettings } from "../domain/admin/settings";

/*
 * The resources of Client API responses live in src/contract (the web app derives its types from
 * them too). The type checks here make tsc fail when a serializer stops sending a field listed
 * there or changes its type.
 */
export * from "../contract/resources";
export * from "../contract/reports";
export * from "../contract/admin";
export { Page } from "../contract/schema";

// a serializer that drops or retypes a documented field fails the type check here
type Serializes<F extends (...args: never[]) => unknown, S extends TSchema> =
  ReturnType<F> extends Static<S> ? true : never;
export const serializersMatchSchemas: [
  Serializes<typeof serializeAccount, typeof Account>,
  Serializes<typeof serializePublicUser, typeof PublicUser>,
  Serializes<typeof serializeProfile, typeof Profile>,
  Serializes<typeof serializeComment, typeof Comment>,
  Serializes<typeof serializeStory, typeof Story>,
  Serializes<typeof serializeUpload, typeof Upload>,
  Serializes<typeof serializeNotification, typeof Notification>,
] = [true, true, true, true, true, true, true];

// the same for answers made by code outside the Client API (status, settings, backups, jobs)
type Sends<T, S extends TSchema> = T extends Static<S> ? true : never;
export const answersMatchSchemas: [
  Sends<CollectedStatus, typeof InstanceStatus>,
  Sends<ReturnType<typeof liveSettings>[number], typeof LiveSetting>,
  Sends<Omit<BackupListing, "path">, typeof Backup>,
  Sends<RebuildReportMade, typeof RebuildReport>,
  Sends<JobSummary, typeof DeadJob>,
] = [true, true, true, true, true];
