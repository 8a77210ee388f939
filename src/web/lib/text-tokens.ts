import { BEFORE_HASHTAG, BEFORE_MENTION, HASHTAG_CHAR, USERNAME_CHAR } from "../../lib/mention-syntax";

/** A stretch of a post's or message's text: plain, or something the app shows as a link. */
export interface TextToken {
  kind: "text" | "command" | "mention" | "hashtag" | "link";
  text: string;
}

// the mention and the hashtag as the server links them (src/lib/mention-syntax.ts): not inside
// an e-mail address or a URL's fragment, a username of 3 to 32 characters, a tag with a letter
const MENTION = `(^|${BEFORE_MENTION})(@${USERNAME_CHAR}{3,32})(?!${USERNAME_CHAR})`;
const HASHTAG = `(^|${BEFORE_HASHTAG})(#${HASHTAG_CHAR}*\\p{L}${HASHTAG_CHAR}*)`;
const LINK = `(https?:\\/\\/[^\\s<]+[^\\s<.,:;"')\\]])`;
// a bot command at the start or after a space: /start, /help@some_bot
const COMMAND = `(^|\\s)(\\/${USERNAME_CHAR}{1,32}(?:@${USERNAME_CHAR}{3,32})?)(?!${USERNAME_CHAR})`;

const WITHOUT_COMMANDS = new RegExp(`${LINK}|${MENTION}|${HASHTAG}`, "gu");
const WITH_COMMANDS = new RegExp(`${LINK}|${COMMAND}|${MENTION}|${HASHTAG}`, "gu");

/**
 * TEXT cut into plain stretches and the mentions, hashtags and web links in it (and, in a
 * chat, bot commands), in order; the character before a mention or a tag stays in the text.
 */
export function textTokens(text: string, opts: { commands?: boolean } = {}): TextToken[] {
  const tokens: TextToken[] = [];
  const pattern = opts.commands ? WITH_COMMANDS : WITHOUT_COMMANDS;
  const kinds: TextToken["kind"][] = opts.commands ? ["command", "mention", "hashtag"] : ["mention", "hashtag"];
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    let kind: TextToken["kind"] = "link";
    let found = m[1];
    let at = m.index!;
    for (let i = 0; !found && i < kinds.length; i++) {
      const lead = m[2 + 2 * i];
      if (m[3 + 2 * i] === undefined) continue;
      kind = kinds[i]!;
      found = m[3 + 2 * i];
      at += lead!.length;
    }
    if (at > last) tokens.push({ kind: "text", text: text.slice(last, at) });
    tokens.push({ kind, text: found! });
    last = at + found!.length;
  }
  if (last < text.length) tokens.push({ kind: "text", text: text.slice(last) });
  return tokens;
}
