import { useId, useState } from "preact/hooks";
import { Avatar } from "./avatar";
import { formatCount } from "../lib/format";
import type { Suggestion } from "../lib/suggestions";

const optionId = (listId: string, i: number) => `${listId}-option-${i}`;

/**
 * The popup list of a combobox: the input keeps focus (and points at the active option with
 * aria-activedescendant), so a press on an option must not take the focus away first.
 */
function SuggestionList({
  id,
  label,
  items,
  active,
  onActive,
  onPick,
  placement = "below",
}: {
  id: string;
  label: string;
  items: Suggestion[];
  active: number;
  onActive: (i: number) => void;
  onPick: (s: Suggestion) => void;
  /** above: for an input at the bottom of the screen (a chat's) */
  placement?: "above" | "below";
}) {
  return (
    <ul id={id} role="listbox" aria-label={label} class={`suggestions suggestions-${placement}`}>
      {items.map((s, i) => (
        <li
          key={s.kind === "person" ? s.user.id : s.tag}
          id={optionId(id, i)}
          role="option"
          aria-selected={i === active}
          onMouseDown={(e) => e.preventDefault()}
          onMouseMove={() => i !== active && onActive(i)}
          onClick={() => onPick(s)}
        >
          {s.kind === "person" ? (
            <>
              <Avatar user={s.user} size={28} />
              <span class="suggestion-text">
                <span class="suggestion-name">{s.user.displayName}</span> <span class="muted">@{s.user.username}</span>
              </span>
            </>
          ) : (
            <span class="suggestion-text">
              <span class="suggestion-name">#{s.tag}</span>{" "}
              <span class="muted">
                {formatCount(s.postCount)} {s.postCount === 1 ? "post" : "posts"}
              </span>
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * An input as a combobox over ITEMS: the ARIA to spread on the input, its keys while the list
 * is open (arrows move, Enter or Tab picks, Escape closes: `keyDown` is true when the key was
 * the list's, so the caller's own handling, such as sending, is skipped) and the list itself.
 */
export function useSuggestionBox({
  items,
  label,
  onPick,
  onClose,
  placement,
}: {
  items: Suggestion[];
  label: string;
  onPick: (s: Suggestion) => void;
  onClose: () => void;
  placement?: "above" | "below";
}) {
  const listId = `${useId()}-suggestions`;
  const [active, setActive] = useState(0);
  const open = items.length > 0;
  const current = Math.min(active, items.length - 1);
  return {
    /** back to the first item, for a new query */
    reset: () => setActive(0),
    // role=combobox on a textarea too (as GitHub's mention inputs have it); JSX's types allow it on inputs only
    inputProps: {
      role: "combobox",
      "aria-autocomplete": "list",
      "aria-expanded": open,
      "aria-controls": open ? listId : undefined,
      "aria-activedescendant": open ? optionId(listId, current) : undefined,
    } as Record<string, unknown>,
    keyDown: (e: KeyboardEvent) =>
      open &&
      listKey(e, {
        count: items.length,
        active: current,
        setActive,
        pick: () => onPick(items[current]!),
        close: onClose,
      }),
    list: open ? (
      <SuggestionList
        id={listId}
        label={label}
        items={items}
        active={current}
        onActive={setActive}
        onPick={onPick}
        placement={placement}
      />
    ) : null,
  };
}

function listKey(
  e: KeyboardEvent,
  list: { count: number; active: number; setActive: (i: number) => void; pick: () => void; close: () => void },
): boolean {
  if (list.count === 0 || e.isComposing) return false;
  switch (e.key) {
    case "ArrowDown":
      list.setActive((list.active + 1) % list.count);
      break;
    case "ArrowUp":
      list.setActive((list.active - 1 + list.count) % list.count);
      break;
    case "Enter":
    case "Tab":
      if (e.shiftKey) return false;
      list.pick();
      break;
    case "Escape":
      list.close();
      break;
    default:
      return false;
  }
  e.preventDefault();
  // Escape closes only the list, not the dialog or reply around the input
  e.stopPropagation();
  return true;
}
