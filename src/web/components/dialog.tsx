import type { ComponentChildren } from "preact";
import { useId, useLayoutEffect, useRef } from "preact/hooks";

/** A modal <dialog>: focus moves in, Escape closes, focus returns to the opener. */
export function Dialog({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  // in the render's own commit, not after the next frame: a closed dialog that stayed modal
  // until then kept the page inert, and what was typed into it in that moment was lost
  // (a test filled the bot's description there and saved "")
  useLayoutEffect(() => {
    const d = ref.current!;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={id} onClose={onClose} onCancel={onClose}>
      <h2 id={id}>{title}</h2>
      {open && children}
    </dialog>
  );
}
