import type { Ref } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { insertPick, tokenAtCaret, type CaretToken } from "../lib/composer-token";
import { useSuggestions, type Suggestion } from "../lib/suggestions";
import { useSuggestionBox } from "./suggestion-list";
import { t } from "../lib/i18n";

export interface ComposerInputProps {
  /** the textarea's id, which its <label for> names */
  id: string;
  value: string;
  onValue: (text: string) => void;
  rows?: number;
  maxLength?: number;
  placeholder?: string;
  inputRef?: Ref<HTMLTextAreaElement>;
  /** keys the suggestions leave alone (a chat sends on Enter) */
  onKeyDown?: (e: KeyboardEvent) => void;
  describedBy?: string;
  invalid?: boolean;
  placement?: "above" | "below";
}

/**
 * The text input of every composer (post, comment, message): typing `@al` offers people and
 * `#ja` hashtags, as a combobox whose list the arrows walk, Enter or Tab (or a click) picks
 * and Escape closes; a pick puts `@username ` or `#tag ` in place of the word.
 */
export function ComposerInput(p: ComposerInputProps) {
  const own = useRef<HTMLTextAreaElement | null>(null);
  const [token, setToken] = useState<CaretToken | null>(null);
  // Escape closes the list until the word changes
  const [dismissed, setDismissed] = useState<string | null>(null);
  const caretAfterPick = useRef<number | null>(null);

  const query = token && dismissed !== `${token.start}:${token.query}` ? token.query : null;
  const items = useSuggestions(token?.kind === "hashtag" ? "hashtags" : "people", query);
  const box = useSuggestionBox({
    items,
    label: token?.kind === "hashtag" ? t("common.suggest.hashtags") : t("common.suggest.people"),
    onPick: pick,
    onClose: () => token && setDismissed(`${token.start}:${token.query}`),
    placement: p.placement,
  });

  useLayoutEffect(() => {
    const el = own.current;
    if (el && caretAfterPick.current !== null) {
      el.setSelectionRange(caretAfterPick.current, caretAfterPick.current);
      caretAfterPick.current = null;
    }
  }, [p.value]);

  function follow(el: HTMLTextAreaElement) {
    const next = el.selectionStart === el.selectionEnd ? tokenAtCaret(el.value, el.selectionStart) : null;
    if (next?.start !== token?.start || next?.query !== token?.query) box.reset();
    setToken(next);
  }

  function pick(s: Suggestion) {
    if (!token) return;
    const { text, caret } = insertPick(p.value, token, s.kind === "person" ? s.user.username : s.tag);
    caretAfterPick.current = caret;
    setToken(null);
    p.onValue(text);
  }

  return (
    <div class="autocomplete">
      <textarea
        ref={(el) => {
          own.current = el;
          if (typeof p.inputRef === "function") p.inputRef(el);
          else if (p.inputRef) p.inputRef.current = el;
        }}
        id={p.id}
        rows={p.rows}
        value={p.value}
        maxLength={p.maxLength}
        placeholder={p.placeholder}
        {...box.inputProps}
        aria-describedby={p.describedBy}
        aria-invalid={p.invalid || undefined}
        onInput={(e) => {
          p.onValue(e.currentTarget.value);
          follow(e.currentTarget);
        }}
        onClick={(e) => follow(e.currentTarget)}
        onKeyUp={(e) => /^(Arrow(Left|Right)|Home|End)$/.test(e.key) && follow(e.currentTarget)}
        onBlur={() => setToken(null)}
        onKeyDown={(e) => box.keyDown(e) || p.onKeyDown?.(e)}
      />
      {box.list}
    </div>
  );
}
