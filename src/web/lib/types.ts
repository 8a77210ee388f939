/*
 * The web app's types of Client API payloads: each is derived from the schema the server
 * documents its answers with (src/contract), so a field the server renames or retypes fails the
 * web app's type check. Type imports only: no schema code reaches the browser bundle. The web app
 * imports these types from here and declares no payload shape of its own (src/architecture.test.ts).
 */
import type { Static } from "elysia";
import type * as resources from "../../contract/resources";
import type * as admin from "../../contract/admin";
import type * as reports from "../../contract/reports";
import type { PageInfo as PageInfoSchema } from "../../contract/schema";

export type Account = Static<typeof resources.Account>;
export type PublicUser = Static<typeof resources.PublicUser>;
export type FollowUser = Static<typeof resources.FollowUser>;
export type Profile = Static<typeof resources.Profile>;
export type PageInfo = Static<typeof PageInfoSchema>;
export type Rendition = Static<typeof resources.Rendition>;
export type PostImage = Static<typeof resources.PostImage>;
export type Poll = Static<typeof resources.Poll>;
export type LinkPreview = Static<typeof resources.LinkPreview>;
export type Post = Static<typeof resources.Post>;
export type Comment = Static<typeof resources.Comment>;
export type Story = Static<typeof resources.Story>;
export type StoryGroup = Static<typeof resources.StoryGroup>;
export type StoryViewer = Static<typeof resources.StoryViewer>;
export type StarTransaction = Static<typeof resources.StarTransaction>;
export type Upload = Static<typeof resources.Upload>;
export type InstanceIdentity = Static<typeof resources.Instance>;
/** What GET /api/auth/csrf (and GET /api/start) tells about the instance besides the token. */
export type InstanceInfo = Static<typeof resources.CsrfAnswer>;
export type StartData = Static<typeof resources.StartAnswer>;
export type Session = Static<typeof resources.Session>;
export type PushDevice = Static<typeof resources.PushDevice>;
export type NotificationSettings = Static<typeof resources.NotificationSettings>;
export type OwnedBot = Static<typeof resources.OwnedBot>;
export type BotCommand = Static<typeof resources.BotCommand>;
export type BotCard = Static<typeof resources.BotCard>;
export type BotLogEntry = Static<typeof resources.BotLogEntry>;
export type BotIncome = Static<typeof resources.BotIncome>;

export type Notification = Static<typeof resources.Notification>;
export type NotificationCounts = Static<typeof resources.NotificationCounts>;
export type NotificationPage = NotificationCounts & { notifications: Notification[]; pageInfo: PageInfo };

export type ChatMessage = Static<typeof resources.Message>;
export type MessageEntity = Static<typeof resources.MessageEntity>;
export type MessageMedia = Static<typeof resources.MessageMedia>;
export type InlineButton = Static<typeof resources.InlineButton>;
export type ReplyMarkup = Static<typeof resources.ReplyMarkup>;
export type Invoice = Static<typeof resources.Invoice>;
export type ChatPoll = Static<typeof resources.ChatPoll>;
export type Conversation = Static<typeof resources.Conversation>;
export type ChatListItem = Static<typeof resources.ChatListItem>;
export type Member = Static<typeof resources.Member>;
export type GroupInvite = Static<typeof resources.GroupInvite>;
export type CallbackAnswer = Static<typeof resources.CallbackAnswer>;
export type InvoiceLink = Static<typeof resources.InvoiceLink>;
export type Hashtag = Static<typeof resources.Hashtag>;
export type SearchAnswer = Static<typeof resources.SearchAnswer>;

export type AdminAccount = Static<typeof admin.AdminAccount>;
export type AdminBot = Static<typeof admin.AdminBot>;
export type AdminInvite = Static<typeof admin.Invite>;
export type LiveSetting = Static<typeof admin.LiveSetting>;
export type ContentItem = Static<typeof admin.ContentItem>;
export type AuditEntry = Static<typeof admin.AuditEntry>;
export type InstanceStatus = Static<typeof admin.InstanceStatus>;
export type NodeReadiness = Static<typeof admin.NodeReadiness>;
export type RecordedReadiness = Static<typeof admin.RecordedReadiness>;
export type JobState = Static<typeof admin.JobState>;
export type DeadJob = Static<typeof admin.Job>;
export type BackupEntry = Static<typeof admin.Backup>;
export type BackupsAnswer = Static<typeof admin.Backups>;
export type RebuildReport = Static<typeof admin.RebuildReport>;

export type ReportReason = Static<typeof reports.ReportReason>;
export type ReportAction = Static<typeof reports.ReportAction>;
export type ReportTargetType = Static<typeof reports.ReportTargetType>;
export type OwnReport = Static<typeof reports.Report>;
export type OwnReportPage = { reports: OwnReport[]; pageInfo: PageInfo };
export type ReportGroup = Static<typeof reports.ReportGroup>;
export type ReportGroupPage = { groups: ReportGroup[]; pageInfo: PageInfo };

export type Captcha = Static<typeof resources.Captcha>;
export type TotpSetup = Static<typeof resources.TotpSetup>;
export type MessageSettings = Static<typeof resources.MessageSettings>;
export type QrStart = Static<typeof resources.QrStart>;
export type QrStatus = Static<typeof resources.QrStatus>;
export type QrRequest = Static<typeof resources.QrRequest>;
