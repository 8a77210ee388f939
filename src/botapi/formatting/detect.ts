import { sortEntities } from "./normalize.ts";
import type { MessageEntity } from "./types.ts";

// Top-level domains a link without a scheme must end in to be taken for one ("file.txt" is not a link).
const KNOWN_TLDS = new Set(
  (
    "com net org edu gov mil int info biz name pro app dev io ai co me tv cc ly gg to fm sh so xyz online site " +
    "tech store blog cloud page link live news shop club space website email social chat " +
    "ru de uk fr it es nl eu us ca au jp cn in br mx ar pl ch se no fi dk at be cz sk ua kz by su il tr gr pt ie " +
    "nz za kr tw hk sg my id th vn ph ro hu bg rs hr si lt lv ee is lu md ge am az uz рф укр бел"
  ).split(" "),
);

const isLetter = (char: string) => /\p{L}/u.test(char);
const isWordChar = (char: string) => /[\p{L}\p{Nd}\p{N}_]/u.test(char);
const isHashtagChar = (char: string) => {
  const code = char.codePointAt(0)!;
  return /[\p{L}\p{Nd}_\u200c\u00b7]/u.test(char) || (code >= 0xd80 && code <= 0xdff);
};
const isAsciiWord = (char: string | undefined) => char !== undefined && /[A-Za-z0-9_]/.test(char);

/** The code point ending right before UTF-16 index `i` ("" at the start). */
function charBefore(text: string, i: number): string {
  if (i <= 0) return "";
  const low = text.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const high = text.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(i - 2, i);
  }
  return text[i - 1]!;
}
/** The code point starting at UTF-16 index `i` ("" at the end). */
const charAt = (text: string, i: number) => (i < text.length ? String.fromCodePoint(text.codePointAt(i)!) : "");

function asciiRunEnd(text: string, from: number): number {
  let i = from;
  while (isAsciiWord(text[i])) i++;
  return i;
}

function findMentions(text: string, found: MessageEntity[]) {
  for (let at = text.indexOf("@"); at >= 0; at = text.indexOf("@", at + 1)) {
    const before = charBefore(text, at);
    if (before && isWordChar(before)) continue;
    const end = asciiRunEnd(text, at + 1);
    const size = end - at - 1;
    const after = charAt(text, end);
    if (size < 3 || size > 32 || (after && isWordChar(after))) continue;
    found.push({ type: "mention", offset: at, length: end - at });
  }
}

function findBotCommands(text: string, found: MessageEntity[]) {
  const blocked = (char: string) => (char !== "" && isWordChar(char)) || char === "/" || char === "<" || char === ">";
  for (let at = text.indexOf("/"); at >= 0; at = text.indexOf("/", at + 1)) {
    if (blocked(charBefore(text, at))) continue;
    let end = asciiRunEnd(text, at + 1);
    if (end - at - 1 < 1 || end - at - 1 > 64) continue;
    if (text[end] === "@") {
      const botEnd = asciiRunEnd(text, end + 1);
      if (botEnd - end - 1 < 3 || botEnd - end - 1 > 32) continue;
      end = botEnd;
    }
    if (blocked(charAt(text, end))) continue;
    found.push({ type: "bot_command", offset: at, length: end - at });
  }
}

function findHashtags(text: string, found: MessageEntity[]) {
  for (let at = text.indexOf("#"); at >= 0; at = text.indexOf("#", at + 1)) {
    const before = charBefore(text, at);
    if (before && isHashtagChar(before)) continue;
    let i = at + 1;
    let count = 0;
    let end = i;
    let hasLetter = false;
    for (let char = charAt(text, i); char && isHashtagChar(char); char = charAt(text, i)) {
      i += char.length;
      if (count < 256) {
        hasLetter ||= isLetter(char);
        count++;
        end = i;
      }
    }
    if (count === 0 || text[i] === "#" || !hasLetter) continue;
    found.push({ type: "hashtag", offset: at, length: end - at });
  }
}

