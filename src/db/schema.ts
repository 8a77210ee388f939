import type { UsersTables } from "../domain/users/table";
import type { SessionsTables } from "../domain/sessions/table";
import type { AuthTables } from "../domain/auth/table";
import type { RelationsTables } from "../domain/relations/table";
import type { NotificationsTables } from "../domain/notifications/table";
import type { SettingsTables } from "../domain/settings/table";
import type { StoriesTables } from "../domain/stories/table";
import type { ChatsTables } from "../domain/chats/table";
import type { BotsTables } from "../domain/bots/table";
import type { UploadsTables } from "../media/table";
import type { PostsTables } from "../domain/posts/table";
import type { CommentsTables } from "../domain/comments/table";
import type { StarsTables } from "../domain/stars/table";
import type { PaymentsTables } from "../domain/payments/table";
import type { AdminTables } from "../domain/admin/table";
import type { ReportsTables } from "../domain/reports/table";
import type { JobsTables } from "../jobs/table";
import type { PushTables } from "../domain/push/table";
import type { LinksTables } from "../domain/links/table";
import type { CacheTables } from "../cache/table";

/**
 * The whole database as Kysely sees it: each feature declares its tables in
 * domain/<feature>/table.ts and is listed here once.
 */
export interface Database
  extends
    UsersTables,
    SessionsTables,
    AuthTables,
    RelationsTables,
    NotificationsTables,
    SettingsTables,
    StoriesTables,
    ChatsTables,
    BotsTables,
    UploadsTables,
    PostsTables,
    CommentsTables,
    StarsTables,
    PaymentsTables,
    AdminTables,
    ReportsTables,
    PushTables,
    LinksTables,
    CacheTables,
    JobsTables {}
