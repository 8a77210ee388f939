import type { PreviewChoice } from "../domain/links/preview";
import { firstLink } from "../lib/links";
import type { BotContext } from "./context";
import { badRequest } from "./errors";

/** The LinkPreviewOptions fields a bot may give, as the compatible API names them. */
const FLAGS = ["is_disabled", "prefer_small_media", "prefer_large_media", "show_above_text"] as const;

export type LinkPreviewOptions = Partial<Record<(typeof FLAGS)[number], boolean>> & { url?: string };

/**
 * How a sendMessage or editMessageText asks for its link preview: link_preview_options, or the
 * older disable_web_page_preview (libraries still send it). is_disabled removes the preview
 * people see; url previews that link instead of the text's first. The options are kept as
 * given and answered back in the Message, as the compatible API does. Undefined when the bot
 * says nothing of it.
 */
export function linkPreviewChoice(ctx: BotContext): PreviewChoice | undefined {
  const raw = ctx.params.json("link_preview_options");
  const legacy = ctx.params.bool("disable_web_page_preview");
  if (raw === undefined || raw === null) return legacy ? { off: true, options: { is_disabled: true } } : undefined;
  if (typeof raw !== "object" || Array.isArray(raw)) throw badRequest("can't parse link preview options");
  const given = raw as Record<string, unknown>;
  const options: LinkPreviewOptions = {};
  for (const flag of FLAGS) {
    const value = given[flag];
    if (value === undefined) continue;
    if (typeof value !== "boolean") throw badRequest(`field "${flag}" must be of type Boolean`);
    options[flag] = value;
  }
  if (given.url !== undefined) {
    if (typeof given.url !== "string") throw badRequest('field "url" must be of type String');
    options.url = given.url;
  }
  if (legacy && options.is_disabled === undefined) options.is_disabled = true;
  // a url that is no http(s) link previews nothing: the text's own link stays the one
  const url = options.url ? (firstLink(options.url) ?? undefined) : undefined;
  return { off: options.is_disabled === true, ...(url ? { url } : {}), options };
}