function findCashtags(text: string, found: MessageEntity[]) {
  for (let at = text.indexOf("$"); at >= 0; at = text.indexOf("$", at + 1)) {
    const before = charBefore(text, at);
    if (before && (isHashtagChar(before) || before === "$")) continue;
    let end = at + 1;
    if (text.startsWith("1INCH", end)) end += 5;
    else while (end < text.length && end - at <= 9 && text[end]! >= "A" && text[end]! <= "Z") end++;
    const size = end - at - 1;
    const after = charAt(text, end);
    if (size < 1 || size > 8 || (after && (isHashtagChar(after) || after === "$"))) continue;
    found.push({ type: "cashtag", offset: at, length: end - at });
  }
}

const LABEL = "[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]{0,61}[\\p{L}\\p{N}])?";
const HOST = `(?:${LABEL}\\.)+(\\p{L}{2,24}|xn--[a-z0-9-]{1,59})`;
// Each starts only where a word does (the lookbehind), which keeps long runs of letters linear.
const URL_RE = new RegExp(
  `(?<![\\p{L}\\p{N}_@.\\/:-])(?:(https?|ftp|tg|ton)://)?(${HOST}|\\d{1,3}(?:\\.\\d{1,3}){3})(?::\\d{1,5})?(?:[/?#][^\\s<>"]*)?`,
  "giu",
);
const TG_URL_RE = /\b(tg|ton):\/\/[A-Za-z0-9_-]+(?:[/?#][^\s<>"]*)?/gi;
const EMAIL_RE = new RegExp(`(?<![\\p{L}\\p{N}_.%+-])[A-Za-z0-9._%+-]+@${HOST}`, "giu");

/** Drops punctuation that ends a sentence rather than a link (keeps a `)` that closes a `(` in it). */
function trimLinkEnd(link: string): string {
  let end = link.length;
  let unbalanced = (link.match(/\)/g)?.length ?? 0) - (link.match(/\(/g)?.length ?? 0);
  for (;;) {
    const last = link[end - 1];
    if (last && ".,;:!?'\"»…".includes(last)) end--;
    else if (last === ")" && unbalanced > 0) {
      end--;
      unbalanced--;
    } else return link.slice(0, end);
  }
}

function findLinks(text: string, found: MessageEntity[]) {
  for (const match of text.matchAll(EMAIL_RE)) {
    if (match[0].startsWith(".") || match[0].includes("..") || match[0].split("@")[0]!.endsWith(".")) continue;
    found.push({ type: "email", offset: match.index, length: match[0].length });
  }
  for (const match of text.matchAll(TG_URL_RE)) {
    found.push({ type: "url", offset: match.index, length: trimLinkEnd(match[0]).length });
  }
  for (const match of text.matchAll(URL_RE)) {
    const scheme = match[1];
    const tld = match[3]?.toLowerCase();
    // Without a scheme only a known top-level domain makes a link (no bare IPs, no "file.txt").
    if (scheme === undefined && (tld === undefined || !KNOWN_TLDS.has(tld))) continue;
    if (scheme && /^(tg|ton)$/i.test(scheme)) continue;
    found.push({ type: "url", offset: match.index, length: trimLinkEnd(match[0]).length });
  }
}

/**
 * Entities the compatible API finds in any message text by itself: mention (`@name`),
 * bot_command (`/cmd`, `/cmd@some_bot`), hashtag, cashtag, url and email. Sorted; where two
 * overlap, the one starting first (then the longer) wins.
 */
export function detectEntities(text: string): MessageEntity[] {
  const found: MessageEntity[] = [];
  findMentions(text, found);
  findBotCommands(text, found);
  findHashtags(text, found);
  findCashtags(text, found);
  findLinks(text, found);
  const kept: MessageEntity[] = [];
  let keptEnd = 0;
  for (const entity of sortEntities(found)) {
    if (entity.length === 0 || entity.offset < keptEnd) continue;
    kept.push(entity);
    keptEnd = entity.offset + entity.length;
  }
  return kept;
}
