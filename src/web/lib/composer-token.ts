import { BEFORE_HASHTAG, BEFORE_MENTION, HASHTAG_CHAR, USERNAME_CHAR } from "../../lib/mention-syntax";

/** The @mention or #hashtag being typed at the caret: what to search for and the stretch a pick replaces. */
export interface CaretToken {
  kind: "mention" | "hashtag";
  /** the characters after @ or # up to the caret (never empty) */
  query: string;
  /** where the @ or # is */
  start: number;
  /** the end of the word, which may run on past the caret */
  end: number;
}

/** Longest username: a longer run after @ is no username being typed. */
const MAX_USERNAME_LENGTH = 32;
const MAX_HASHTAG_LENGTH = 64;

// anchored at the caret: the sign after a boundary, then the word's characters typed so far
const MENTION_BEFORE_CARET = new RegExp(`(?:^|${BEFORE_MENTION})@(${USERNAME_CHAR}{1,${MAX_USERNAME_LENGTH}})$`, "u");
const HASHTAG_BEFORE_CARET = new RegExp(`(?:^|${BEFORE_HASHTAG})#(${HASHTAG_CHAR}{1,${MAX_HASHTAG_LENGTH}})$`, "u");
const MENTION_REST = new RegExp(`^${USERNAME_CHAR}*`, "u");
const HASHTAG_REST = new RegExp(`^${HASHTAG_CHAR}*`, "u");

/** The mention or hashtag the caret is in (or right after), under the same rules the server links them by; null elsewhere. */
export function tokenAtCaret(text: string, caret: number): CaretToken | null {
  const before = text.slice(0, caret);
  for (const [kind, pattern, rest] of [
    ["mention", MENTION_BEFORE_CARET, MENTION_REST],
    ["hashtag", HASHTAG_BEFORE_CARET, HASHTAG_REST],
  ] as const) {
    const m = pattern.exec(before);
    if (!m) continue;
    const query = m[1]!;
    const start = caret - query.length - 1;
    const end = caret + rest.exec(text.slice(caret))![0].length;
    return { kind, query, start, end };
  }
  return null;
}

/**
 * TEXT with TOKEN's word replaced by the pick (`@username ` or `#tag `) and where the caret goes:
 * after the pick and one space (an existing space after the word is reused, not doubled).
 */
export function insertPick(text: string, token: CaretToken, value: string): { text: string; caret: number } {
  const sign = token.kind === "mention" ? "@" : "#";
  const after = text.slice(token.end);
  const spaced = /^\s/.test(after) ? after : ` ${after}`;
  const next = `${text.slice(0, token.start)}${sign}${value}${spaced}`;
  return { text: next, caret: token.start + sign.length + value.length + 1 };
}

/**
 * Usernames in free text typed into a people field ("@ann, bob carl"): separated by commas
 * or spaces, a leading @ dropped, each once (usernames differ by more than case).
 */
export function usernamesIn(text: string): string[] {
  const byLower = new Map<string, string>();
  for (const word of text.split(/[\s,;]+/)) {
    const name = word.replace(/^@/, "");
    if (name && !byLower.has(name.toLowerCase())) byLower.set(name.toLowerCase(), name);
  }
  return [...byLower.values()];
}
