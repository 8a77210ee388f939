/*
 * The inline buttons a bot put under its message, as stored in messages.reply_markup (the
 * compatible API's inline_keyboard, checked by the Bot API when the bot sent it).
 */

export interface InlineButton {
  text: string;
  callback_data?: string;
  url?: string;
  web_app?: { url: string };
  copy_text?: { text: string };
  switch_inline_query_current_chat?: string;
  pay?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** The inline buttons of stored markup, flattened. */
export function inlineButtons(markup: unknown): InlineButton[] {
  if (!isObject(markup) || !Array.isArray(markup.inline_keyboard)) return [];
  return (markup.inline_keyboard as unknown[]).flatMap((row) => (Array.isArray(row) ? (row as InlineButton[]) : []));
}
