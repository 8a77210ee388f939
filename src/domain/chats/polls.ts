import type { App } from "../../app";
import type { Db } from "../../db";
import { inTransaction } from "../../db/transaction";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { findMessageBySeq, permissionDenied, requireMembership, requireVisibleMessage } from "./access";
import { publishMessageEvent } from "./notify";
import type { MessageRow } from "./table";
import { fromJson, toJson } from "./validate";

/**
 * A poll sent into a chat. It is stored in the message's `extra.poll` as a bot sent it (the
 * Bot API's field names); who voted for what lives in message_poll_votes, so the counts are
 * always those of the stored votes.
 */
export interface StoredPoll {
  id: string;
  question: string;
  question_entities?: unknown[];
  options: Array<{ text: string; text_entities?: unknown[] }>;
  is_closed: boolean;
  is_anonymous: boolean;
  type: "regular" | "quiz";
  allows_multiple_answers: boolean;
  /** whether a vote may be taken back (absent in polls stored before it was kept: regular polls yes, quizzes no) */
  allows_revoting?: boolean;
  correct_option_id?: number;
  explanation?: string;
  explanation_entities?: unknown[];
  /** seconds the poll stays open after it was sent, as the bot asked */
  open_period?: number;
  /** when the poll closes by itself (unix seconds): past it, it takes no votes and shows closed */
  close_date?: number;
}

/** Votes per option (by index) and the number of people who voted. */
export interface PollTally {
  counts: number[];
  voters: number;
}

export const pollClosed = () => new AppError(409, "POLL_CLOSED", "This poll is closed");

/** Whether a vote in POLL may be taken back: as the bot chose, else regular polls yes, quizzes no. */
export const allowsRevoting = (poll: StoredPoll): boolean => poll.allows_revoting ?? poll.type !== "quiz";

/**
 * The poll a message carries, or null. At NOW (the app clock), a poll past its close_date is
 * closed: it closes on time without anything written.
 */
export function pollOf(row: Pick<MessageRow, "extra">, now?: number): StoredPoll | null {
  // most messages carry no extra, or one without a poll: spare parsing them
  if (row.extra === null || !row.extra.includes('"poll"')) return null;
  const poll = fromJson<{ poll?: StoredPoll }>(row.extra)?.poll ?? null;
  if (poll && !poll.is_closed && now !== undefined && poll.close_date !== undefined && now >= poll.close_date * 1000)
    return { ...poll, is_closed: true };
  return poll;
}

/** The tallies of the polls among ROWS, by message id (two grouped queries; none when no row has a poll). */
export async function pollTallies(db: Db, rows: MessageRow[]): Promise<Map<number, PollTally>> {
  const polls = new Map<number, StoredPoll>();
  for (const r of rows) {
    const poll = pollOf(r);
    if (poll) polls.set(r.id, poll);
  }
  const out = new Map<number, PollTally>();
  if (polls.size === 0) return out;
  const ids = [...polls.keys()];
  const [perOption, perPoll] = await Promise.all([
    db
      .selectFrom("message_poll_votes")
      .select((eb) => ["message_id", "option_index", eb.fn.countAll<number>().as("n")])
      .where("message_id", "in", ids)
      .groupBy(["message_id", "option_index"])
      .execute(),
    db
      .selectFrom("message_poll_votes")
      .select((eb) => ["message_id", eb.fn.count<number>("user_id").distinct().as("n")])
      .where("message_id", "in", ids)
      .groupBy("message_id")
      .execute(),
  ]);
  for (const [id, poll] of polls) out.set(id, { counts: poll.options.map(() => 0), voters: 0 });
  for (const r of perOption) {
    const t = out.get(r.message_id)!;
    if (r.option_index < t.counts.length) t.counts[r.option_index] = Number(r.n);
  }
  for (const r of perPoll) out.get(r.message_id)!.voters = Number(r.n);
  return out;
}

/** USER's chosen options (indexes, ascending) in each poll among MESSAGEIDS that they voted in. */
export async function myPollVotes(db: Db, messageIds: number[], userId: number): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (messageIds.length === 0) return out;
  const rows = await db
    .selectFrom("message_poll_votes")
    .select(["message_id", "option_index"])
    .where("message_id", "in", messageIds)
    .where("user_id", "=", userId)
    .orderBy("option_index")
    .execute();
  for (const r of rows) out.set(r.message_id, [...(out.get(r.message_id) ?? []), r.option_index]);
  return out;
}

