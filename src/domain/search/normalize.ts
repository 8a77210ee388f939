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

/*
 * PostgreSQL's text-search parser drops emoji and depends on the server's locale, so on
 * PostgreSQL the lexemes are made here, by the rules of the SQLite index (unicode61 with
 * categories L* N* Co So Sk, Latin diacritics removed, case folded), and handed over as
 * tsvector / tsquery text, which PostgreSQL takes literally.
 */
const TOKEN_RE = /[\p{L}\p{N}\p{M}\p{Co}\p{So}\p{Sk}]+/gu;

/** The index's tokens of TEXT (already normalizeSearchText'd): lower case, Latin letters without diacritics. */
export function searchTokens(text: string): string[] {
  return (text.match(TOKEN_RE) ?? []).map((t) =>
    t
      .toLowerCase()
      .normalize("NFD")
      .replace(/(\p{Script=Latin})\p{M}+/gu, "$1")
      .normalize("NFC"),
  );
}

/** A lexeme quoted for tsvector / tsquery input. */
const quoteLexeme = (t: string) => `'${t.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;

/** tsvector text of TEXT: every lexeme with its positions (ranking counts them, phrases need them). */
export function tsvectorText(text: string): string {
  const positions = new Map<string, number[]>();
  searchTokens(normalizeSearchText(text)).forEach((t, i) => {
    // tsvector positions stop at 16383
    const at = Math.min(i + 1, 16383);
    const list = positions.get(t);
    if (list) list.push(at);
    else positions.set(t, [at]);
  });
  return [...positions].map(([t, at]) => `${quoteLexeme(t)}:${at.join(",")}`).join(" ");
}

/**
 * tsquery text doing what ftsQuery does on SQLite: every term required, a term of several
 * tokens a phrase, the last token a prefix. Null when no term has a token (nothing matches).
 */
export function tsqueryText(terms: string[]): string | null {
  const phrases = terms.map((term) => searchTokens(term)).filter((tokens) => tokens.length > 0);
  if (!phrases.length) return null;
  return phrases
    .map((tokens, i) =>
      tokens
        .map((t, j) => quoteLexeme(t) + (i === phrases.length - 1 && j === tokens.length - 1 ? ":*" : ""))
        .join(" <-> "),
    )
    .join(" & ");
}
