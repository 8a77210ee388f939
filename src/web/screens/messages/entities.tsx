import type { ComponentChildren } from "preact";
import { t } from "../../lib/i18n";
import { useState } from "preact/hooks";
import { botLinkTarget } from "./bot-links";
import { textTokens } from "../../lib/text-tokens";
import type { MessageEntity } from "../../lib/types";

/**
 * Message text with its entities (Bot API types; offsets and lengths in UTF-16 units, as JS
 * strings count). Nested entities nest. Plain stretches still get mentions, hashtags, bot
 * commands and links recognised, since people's messages arrive without entities.
 */
export function MessageText({
  text,
  entities,
  onCommand,
}: {
  text: string;
  entities: MessageEntity[];
  onCommand?: (command: string) => void;
}) {
  const sorted = [...entities]
    .filter((e) => e.length > 0 && e.offset >= 0 && e.offset + e.length <= text.length)
    .sort((a, b) => a.offset - b.offset || b.length - a.length);
  return <>{renderRange(text, sorted, 0, text.length, onCommand)}</>;
}

function renderRange(
  text: string,
  entities: MessageEntity[],
  from: number,
  to: number,
  onCommand?: (c: string) => void,
): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let at = from;
  let i = 0;
  while (i < entities.length) {
    const e = entities[i]!;
    if (e.offset < at) {
      i++;
      continue;
    }
    if (e.offset >= to) break;
    if (e.offset > at) out.push(...autoLinks(text.slice(at, e.offset), onCommand));
    const end = Math.min(e.offset + e.length, to);
    // entities inside this one (they start within it)
    const inner: MessageEntity[] = [];
    let j = i + 1;
    while (j < entities.length && entities[j]!.offset < end) inner.push(entities[j++]!);
    out.push(
      <Entity entity={e} text={text.slice(e.offset, end)} onCommand={onCommand}>
        {renderRange(text, inner, e.offset, end, onCommand)}
      </Entity>,
    );
    at = end;
    i = j;
  }
  if (at < to) out.push(...autoLinks(text.slice(at, to), onCommand));
  return out;
}

function Entity({
  entity,
  text,
  children,
  onCommand,
}: {
  entity: MessageEntity;
  text: string;
  children: ComponentChildren;
  onCommand?: (c: string) => void;
}) {
  switch (entity.type) {
    case "bold":
      return <strong>{children}</strong>;
    case "italic":
      return <em>{children}</em>;
    case "underline":
      return <u>{children}</u>;
    case "strikethrough":
      return <s>{children}</s>;
    case "spoiler":
      return <Spoiler>{children}</Spoiler>;
    case "code":
      return <code>{children}</code>;
    case "pre":
      return (
        <pre class="msg-pre" data-language={entity.language || undefined}>
          {entity.language && <span class="pre-lang">{entity.language}</span>}
          <code>{text}</code>
        </pre>
      );
    case "blockquote":
    case "expandable_blockquote":
      return <blockquote>{children}</blockquote>;
    case "text_link":
      return <ExternalLink href={entity.url ?? "#"}>{children}</ExternalLink>;
    case "url":
      return <ExternalLink href={/^https?:\/\//i.test(text) ? text : `https://${text}`}>{children}</ExternalLink>;
    case "email":
      return <a href={`mailto:${text}`}>{children}</a>;
    case "mention":
      return <a href={`/dashboard/messages?user=${encodeURIComponent(text.slice(1))}`}>{children}</a>;
    case "text_mention":
      return entity.user?.username ? (
        <a href={`/dashboard/messages?user=${encodeURIComponent(entity.user.username)}`}>{children}</a>
      ) : (
        <span>{children}</span>
      );
    case "hashtag":
      return <a href={`/tags/${encodeURIComponent(text.slice(1).toLowerCase())}`}>{children}</a>;
    case "bot_command":
      return <CommandLink command={text} onCommand={onCommand} />;
    default:
      return <>{children}</>;
  }
}

function ExternalLink({ href, children }: { href: string; children: ComponentChildren }) {
  const safe = /^(https?:|mailto:|tg:)/i.test(href) ? href : "#";
  // a sign-in page of this site (the QR approval) is never opened from a message's link
  if (safe !== "#" && botLinkTarget(safe, location.origin).kind === "refused")
    return <span title={t("messages.entities.signInLink")}>{children}</span>;
  return (
    <a href={safe} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  );
}

function CommandLink({ command, onCommand }: { command: string; onCommand?: (c: string) => void }) {
  if (!onCommand) return <span class="bot-command">{command}</span>;
  return (
    <button type="button" class="link-like bot-command" onClick={() => onCommand(command)}>
      {command}
    </button>
  );
}

/** Hidden text until tapped; a screen reader hears that it is hidden, not the text. */
function Spoiler({ children }: { children: ComponentChildren }) {
  const [shown, setShown] = useState(false);
  if (shown) return <span class="spoiler shown">{children}</span>;
  return (
    <button type="button" class="spoiler" onClick={() => setShown(true)} aria-label={t("messages.entities.spoiler")}>
      <span aria-hidden="true">{children}</span>
    </button>
  );
}

function autoLinks(text: string, onCommand?: (c: string) => void): ComponentChildren[] {
  return textTokens(text, { commands: true }).map(({ kind, text: token }) =>
    kind === "command" ? (
      <CommandLink command={token} onCommand={onCommand} />
    ) : kind === "mention" ? (
      <a href={`/dashboard/messages?user=${encodeURIComponent(token.slice(1))}`}>{token}</a>
    ) : kind === "hashtag" ? (
      <a href={`/tags/${encodeURIComponent(token.slice(1).toLowerCase())}`}>{token}</a>
    ) : kind === "link" ? (
      <ExternalLink href={token}>{token}</ExternalLink>
    ) : (
      token
    ),
  );
}
