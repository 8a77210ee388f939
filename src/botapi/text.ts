import type { App } from "../app";
import type { Db } from "../db";
import { parseFormatted, type MessageEntity } from "./formatting";
import { linkUserId } from "./formatting/links";
import type { BotContext } from "./context";
import { badRequest } from "./errors";
import type { Params } from "./params";
import { serializeUser } from "./serializers";
import { accountIdOf } from "../domain/bots/ids";
import { findUsersByIds } from "../domain/users/service";

/** Longest message text (UTF-16 units, after markup is removed). */
export const MAX_TEXT = 4096;
export const MAX_CAPTION = 1024;

interface Formatted {
  text: string;
  entities: MessageEntity[];
}

/**
 * Mentions by id carry the full User, as the compatible API shows them: a `text_mention` the bot
 * gives must name an account ("Bad Request: user not found" otherwise), and a `tg://user?id=N`
 * link made with markup becomes a text_mention when N is an account (else it stays a link).
 * Queries only when such an entity is present.
 */
async function resolveMentions(db: Db, entities: MessageEntity[]): Promise<MessageEntity[]> {
  const given = (e: MessageEntity): number | undefined =>
    e.type === "text_mention"
      ? (e.user as { id: number }).id
      : e.type === "text_link" && e.url
        ? linkUserId(e.url)
        : undefined;
  const idOf = (e: MessageEntity): number | undefined => {
    const id = given(e);
    return id === undefined ? undefined : accountIdOf(id);
  };
  const ids = [...new Set(entities.flatMap((e) => idOf(e) ?? []))];
  if (ids.length === 0) return entities;
  const rows = await findUsersByIds(db, ids);
  const users = new Map(rows.filter((u) => !u.disabled_at && !u.is_system).map((u) => [u.id, u]));
  return entities.map((e) => {
    const id = idOf(e);
    if (id === undefined) return e;
    const user = users.get(id);
    if (!user) {
      if (e.type === "text_mention") throw badRequest("user not found");
      return e;
    }
    return { type: "text_mention", offset: e.offset, length: e.length, user: serializeUser(user) };
  });
}

/** Leading and trailing whitespace removed, as the compatible API stores texts; entities follow. */
function trimFormatted(f: Formatted): Formatted {
  const start = f.text.length - f.text.trimStart().length;
  const end = f.text.trimEnd().length;
  if (start === 0 && end === f.text.length) return f;
  if (end <= start) return { text: "", entities: [] };
  const entities = f.entities.flatMap((e) => {
    const from = Math.max(e.offset, start);
    const to = Math.min(e.offset + e.length, end);
    return to > from ? [{ ...e, offset: from - start, length: to - from }] : [];
  });
  return { text: f.text.slice(start, end), entities };
}

/**
 * Text plus entities from `text`/`caption` with `parse_mode` or an explicit entities array,
 * trimmed. parseFormatted already adds the entities the compatible API detects by itself
 * (commands, mentions, links); mentions by id are resolved to their User.
 */
export async function formatText(
  app: App,
  text: string,
  parseMode: string | undefined,
  entities: unknown,
): Promise<Formatted> {
  const parsed = trimFormatted(parseFormatted(text, parseMode || undefined, entities ?? undefined));
  return { text: parsed.text, entities: await resolveMentions(app.db, parsed.entities) };
}

/** The `text` of sendMessage/editMessageText: 1 to 4096 characters, not only whitespace, before and after markup. */
export async function messageText(ctx: BotContext): Promise<Formatted> {
  const raw = ctx.params.str("text") ?? "";
  if (raw.trim() === "") throw badRequest("message text is empty");
  const out = await formatText(ctx.app, raw, ctx.params.str("parse_mode"), ctx.params.json("entities"));
  if (out.text === "") throw badRequest("message text is empty");
  if (out.text.length > MAX_TEXT) throw badRequest("message is too long");
  return out;
}

/** The caption of a media message: 0 to MAX characters after markup is removed. */
export async function captionOf(app: App, params: Params, max = MAX_CAPTION): Promise<Formatted> {
  const raw = params.str("caption") ?? "";
  const out = await formatText(app, raw, params.str("parse_mode"), params.json("caption_entities"));
  if (out.text.length > max) throw badRequest("message caption is too long");
  return out;
}
