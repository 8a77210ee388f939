import type { PublicUser } from "../lib/types";

/** A person's picture, or their initial on a tinted disc; decorative beside their name. */
export function Avatar({
  user,
  size = 40,
}: {
  user: Pick<PublicUser, "username" | "displayName" | "avatarUrl">;
  size?: number;
}) {
  const letter = (user.displayName || user.username).trim().charAt(0).toUpperCase();
  if (user.avatarUrl)
    return <img class="avatar" src={user.avatarUrl} alt="" width={size} height={size} loading="lazy" />;
  let hue = 0;
  for (const ch of user.username) hue = (hue * 31 + ch.charCodeAt(0)) % 360;
  return (
    <span class={`avatar avatar-letter hue-${hue % 12}`} aria-hidden="true" data-size={size}>
      {letter}
    </span>
  );
}
