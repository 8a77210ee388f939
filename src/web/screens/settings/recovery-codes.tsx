import { useEffect, useRef } from "preact/hooks";
import { t } from "../../lib/i18n";
import { saveFile } from "../../lib/download";

/**
 * Recovery codes, shown once: each signs in one time in place of a two-factor code. They can
 * be downloaded as a text file; DONE hides them for good (the server never shows them again).
 */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const download = () =>
    saveFile("recovery-codes.txt", `${t("settings.recovery.file", { host: location.host })}\n\n${codes.join("\n")}\n`);
  return (
    <div class="recovery-codes" role="group" aria-labelledby="recovery-title">
      <h3 id="recovery-title" tabIndex={-1} ref={heading}>
        {t("settings.recovery.title")}
      </h3>
      <p>{t("settings.recovery.intro")}</p>
      <ul class="code-list" aria-label={t("settings.recovery.list")}>
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div class="actions">
        <button type="button" onClick={download}>
          {t("settings.recovery.download")}
        </button>
        <button type="button" class="primary" onClick={onDone}>
          {t("settings.recovery.done")}
        </button>
      </div>
    </div>
  );
}
