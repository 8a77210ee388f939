import { excerpt } from "../lib/highlight";

/** The part of TEXT around the words of search Q, each word found marked (read out as "highlighted" by screen readers that support mark). */
export function Excerpt({ text, q, max }: { text: string; q: string; max?: number }) {
  return <>{excerpt(text, q, max).map((piece, i) => (piece.hit ? <mark key={i}>{piece.text}</mark> : piece.text))}</>;
}
