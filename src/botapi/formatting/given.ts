import { checkLink } from "../../lib/entity-url.ts";
import { snapToCharacters } from "./normalize.ts";
import { DETECTED_TYPES, ENTITY_TYPES, FormattingError, type MessageEntity } from "./types.ts";

const MAX_BOUND = 1_000_000;
const bad = (reason: string) => new FormattingError(`Bad Request: ${reason}`);
const unparsable = (reason: string) => bad(`can't parse MessageEntity: ${reason}`);

/** An integer field: a JSON number or a numeric string, as the compatible API accepts. */
function integerField(entity: Record<string, unknown>, name: string): number {
  const value = entity[name];
  if (value === undefined || value === null) throw unparsable(`Can't find field "${name}"`);
  const number = typeof value === "string" && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isInteger(number))
    throw unparsable(`Field "${name}" must be a valid Number`);
  return number;
}

function stringField(entity: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const value = entity[name];
  if (value === undefined || value === null) {
    if (required) throw unparsable(`Can't find field "${name}"`);
    return undefined;
  }
  if (typeof value === "number") return String(value);
  if (typeof value !== "string") throw unparsable(`Field "${name}" must be of type String`);
  return value;
}

/** Reads one MessageEntity object of an `entities` array; undefined for a type the server finds itself. */
function readEntity(value: unknown): MessageEntity | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw unparsable("expected an Object");
  const raw = value as Record<string, unknown>;
  const type = stringField(raw, "type", true)!;
  const offset = integerField(raw, "offset");
  const length = integerField(raw, "length");
  if (!ENTITY_TYPES.has(type)) throw unparsable("Unsupported type specified");
  if (offset < 0 || offset > MAX_BOUND) throw bad(`receive an entity with incorrect offset ${offset}`);
  if (length < 0 || length > MAX_BOUND) throw bad(`receive an entity with incorrect length ${length}`);
  if (DETECTED_TYPES.has(type)) return undefined;
  switch (type) {
    case "text_link": {
      const url = stringField(raw, "url", true)!;
      const link = checkLink(url);
      if (!link.ok) throw bad(`entity URL '${url}' is invalid: ${link.reason}`);
      return { type, offset, length, url: link.url };
    }
    case "pre": {
      const language = stringField(raw, "language", false);
      return { type, offset, length, ...(language ? { language } : {}) };
    }
    case "custom_emoji": {
      const id = stringField(raw, "custom_emoji_id", true)!;
      if (!/^-?\d+$/.test(id)) throw unparsable(`Field "custom_emoji_id" must be a valid Number`);
      if (!/^[1-9]\d{0,18}$/.test(id) || BigInt(id) > 0x7fffffffffffffffn) {
        throw bad("invalid custom emoji identifier specified");
      }
      return { type, offset, length, custom_emoji_id: id };
    }
    case "text_mention": {
      const user = raw.user;
      if (user === undefined || user === null) throw unparsable(`Can't find field "user"`);
      if (typeof user !== "object" || Array.isArray(user)) throw unparsable(`Field "user" must be of type Object`);
      const id = integerField(user as Record<string, unknown>, "id");
      return { type, offset, length, user: { id } };
    }
    default:
      return { type, offset, length };
  }
}

/**
 * Validates an `entities` / `caption_entities` value (an array, or its JSON text) against `text`:
 * known types, integer offsets and lengths inside the text (UTF-16 units), a valid url for
 * text_link. Entities the server detects itself (mention, url, bot_command...) are dropped.
 */
export function readGivenEntities(text: string, value: unknown): MessageEntity[] {
  let list = value;
  if (typeof list === "string") {
    try {
      list = JSON.parse(list);
    } catch {
      throw bad("can't parse entities JSON object");
    }
  }
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw bad("expected an Array of MessageEntity");
  const entities: MessageEntity[] = [];
  for (const item of list) {
    const entity = readEntity(item);
    if (!entity || entity.length === 0) continue;
    if (entity.offset > text.length) {
      throw bad(`entity begins after the end of the text at UTF-16 offset ${entity.offset}`);
    }
    if (entity.offset + entity.length > text.length) {
      throw bad(
        `entity beginning at UTF-16 offset ${entity.offset} ends after the end of the text at UTF-16 offset ${entity.offset + entity.length}`,
      );
    }
    entities.push(entity);
  }
  return snapToCharacters(text, entities);
}
