import { t } from "elysia";
import { REPORT_ACTIONS, REPORT_REASONS, REPORT_TARGET_TYPES } from "../domain/reports/table";
import { NullableString, NullableTime, Resource, Time } from "./schema";

/* The reports of /api/social/reports (a person's own) and /api/admin/reports (the moderation queue). */

const ReportStatus = t.UnionEnum(["open", "resolved"]);
export const ReportTargetType = t.UnionEnum(REPORT_TARGET_TYPES);
export const ReportReason = t.UnionEnum(REPORT_REASONS);
export const ReportAction = t.UnionEnum(REPORT_ACTIONS);

const Resolution = t.Union([
  t.Object({ action: ReportAction, resolvedAt: Time }, { additionalProperties: true }),
  t.Null(),
]);

/** A report as the person who made it sees it. */
export const Report = Resource({
  id: t.String(),
  status: ReportStatus,
  target: t.Object({ type: ReportTargetType, id: t.String(), label: t.String() }),
  reason: ReportReason,
  comment: NullableString,
  resolution: Resolution,
  createdAt: Time,
});

const Account = t.Object(
  {
    id: t.String(),
    username: t.String(),
    displayName: t.String(),
    isBot: t.Boolean(),
    disabled: t.Boolean(),
    postingBlockedUntil: NullableTime,
  },
  { additionalProperties: true },
);

/** The reports of one target taken up together, as the moderation queue shows them. */
export const ReportGroup = Resource({
  status: ReportStatus,
  target: t.Object(
    {
      type: ReportTargetType,
      id: t.String(),
      label: t.String(),
      present: t.Boolean({ description: "false once the target was removed, deleted, expired or blocked" }),
      text: NullableString,
      media: t.Array(
        Resource({ url: t.Optional(t.String()), kind: t.Optional(t.String()), mime: t.Optional(t.String()) }),
        { description: "the media of the target as the newest report copied them" },
      ),
      context: t.Union([
        Resource(
          {
            postId: t.Optional(t.String()),
            conversationId: t.Optional(t.String()),
            chatType: t.Optional(t.String()),
            messageId: t.Optional(t.Integer()),
          },
          "where the target was: a comment's post, a message's chat",
        ),
        t.Null(),
      ]),
      account: Account,
    },
    { description: "what was reported, as the newest report copied it" },
  ),
  reportCount: t.Integer(),
  reports: t.Array(
    t.Object(
      {
        id: t.String(),
        reporter: t.Object({ username: t.String() }),
        reason: ReportReason,
        comment: NullableString,
        createdAt: Time,
      },
      { additionalProperties: true },
    ),
  ),
  resolution: t.Union([
    t.Object(
      {
        action: ReportAction,
        note: NullableString,
        resolver: t.Object({ username: t.String() }),
        resolvedAt: NullableTime,
      },
      { additionalProperties: true },
    ),
    t.Null(),
  ]),
  firstReportedAt: Time,
  lastReportedAt: Time,
});
