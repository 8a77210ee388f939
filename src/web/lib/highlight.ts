/**
 * Where a search's words are in a found text, for showing them marked: the words are matched as
 * the search index matches them (case, Latin diacritics and ё/е aside), each at the start of a
 * word (an emoji anywhere), as a prefix (a search's last word finds words it starts, and a
 * longer word holding an exact one reads as found too).
 */

/** A run of text, found or not. */
export interface Piece {
  text: string;
  hit: boolean;
}

/** The search box's words, as the server splits them. */
export function searchWords(q: string): string[] {
  return q
    .split(/[\s"*^:()+\-,.;!?]+/u)
    .map((w) => fold(w).text)
    .filter((w) => w.length > 0);
}

/** TEXT lower-cased without Latin diacritics (ё as е), with the index in TEXT of each folded character. */
function fold(text: string): { text: string; at: number[] } {
  let out = "";
  const at: number[] = [];
  let i = 0;
  for (const ch of text) {
    const folded = ch
      .normalize("NFD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase()
      .replace(/ё/g, "е");
    // a character that folds to nothing (a lone mark) keeps itself, so indexes stay in step
    const piece = folded || ch;
    for (let k = 0; k < piece.length; k++) at.push(i);
    out += piece;
    i += ch.length;
  }
  at.push(i);
  return { text: out, at };
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

/** The [start, end) ranges of TEXT where one of WORDS starts a word, in order, not overlapping. */
export function findWords(text: string, words: string[]): Array<[number, number]> {
  if (!words.length) return [];
  const folded = fold(text);
  const ranges: Array<[number, number]> = [];
  const longestFirst = [...words].sort((a, b) => b.length - a.length);
  let i = 0;
  while (i < folded.text.length) {
    const startsWord = i === 0 || !WORD_CHAR.test(folded.text[i - 1]!);
    // an emoji is a word of its own to the index, wherever it stands
    const word = longestFirst.find((w) => folded.text.startsWith(w, i) && (startsWord || !WORD_CHAR.test(w.charAt(0))));
    if (word) {
      ranges.push([folded.at[i]!, folded.at[i + word.length]!]);
      i += word.length;
    } else i++;
  }
  return ranges;
}

/**
 * At most about MAX characters of TEXT around the first place Q's words are found, cut at
 * spaces, with "…" where text was left out, as pieces marking each word found.
 */
export function excerpt(text: string, q: string, max = 160): Piece[] {
  const ranges = findWords(text, searchWords(q));
  let from = 0;
  let to = text.length;
  if (text.length > max) {
    const first = ranges[0]?.[0] ?? 0;
    from = Math.max(0, Math.min(first - Math.floor(max / 3), text.length - max));
    to = Math.min(text.length, from + max);
    if (from > 0) {
      const space = text.indexOf(" ", from);
      if (space >= 0 && space < first) from = space + 1;
    }
    if (to < text.length) {
      const space = text.lastIndexOf(" ", to);
      if (space > from && space > (ranges[0]?.[1] ?? 0)) to = space;
    }
  }
  const pieces: Piece[] = [];
  const push = (piece: string, hit: boolean) => piece && pieces.push({ text: piece, hit });
  if (from > 0) push("…", false);
  let at = from;
  for (const [start, end] of ranges) {
    if (end <= from || start >= to) continue;
    push(text.slice(at, Math.max(at, start)), false);
    push(text.slice(Math.max(at, start), Math.min(end, to)), true);
    at = Math.min(end, to);
  }
  push(text.slice(at, to), false);
  if (to < text.length) push("…", false);
  return pieces;
}
