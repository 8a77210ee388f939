import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { Avatar } from "../../components/avatar";
import { Field, FormError } from "../../components/field";
import { MediaPicker } from "../../components/media-picker";
import { Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { account } from "../../lib/session";
import type { Account } from "../../lib/types";
import { useAction } from "../../lib/use-action";
import { t } from "../../lib/i18n";

const MAX_BIO = 300;

/** /profile/edit: name, bio, avatar and cover (a picture or a short video), uploaded as they are picked. */
export function EditProfile() {
  const me = account.value!;
  const { route } = useLocation();
  const [displayName, setDisplayName] = useState(me.displayName);
  const [bio, setBio] = useState(me.bio ?? "");
  const [avatarUrl, setAvatarUrl] = useState(me.avatarUrl);
  const [cover, setCover] = useState<{ url: string | null; video: boolean }>({
    url: me.coverVideoUrl ?? me.coverUrl,
    video: !!me.coverVideoUrl,
  });
  const { busy, error, apiError, run } = useAction();

  const save = run(async () => {
    const { account: next } = await api.patch<{ account: Account }>("/account/profile", {
      displayName: displayName.trim(),
      bio,
      avatarUrl,
      coverUrl: cover.video ? null : cover.url,
      coverVideoUrl: cover.video ? cover.url : null,
    });
    account.value = next;
    route(`/users/${next.username}`);
  });

  const bioError = apiError?.field("bio");
  const named = apiError && Object.keys(apiError.fieldErrors).length > 0;
  return (
    <Page title={t("people.edit.title")}>
      <form class="card form" onSubmit={save}>
        <div class="media-row">
          <Avatar user={{ ...me, avatarUrl }} size={96} />
          <div class="actions">
            <MediaPicker
              label={t("people.edit.chooseAvatar")}
              accept="image/*"
              kindOf={() => "avatar"}
              onUploaded={(u) => setAvatarUrl(u.url)}
            />
            {avatarUrl && (
              <button type="button" class="small" onClick={() => setAvatarUrl(null)}>
                {t("people.edit.removeAvatar")}
              </button>
            )}
          </div>
        </div>
        {apiError?.field("avatarUrl") && <p class="field-error">{apiError.field("avatarUrl")}</p>}
        <div class="media-row">
          {cover.url ? (
            cover.video ? (
              <video class="cover-preview" src={cover.url} muted aria-label={t("people.profile.coverVideo")} />
            ) : (
              <img class="cover-preview" src={cover.url} alt={t("people.profile.coverPicture")} />
            )
          ) : (
            <div class="cover-preview cover-empty" />
          )}
          <div class="actions">
            <MediaPicker
              label={t("people.edit.chooseCover")}
              accept="image/*,video/*"
              kindOf={(f) => (f.type.startsWith("video/") ? "cover-video" : "cover")}
              onUploaded={(u) => setCover({ url: u.url, video: u.mime.startsWith("video/") })}
            />
            {cover.url && (
              <button type="button" class="small" onClick={() => setCover({ url: null, video: false })}>
                {t("people.edit.removeCover")}
              </button>
            )}
          </div>
        </div>
        <Field
          label={t("people.edit.displayName")}
          value={displayName}
          onValue={setDisplayName}
          maxLength={64}
          required
          error={apiError?.field("displayName")}
        />
        <div class="field">
          <label for="bio">{t("people.edit.bio")}</label>
          <textarea
            id="bio"
            rows={4}
            value={bio}
            onInput={(e) => setBio(e.currentTarget.value)}
            aria-describedby="bio-count"
            aria-invalid={bio.length > MAX_BIO || !!bioError || undefined}
          />
          <p id="bio-count" class={bio.length > MAX_BIO ? "counter over" : "counter"}>
            {t("common.charactersLeft", { count: MAX_BIO - bio.length })}
          </p>
          {bioError && <p class="field-error">{bioError}</p>}
        </div>
        <FormError message={error && !named ? describeError(error) : null} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy || bio.length > MAX_BIO}>
            {t("common.save")}
          </button>
          <a href={`/users/${me.username}`}>{t("common.cancel")}</a>
        </div>
      </form>
    </Page>
  );
}
