import { badRequest } from "./errors";
import type { InlineButton } from "../domain/bots/buttons";
import type { MenuButtonValue } from "../domain/bots/profile";

const MAX_ROWS = 100;
const MAX_BUTTONS_PER_ROW = 8;
const MAX_BUTTON_TEXT = 128;
const MAX_CALLBACK_BYTES = 64;
const MAX_URL = 512;
/**
 * A button's actions in the compatible server's order: the first one given decides what the
 * button does and the rest are ignored (libraries send empty extras, telebot.v3 an empty
 * switch_inline_query_current_chat beside every callback_data). url and callback_data count
 * only when non-empty.
 */
const ACTIONS = [
  "url",
  "callback_data",
  "callback_game",
  "pay",
  "switch_inline_query",
  "switch_inline_query_chosen_chat",
  "switch_inline_query_current_chat",
  "login_url",
  "web_app",
  "copy_text",
] as const;
/** actions of families the product has no place for (games, inline mode, login widgets) */
const UNSUPPORTED_ACTIONS = new Set<string>([
  "callback_game",
  "switch_inline_query",
  "switch_inline_query_chosen_chat",
  "login_url",
]);

const firstAction = (raw: Record<string, unknown>): (typeof ACTIONS)[number] | undefined =>
  ACTIONS.find((action) => {
    const v = raw[action];
    if (v === undefined || v === null || v === false) return false;
    return !((action === "url" || action === "callback_data") && v === "");
  });

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** A button URL: http(s) link or a path inside the service, up to 512 characters. */
/** A MenuButton (setChatMenuButton): `commands`, `default`, or `web_app` with text and an https URL. */
export function parseMenuButton(raw: unknown): MenuButtonValue {
  if (raw === undefined || raw === null) return { type: "default" };
  if (!isObject(raw)) throw badRequest("can't parse menu button: object expected");
  if (raw.type === "commands" || raw.type === "default") return { type: raw.type };
  if (raw.type !== "web_app") throw badRequest("can't parse menu button: unsupported type");
  if (typeof raw.text !== "string" || raw.text.trim() === "" || raw.text.length > 128)
    throw badRequest("can't parse menu button: text must be 1-128 characters");
  const wa = raw.web_app;
  if (!isObject(wa) || !buttonUrlOk(wa.url, true))
    throw badRequest("BUTTON_URL_INVALID: web_app url must be an https URL");
  return { type: "web_app", text: raw.text, web_app: { url: wa.url as string } };
}

function buttonUrlOk(url: unknown, httpsOnly = false): url is string {
  if (typeof url !== "string" || url.length === 0 || url.length > MAX_URL) return false;
  if (!httpsOnly && url.startsWith("/") && !url.startsWith("//")) return true;
  try {
    const u = new URL(url);
    return httpsOnly
      ? u.protocol === "https:"
      : u.protocol === "https:" || u.protocol === "http:" || u.protocol === "tg:";
  } catch {
    return false;
  }
}

