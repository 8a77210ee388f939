import { useState } from "preact/hooks";
import { FormError, Notice } from "../../components/field";
import { api, describeError, uploadFile } from "../../lib/api";
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
      <h2 id="instance-icon-heading">Instance icon</h2>
      <div class="instance-icon">
        <img src={`/icons/icon-192.png?v=${shown}`} alt="The instance's icon as it is now" width={96} height={96} />
        <div class="instance-icon-actions">
          <label class="button">
            Upload an icon
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
                  await apply(upload.url, "The new icon is in use.");
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
                await apply("", "The default icon is back in use.");
              })}
            >
              Use the default icon
            </button>
          )}
        </div>
      </div>
      <p class="hint">
        A square image, at least 512 pixels wide. It becomes the app's icon on phones and desktops, and the icon of the
        browser tab and of notifications.
      </p>
      <FormError message={error ? describeError(error) : null} />
      <Notice message={saved} />
    </section>
  );
}
