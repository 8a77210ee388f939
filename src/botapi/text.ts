import { detectEntities, parseFormatted, type MessageEntity } from "./formatting";
import { badRequest } from "./errors";
import type { Params } from "./params";

const overlaps = (a: MessageEntity, b: MessageEntity) => a.offset < b.offset + b.length && b.offset < a.offset + a.length;

/**
 * Text plus entities from `text`/`caption` with `parse_mode` or an explicit entities array,
 * and the entities the compatible API detects by itself (commands, mentions, links) where
 * no explicit entity covers them.
 */
export function formatText(text: string, parseMode: string | undefined, entities: unknown): { text: string; entities: MessageEntity[] } {
  const parsed = parseFormatted(text, parseMode || undefined, entities ?? undefined);
  const detected = detectEntities(parsed.text).filter((d) => !parsed.entities.some((e) => overlaps(d, e)));
  const all = [...parsed.entities, ...detected].sort((a, b) => a.offset - b.offset || b.length - a.length);
  return { text: parsed.text, entities: all };
}

/** The caption of a media message: 0 to 1024 characters after markup is removed. */
export function captionOf(params: Params, max = 1024): { text: string; entities: MessageEntity[] } {
  const raw = params.str("caption") ?? "";
  const out = formatText(raw, params.str("parse_mode"), params.json("caption_entities"));
  if (out.text.length > max) throw badRequest("message caption is too long");
  return out;
}
