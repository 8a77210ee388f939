import { Fragment, type ComponentChildren } from "preact";

/**
 * A translated sentence with elements inside (a link, a bold name): TEXT is the catalog's text
 * with its `{{name}}` places left open (t() leaves a value it was not given in place), and
 * each is filled with PARTS[name], so the words around an element stay one text to translate.
 */
export function Sentence({ text, parts }: { text: string; parts: Record<string, ComponentChildren> }) {
  const pieces = text.split(/\{\{\s*(\w+)\s*\}\}/);
  return (
    <>
      {pieces.map((piece, i) => (i % 2 === 0 ? piece : <Fragment key={i}>{parts[piece] ?? `{{${piece}}}`}</Fragment>))}
    </>
  );
}
