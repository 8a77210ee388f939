import { useRef, useState } from "preact/hooks";
import { usernamesIn } from "../lib/composer-token";
import { useSuggestions, type Suggestion } from "../lib/suggestions";
import { FieldFrame } from "./field";
import { useSuggestionBox } from "./suggestion-list";
import { t } from "../lib/i18n";

/** A person chosen in a people picker: picked from the suggestions (with a name) or typed as a username. */
export interface PickedPerson {
  username: string;
  displayName?: string;
}

const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** What every name input has: no browser autofill or spelling marks over the suggestions, and its field's ARIA. */
const nameInput = (id: string, describedBy: string | undefined, error: string | undefined) => ({
  id,
  type: "text" as const,
  autoComplete: "off",
  spellcheck: false,
  "aria-describedby": describedBy,
  "aria-invalid": error ? true : undefined,
});

/**
 * Choosing people by name: suggestions as one types (arrows, Enter or Tab, or a click), each
 * choice a chip with its remove button. Usernames typed whole work too: a comma, a space,
 * Enter or leaving the field turns them into chips, and Backspace in the empty field takes
 * the last chip back.
 */
export function PeoplePicker({
  label,
  hint,
  people,
  onPeople,
  error,
  excludeIds = [],
}: {
  label: string;
  hint?: string;
  people: PickedPerson[];
  onPeople: (people: PickedPerson[]) => void;
  error?: string;
  /** people never offered (oneself, the members already in) */
  excludeIds?: string[];
}) {
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState("");
  const [closed, setClosed] = useState(false);

  const word = text.trim().replace(/^@/, "");
  const found = useSuggestions("people", word && !closed ? word : null);
  const items = found.filter(
    (s) =>
      s.kind === "person" &&
      !excludeIds.includes(s.user.id) &&
      !people.some((p) => sameName(p.username, s.user.username)),
  );
  const box = useSuggestionBox({
    items,
    label: t("common.suggest.people"),
    onPick: pick,
    onClose: () => setClosed(true),
  });

  function add(more: PickedPerson[]) {
    const fresh = more.filter(
      (m, i) =>
        !people.some((p) => sameName(p.username, m.username)) &&
        more.findIndex((x) => sameName(x.username, m.username)) === i,
    );
    if (fresh.length) onPeople([...people, ...fresh]);
  }
  /** what was typed, as chips */
  function commit(typed = text) {
    add(usernamesIn(typed).map((username) => ({ username })));
    setText("");
  }
  function pick(s: Suggestion) {
    if (s.kind !== "person") return;
    add([{ username: s.user.username, displayName: s.user.displayName }]);
    setText("");
    input.current?.focus();
  }
  function remove(p: PickedPerson) {
    onPeople(people.filter((x) => x !== p));
    input.current?.focus();
  }

  return (
    <FieldFrame
      label={label}
      hint={hint}
      error={error}
      class="field people-picker"
      control={(id, described) => (
        <div class="picker-box">
          {people.length > 0 && (
            <ul class="chips" aria-label={t("common.suggest.chosen")}>
              {people.map((p) => (
                <li class="chip" key={p.username.toLowerCase()}>
                  <span>
                    {p.displayName && <span class="chip-name">{p.displayName} </span>}
                    <span class={p.displayName ? "muted" : undefined}>@{p.username}</span>
                  </span>
                  <button
                    type="button"
                    class="chip-remove"
                    aria-label={t("common.suggest.remove", { username: p.username })}
                    onClick={() => remove(p)}
                  >
                    <span aria-hidden="true">×</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          <div class="autocomplete">
            <input
              ref={input}
              {...nameInput(id, described, error)}
              {...box.inputProps}
              value={text}
              onInput={(e) => {
                const value = e.currentTarget.value;
                setClosed(false);
                box.reset();
                // a separator ends a typed username: what stands before the last one becomes chips
                const cut = value.search(/[\s,;][^\s,;]*$/);
                if (cut >= 0) {
                  commit(value.slice(0, cut));
                  setText(value.slice(cut + 1));
                } else setText(value);
              }}
              onBlur={() => commit()}
              onKeyDown={(e) => {
                if (box.keyDown(e)) return;
                if (e.key === "Enter" && text.trim()) {
                  // Enter ends the username being typed; with nothing typed it submits the form
                  e.preventDefault();
                  commit();
                } else if (e.key === "Backspace" && !text && people.length) {
                  e.preventDefault();
                  onPeople(people.slice(0, -1));
                }
              }}
            />
            {box.list}
          </div>
        </div>
      )}
    />
  );
}

/** One person's username, typed or chosen from suggestions as one types (a pick fills in the username). */
export function PersonField({
  label,
  value,
  onValue,
  error,
  required,
}: {
  label: string;
  value: string;
  onValue: (username: string) => void;
  error?: string;
  required?: boolean;
}) {
  // closed after a pick, Escape or leaving the field, until the next keystroke
  const [closed, setClosed] = useState(false);
  const word = value.trim().replace(/^@/, "");
  const items = useSuggestions("people", word && !closed ? word : null);
  const box = useSuggestionBox({
    items,
    label: t("common.suggest.people"),
    onPick: (s) => {
      if (s.kind === "person") onValue(s.user.username);
      setClosed(true);
    },
    onClose: () => setClosed(true),
  });
  return (
    <FieldFrame
      label={label}
      error={error}
      control={(id, described) => (
        <div class="autocomplete">
          <input
            {...nameInput(id, described, error)}
            required={required}
            {...box.inputProps}
            value={value}
            onInput={(e) => {
              setClosed(false);
              box.reset();
              onValue(e.currentTarget.value);
            }}
            onBlur={() => setClosed(true)}
            onKeyDown={(e) => void box.keyDown(e)}
          />
          {box.list}
        </div>
      )}
    />
  );
}
