import { BEFORE_HASHTAG, BEFORE_MENTION, HASHTAG_CHAR, USERNAME_CHAR } from "../../lib/mention-syntax";

/**
 * What a post's or comment's text refers to: @mentions (usernames) and #hashtags.
 * A mention or hashtag starts at the beginning or after a character that cannot be part
 * of a word, so e-mail addresses and URL fragments are not taken for them.
 */
const MENTION_RE = new RegExp(`(^|${BEFORE_MENTION})@(${USERNAME_CHAR}{3,32})(?!${USERNAME_CHAR})`, "gu");
const HASHTAG_RE = new RegExp(`(^|${BEFORE_HASHTAG})#(${HASHTAG_CHAR}*\\p{L}${HASHTAG_CHAR}*)`, "gu");
export const MAX_HASHTAG_LENGTH = 64;

/** Lower-cased usernames mentioned in TEXT, each once, in order of appearance. */
export function parseMentions(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(MENTION_RE)) out.add(m[2]!.toLowerCase());
  return [...out];
}

/** Lower-cased hashtags (without #) in TEXT, each once; over-long tags are left out. */
export function parseHashtags(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(HASHTAG_RE)) {
    const tag = normalizeHashtag(m[2]!);
    if (tag.length <= MAX_HASHTAG_LENGTH) out.add(tag);
  }
  return [...out];
}

/** The stored form of a hashtag: NFC, lower-cased in any script, without a leading #. */
export const normalizeHashtag = (tag: string): string => tag.replace(/^#/, "").normalize("NFC").toLowerCase();

/** Length in characters as a person counts them (code points, so an emoji is one). */
export const charCount = (text: string): number => [...text].length;
