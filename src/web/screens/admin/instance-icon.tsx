import { useState } from "preact/hooks";
import { FormError, Notice } from "../../components/field";
import { api, describeError, uploadFile } from "../../lib/api";
import { t } from "../../lib/i18n";
import { useAction } from "../../lib/use-action";

/**
 * The instance's icon (config instance.icon): the installed app's icons, the favicon and
 * pushes' notifications are made from it. An uploaded image (square looks best) or the default.
 */
export function InstanceIcon({ current, onChanged }: { current: string; onChanged: () => void }) {
  const { busy, error, run } = useAction();
  const [saved, setSaved] = useState<string | null>(null);
  // the icons' URLs stay the same when the icon changes: a new query makes the preview load the new one
  const [shown, setShown] = useState(0);
  const apply = async (value: string, message: string) => {
    await api.patch("/admin/settings", { "instance.icon": value });
    setShown((n) => n + 1);
    setSaved(message);
    onChanged();
  };
  return (
    <section class="card form" aria-labelledby="instance-icon-heading">
      <h2 id="instance-icon-heading">{t("admin.icon.heading")}</h2>
      <div class="instance-icon">
        <img src={`/icons/icon-192.png?v=${shown}`} alt={t("admin.icon.alt")} width={96} height={96} />
        <div class="instance-icon-actions">
          <label class="button">
            {t("admin.icon.upload")}
            <input
              type="file"
              class="visually-hidden"
              accept="image/png,image/jpeg,image/webp"
              disabled={busy}
              onChange={(e) => {
                const file = e.currentTarget.files?.[0];
                e.currentTarget.value = "";
                if (!file) return;
                setSaved(null);
                void run(async () => {
                  const upload = await uploadFile(file, "avatar");
                  await apply(upload.url, t("admin.icon.uploaded"));
                })();
              }}
            />
          </label>
          {current && (
            <button
              type="button"
              disabled={busy}
              onClick={run(async () => {
                setSaved(null);
                await apply("", t("admin.icon.reset"));
              })}
            >
              {t("admin.icon.useDefault")}
            </button>
          )}
        </div>
      </div>
      <p class="hint">{t("admin.icon.hint")}</p>
      <FormError message={error ? describeError(error) : null} />
      <Notice message={saved} />
    </section>
  );
}
