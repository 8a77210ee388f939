/** Shared pieces of the markdown parsers. */

/** Whitespace as the compatible API's parsers see it; the end of the input counts as whitespace. */
export const isSpace = (char: string | undefined) =>
  char === undefined || char === " " || char === "\t" || char === "\r" || char === "\n" || char === "\v";

/**
 * Reads what follows a pre block's opening ``` at `from`: an optional language (a word followed by
 * whitespace) and one line break (\n, \r, \r\n or \n\r) that is not part of the text. Returns the
 * language and the index of the block's first character.
 */
export function readPreOpening(input: string, from: number): { language?: string; start: number } {
  let i = from;
  let language: string | undefined;
  let languageEnd = i;
  while (!isSpace(input[languageEnd]) && input[languageEnd] !== "`") languageEnd++;
  if (languageEnd !== i && languageEnd < input.length && input[languageEnd] !== "`") {
    language = input.slice(i, languageEnd);
    i = languageEnd;
  }
  if (input[i] === "\n" || input[i] === "\r") {
    const pair = (input[i + 1] === "\n" || input[i + 1] === "\r") && input[i] !== input[i + 1];
    i += pair ? 2 : 1;
  }
  return { language, start: i };
}