function inlineButton(raw: unknown, allowPay: boolean): InlineButton {
  if (!isObject(raw)) throw badRequest("can't parse inline keyboard button: InlineKeyboardButton must be an Object");
  const text = raw.text;
  if (typeof text !== "string" || text.length === 0)
    throw badRequest("can't parse inline keyboard button: Text must be non-empty");
  if (text.length > MAX_BUTTON_TEXT) throw badRequest("BUTTON_TEXT_TOO_LONG");
  const action = firstAction(raw);
  if (action === undefined)
    throw badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard");
  if (UNSUPPORTED_ACTIONS.has(action))
    throw badRequest("can't parse inline keyboard button: this button type is not supported (no inline mode)");
  const button: InlineButton = { text };
  switch (action) {
    case "callback_data": {
      const data = raw.callback_data;
      if (typeof data !== "string" || data.length === 0 || Buffer.byteLength(data) > MAX_CALLBACK_BYTES)
        throw badRequest("BUTTON_DATA_INVALID");
      button.callback_data = data;
      break;
    }
    case "url":
      if (!buttonUrlOk(raw.url)) throw badRequest("BUTTON_URL_INVALID");
      button.url = raw.url as string;
      break;
    case "web_app": {
      const wa = raw.web_app;
      if (!isObject(wa) || !buttonUrlOk(wa.url, true))
        throw badRequest("BUTTON_URL_INVALID: web_app url must be an https URL");
      button.web_app = { url: wa.url as string };
      break;
    }
    case "copy_text": {
      const ct = raw.copy_text;
      if (!isObject(ct) || typeof ct.text !== "string" || ct.text.length === 0 || ct.text.length > 256)
        throw badRequest("can't parse inline keyboard button: copy_text must have 1-256 characters of text");
      button.copy_text = { text: ct.text };
      break;
    }
    case "switch_inline_query_current_chat":
      if (typeof raw.switch_inline_query_current_chat !== "string" || raw.switch_inline_query_current_chat.length > 256)
        throw badRequest("can't parse inline keyboard button: switch_inline_query_current_chat must be a String");
      button.switch_inline_query_current_chat = raw.switch_inline_query_current_chat;
      break;
    case "pay":
      if (!allowPay) throw badRequest("can't parse inline keyboard button: pay buttons are only allowed in invoices");
      button.pay = true;
      break;
  }
  return button;
}

function rows<T>(raw: unknown, name: string, cell: (v: unknown) => T): T[][] {
  if (!Array.isArray(raw)) throw badRequest(`can't parse reply keyboard markup JSON object: ${name} must be an Array`);
  if (raw.length > MAX_ROWS) throw badRequest(`too many rows in ${name} (maximum ${MAX_ROWS})`);
  return raw.map((row) => {
    if (!Array.isArray(row))
      throw badRequest(`can't parse reply keyboard markup JSON object: ${name} rows must be Arrays`);
    if (row.length > MAX_BUTTONS_PER_ROW)
      throw badRequest(`too many buttons in a row of ${name} (maximum ${MAX_BUTTONS_PER_ROW})`);
    return row.map(cell);
  });
}

/**
 * Validates `reply_markup`: an inline keyboard, a reply keyboard, ReplyKeyboardRemove or
 * ForceReply. Returns the normalized markup; undefined when absent; null when explicitly null.
 */
export function parseReplyMarkup(
  raw: unknown,
  opts: { allowPay?: boolean } = {},
): Record<string, unknown> | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === null) return null;
  if (!isObject(raw)) throw badRequest("can't parse reply keyboard markup JSON object");
  if (raw.inline_keyboard !== undefined) {
    return {
      inline_keyboard: rows(raw.inline_keyboard, "inline_keyboard", (b) => inlineButton(b, opts.allowPay === true)),
    };
  }
  if (raw.keyboard !== undefined) {
    const keyboard = rows(raw.keyboard, "keyboard", (b) => {
      const text = typeof b === "string" ? b : isObject(b) && typeof b.text === "string" ? b.text : null;
      if (text === null || text.length === 0 || text.length > MAX_BUTTON_TEXT)
        throw badRequest("can't parse keyboard button: Text must be 1-128 characters");
      return { text };
    });
    const out: Record<string, unknown> = { keyboard };
    for (const k of ["resize_keyboard", "one_time_keyboard", "is_persistent", "selective"] as const)
      if (raw[k] === true) out[k] = true;
    if (typeof raw.input_field_placeholder === "string")
      out.input_field_placeholder = raw.input_field_placeholder.slice(0, 64);
    return out;
  }
  if (raw.remove_keyboard === true) return { remove_keyboard: true };
  if (raw.force_reply === true) {
    const out: Record<string, unknown> = { force_reply: true };
    if (typeof raw.input_field_placeholder === "string")
      out.input_field_placeholder = raw.input_field_placeholder.slice(0, 64);
    return out;
  }
  throw badRequest("can't parse reply keyboard markup JSON object");
}
