import type { ComponentChildren } from "preact";

/** A 24 px line icon (paths drawn with the current text colour); decorative: its button carries the name. */
export function LineIcon({ children }: { children: ComponentChildren }) {
  return (
    <svg
      viewBox="0 0 24 24"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      stroke-width="2"
      stroke-linecap="round"
      stroke-linejoin="round"
    >
      {children}
    </svg>
  );
}
