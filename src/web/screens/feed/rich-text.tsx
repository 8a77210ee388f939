import type { ComponentChildren } from "preact";

// @username (letters, digits, _), #hashtag in any script, and web links
const TOKEN = /(@[A-Za-z0-9_]{1,32})|(#[\p{L}\p{N}_]+)|(https?:\/\/[^\s<]+[^\s<.,:;"')\]])/gu;

/** Post and comment text with mentions, hashtags and links as links; everything else as plain text. */
export function RichText({ text }: { text: string }) {
  const parts: ComponentChildren[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    const at = m.index!;
    if (at > last) parts.push(text.slice(last, at));
    const [whole, mention, tag, link] = m;
    if (mention) parts.push(<a href={`/users/${mention.slice(1)}`}>{mention}</a>);
    else if (tag) parts.push(<a href={`/tags/${encodeURIComponent(tag.slice(1).toLowerCase())}`}>{tag}</a>);
    else if (link)
      parts.push(
        <a href={link} rel="noopener noreferrer nofollow" target="_blank">
          {link}
        </a>,
      );
    else parts.push(whole);
    last = at + whole.length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <p class="rich-text">{parts}</p>;
}
