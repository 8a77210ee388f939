import { textTokens } from "../../lib/text-tokens";

/** Post and comment text with mentions, hashtags and links as links; everything else as plain text. */
export function RichText({ text }: { text: string }) {
  const parts = textTokens(text).map(({ kind, text: token }) =>
    kind === "mention" ? (
      <a href={`/users/${token.slice(1)}`}>{token}</a>
    ) : kind === "hashtag" ? (
      <a href={`/tags/${encodeURIComponent(token.slice(1).toLowerCase())}`}>{token}</a>
    ) : kind === "link" ? (
      <a href={token} rel="noopener noreferrer nofollow" target="_blank">
        {token}
      </a>
    ) : (
      token
    ),
  );
  return <p class="rich-text">{parts}</p>;
}
