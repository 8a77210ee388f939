/** The user id of a `tg://user?id=N` link, or undefined. */
export function linkUserId(url: string): number | undefined {
  const match = /^tg:\/\/user\?id=(\d{1,15})$/i.exec(url);
  return match ? Number(match[1]) : undefined;
}
