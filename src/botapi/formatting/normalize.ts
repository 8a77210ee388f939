import { CODE_TYPES, QUOTE_TYPES, STYLE_TYPES, type MessageEntity } from "./types.ts";

// Order of entities sharing offset and length, as the compatible API sorts them (TDLib priorities).
const PRIORITY: Record<string, number> = {
  blockquote: 0,
  expandable_blockquote: 0,
  pre: 11,
  code: 20,
  text_link: 49,
  text_mention: 49,
  bold: 90,
  italic: 91,
  underline: 92,
  strikethrough: 93,
  spoiler: 94,
  custom_emoji: 99,
};
const priority = (type: string) => PRIORITY[type] ?? 50;
const end = (entity: MessageEntity) => entity.offset + entity.length;
const crosses = (a: MessageEntity, b: MessageEntity) =>
  (a.offset < b.offset && b.offset < end(a) && end(a) < end(b)) ||
  (b.offset < a.offset && a.offset < end(b) && end(b) < end(a));
const overlaps = (a: MessageEntity, b: MessageEntity) => a.offset < end(b) && b.offset < end(a);
const contains = (outer: MessageEntity, inner: MessageEntity) =>
  outer.offset <= inner.offset && end(inner) <= end(outer);

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** Widens entities whose start or end falls inside a surrogate pair (an emoji) to the whole character. */
export function snapToCharacters(text: string, entities: MessageEntity[]): MessageEntity[] {
  const splits = (at: number) =>
    at > 0 && at < text.length && isHigh(text.charCodeAt(at - 1)) && isLow(text.charCodeAt(at));
  return entities.map((entity) => {
    const start = splits(entity.offset) ? entity.offset - 1 : entity.offset;
    const end = entity.offset + entity.length;
    return { ...entity, offset: start, length: (splits(end) ? end + 1 : end) - start };
  });
}

/** Sorts like the compatible API: by offset, longer first, then by type priority. */
export function sortEntities(entities: MessageEntity[]): MessageEntity[] {
  return entities.sort((a, b) => a.offset - b.offset || b.length - a.length || priority(a.type) - priority(b.type));
}

/** Keeps, in sorted order, each entity that does not overlap one kept before it. */
function keepNonOverlapping(entities: MessageEntity[]): MessageEntity[] {
  const kept: MessageEntity[] = [];
  let keptEnd = 0;
  for (const entity of sortEntities(entities)) {
    if (entity.offset < keptEnd) continue;
    kept.push(entity);
    keptEnd = end(entity);
  }
  return kept;
}

/** Same-type styles that overlap or touch become one entity. */
function mergeStyles(styles: MessageEntity[]): MessageEntity[] {
  const merged: MessageEntity[] = [];
  for (const type of STYLE_TYPES) {
    let last: MessageEntity | undefined;
    for (const entity of sortEntities(styles.filter((style) => style.type === type))) {
      if (last && entity.offset <= end(last)) {
        last.length = Math.max(end(last), end(entity)) - last.offset;
      } else {
        last = { type, offset: entity.offset, length: entity.length };
        merged.push(last);
      }
    }
  }
  return merged;
}

/** First index in `sorted` (disjoint entities by offset) of an entity ending after `offset`. */
export function firstEndingAfter(sorted: MessageEntity[], offset: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (end(sorted[middle]!) > offset) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** Cuts `piece` at the given points that fall strictly inside it. */
function cut(piece: MessageEntity, points: number[]): MessageEntity[] {
  const inside = [...new Set(points.filter((point) => piece.offset < point && point < end(piece)))];
  const bounds = [piece.offset, ...inside.sort((a, b) => a - b), end(piece)];
  const pieces: MessageEntity[] = [];
  for (let i = 1; i < bounds.length; i++) {
    pieces.push({ ...piece, offset: bounds[i - 1]!, length: bounds[i]! - bounds[i - 1]! });
  }
  return pieces;
}

/**
 * Makes entities valid the way the compatible API does before storing a message: empty ones are
 * dropped; blockquotes never nest; other non-style entities never overlap each other and lie
 * inside a blockquote or outside it; styles of one type merge, never cover code or pre and are
 * split where they would cross another entity. The result is sorted, and any two entities are
 * either disjoint or one contains the other.
 */
export function normalizeEntities(entities: MessageEntity[]): MessageEntity[] {
  // most texts carry none: the passes below would still cost their setup each time
  if (entities.length === 0) return [];
  const nonEmpty = entities.filter((entity) => entity.length > 0);
  const quotes = keepNonOverlapping(nonEmpty.filter((entity) => QUOTE_TYPES.has(entity.type)));
  const others = keepNonOverlapping(
    nonEmpty.filter((entity) => !QUOTE_TYPES.has(entity.type) && !STYLE_TYPES.has(entity.type)),
  ).filter((entity) => quotes.every((quote) => !overlaps(quote, entity) || contains(quote, entity)));
  const accepted: MessageEntity[] = [];
  // covering[p]: the accepted entities containing position p. They are nested, so at most one
  // per kind (a quote, another entity, each style): an entity crossing a piece is among those
  // covering the piece's first or last position.
  const covering: MessageEntity[][] = [];
  const accept = (entity: MessageEntity) => {
    accepted.push(entity);
    for (let p = entity.offset; p < end(entity); p++) (covering[p] ??= []).push(entity);
  };
  [...quotes, ...others].forEach(accept);
  const codes = others.filter((entity) => CODE_TYPES.has(entity.type));

  for (const style of sortEntities(mergeStyles(nonEmpty.filter((entity) => STYLE_TYPES.has(entity.type))))) {
    const inside: MessageEntity[] = [];
    for (let i = firstEndingAfter(codes, style.offset); i < codes.length && codes[i]!.offset < end(style); i++) {
      inside.push(codes[i]!);
    }
    const outsideCode = cut(
      style,
      inside.flatMap((code) => [code.offset, end(code)]),
    ).filter((piece) => !inside.some((code) => overlaps(code, piece)));
    for (const piece of outsideCode) {
      const near = [...(covering[piece.offset] ?? []), ...(covering[end(piece) - 1] ?? [])];
      const crossing = near.filter((entity) => crosses(entity, piece));
      cut(
        piece,
        crossing.flatMap((entity) => [entity.offset, end(entity)]),
      ).forEach(accept);
    }
  }
  return sortEntities(accepted);
}
