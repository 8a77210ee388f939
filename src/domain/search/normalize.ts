/**
 * Text preparation shared by indexing and querying, so both sides tokenise alike:
 * every emoji becomes a token of its own (skin tones and presentation selectors
 * dropped, so 👍🏽 finds 👍), text is NFC, and ё is е (as Russian readers expect; the
 * tokenizer's diacritics folding covers Latin only).
 */
const EMOJI_RE = /\p{Extended_Pictographic}/gu;
const EMOJI_NOISE_RE = /[\p{Emoji_Modifier}\u{FE0E}\u{FE0F}\u{200D}]/gu;

export function normalizeSearchText(text: string): string {
  return text
    .normalize("NFC")
    .replace(/ё/g, "е")
    .replace(/Ё/g, "Е")
    .replace(EMOJI_NOISE_RE, "")
    .replace(EMOJI_RE, " $& ");
}

/** Splits a search box input into FTS terms (non-empty, at most 16). */
export function searchTerms(q: string): string[] {
  return normalizeSearchText(q)
    .split(/[\s"*^:()+\-,.;!?]+/u)
    .map((t) => t.trim())
    .filter((t) => t.length > 0)
    .slice(0, 16);
}

/**
 * An FTS5 MATCH expression: every term quoted (no operator injection), all required,
 * the last one a prefix so results appear while typing.
 */
export function ftsQuery(terms: string[]): string {
  return terms.map((t, i) => `"${t.replace(/"/g, '""')}"${i === terms.length - 1 ? "*" : ""}`).join(" ");
}
