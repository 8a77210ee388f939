import { expect } from "bun:test";
import { FormattingError, parseFormatted, type MessageEntity } from "../botapi/formatting";

/** Parses without auto-detected entities, so a case shows only what its markup made. */
export const parse = (text: string, mode?: string, entities?: unknown) =>
  parseFormatted(text, mode, entities, { detect: false });

/** Asserts that parsing fails with exactly `description`. */
export function expectFailure(run: () => unknown, description: string) {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(FormattingError);
  expect((caught as FormattingError).description).toBe(description);
  expect((caught as FormattingError).message).toBe(description);
}

export const parseFails = (text: string, mode: string, reason: string) =>
  expectFailure(() => parse(text, mode), `Bad Request: can't parse entities: ${reason}`);

export const entity = (type: string, offset: number, length: number, extra: Partial<MessageEntity> = {}) => ({
  type,
  offset,
  length,
  ...extra,
});

/** What the nesting example of the compatible API's documentation gives, in HTML and MarkdownV2 alike. */
export const DOCUMENTED_NESTING = {
  text: "bold italic bold italic bold strikethrough italic bold strikethrough spoiler underline italic bold bold",
  entities: [
    entity("bold", 0, 103),
    entity("italic", 5, 93),
    entity("strikethrough", 17, 59),
    entity("spoiler", 43, 33),
    entity("underline", 77, 21),
  ],
};
