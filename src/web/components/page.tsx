import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { instanceName } from "../lib/instance";
import { t } from "../lib/i18n";

/**
 * A screen's frame: sets the document title ("<title> · <instance name>") and renders the one
 * h1, which receives focus after a client-side navigation so screen readers announce the new screen.
 */
export function Page({
  title,
  heading,
  children,
  wide,
  actions,
}: {
  title: string;
  heading?: ComponentChildren;
  children?: ComponentChildren;
  wide?: boolean;
  actions?: ComponentChildren;
}) {
  const name = instanceName.value;
  useEffect(() => {
    document.title = `${title} · ${name}`;
  }, [title, name]);
  return (
    <section class={wide ? "page page-wide" : "page"} aria-labelledby="page-title">
      <div class="page-head">
        <h1 id="page-title" tabIndex={-1}>
          {heading ?? title}
        </h1>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** Moves focus to the new screen's heading (called on client-side route changes). */
export function focusPageTitle(): void {
  requestAnimationFrame(() => document.getElementById("page-title")?.focus({ preventScroll: true }));
}

export function Loading({ label }: { label?: string }) {
  return (
    <p class="loading" role="status">
      {label ?? t("common.loading")}
    </p>
  );
}