/** The options a vote names: distinct indexes of the poll, as many as its kind allows. */
function checkChoice(poll: StoredPoll, options: number[]): number[] {
  const chosen = [...new Set(options)].sort((a, b) => a - b);
  if (chosen.length !== options.length) throw fieldError("options", "must not repeat an option");
  if (chosen.some((i) => !Number.isInteger(i) || i < 0 || i >= poll.options.length))
    throw fieldError("options", `must be option indexes from 0 to ${poll.options.length - 1}`);
  if (chosen.length > 1 && !poll.allows_multiple_answers) throw fieldError("options", "this poll takes one answer");
  return chosen;
}

/**
 * Votes in (OPTIONS: indexes) or, with an empty list, takes back one's vote in the poll of a
 * chat message. One vote set per person: a second vote needs the first taken back, which
 * the poll may refuse (a quiz answer is final); a closed poll takes no votes. The vote, and the updates of the bot that
 * sent the poll ("poll:answered"), commit together; members then see the new counts.
 * Returns the message and the person's options now.
 */
export async function answerPoll(
  app: App,
  input: { conversationId: number; ref: string | number; userId: number; options: number[] },
): Promise<{ message: MessageRow; chosen: number[] }> {
  const { conversation } = await requireMembership(app.db, input.conversationId, input.userId);
  const visible = await requireVisibleMessage(app.db, conversation.id, input.ref, input.userId);
  const poll0 = pollOf(visible);
  if (!poll0) throw notFound("This message has no poll");
  const chosen = checkChoice(poll0, input.options);
  return inTransaction(app.storage, async (scope) => {
    // read again inside the transaction: a stopPoll or another vote may have just committed
    const message = (await findMessageBySeq(scope.db, conversation.id, visible.seq)) ?? visible;
    const poll = pollOf(message, app.clock.now());
    if (!poll) throw notFound("This message has no poll");
    if (poll.is_closed) throw pollClosed();
    const before = (await myPollVotes(scope.db, [message.id], input.userId)).get(message.id) ?? [];
    if (chosen.length === 0) {
      if (before.length === 0) return { message, chosen };
      if (!allowsRevoting(poll))
        throw permissionDenied(
          poll.type === "quiz" ? "A quiz answer cannot be taken back" : "This poll's votes are final",
        );
      await scope.db
        .deleteFrom("message_poll_votes")
        .where("message_id", "=", message.id)
        .where("user_id", "=", input.userId)
        .execute();
    } else {
      if (before.length > 0)
        throw new AppError(409, "ALREADY_VOTED", "You have already voted in this poll; take the vote back first");
      const now = app.clock.now();
      await scope.db
        .insertInto("message_poll_votes")
        .values(
          chosen.map((i) => ({ message_id: message.id, user_id: input.userId, option_index: i, created_at: now })),
        )
        .execute();
    }
    await app.hooks.emitWithin(scope, "poll:answered", { conversation, message, userId: input.userId, chosen });
    scope.afterCommit(() => publishMessageEvent(app, conversation, message, "message:edited"));
    return { message, chosen };
  });
}

/**
 * Closes the poll of ACTOR's own message SEQ (it takes no more votes; the counts stay), and
 * with REPLYMARKUP (null: none) replaces its buttons. Members see it closed.
 */
export async function closePoll(
  app: App,
  input: { conversationId: number; seq: number; actorId: number; replyMarkup?: unknown },
): Promise<MessageRow> {
  const { conversation } = await requireMembership(app.db, input.conversationId, input.actorId);
  const message = await findMessageBySeq(app.db, conversation.id, input.seq);
  const poll = message && pollOf(message, app.clock.now());
  if (!message || !poll) throw notFound("This message has no poll");
  if (message.sender_id !== input.actorId || message.forwarded_from !== null)
    throw permissionDenied("Only the author may close a poll");
  if (poll.is_closed) throw pollClosed();
  const extra = fromJson<Record<string, unknown>>(message.extra)!;
  extra.poll = { ...poll, is_closed: true };
  const row = await app.db
    .updateTable("messages")
    .set({
      extra: JSON.stringify(extra),
      ...(input.replyMarkup !== undefined ? { reply_markup: toJson(input.replyMarkup) } : {}),
    })
    .where("id", "=", message.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await publishMessageEvent(app, conversation, row, "message:edited");
  return row;
}
