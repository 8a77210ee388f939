/**
 * The server setting each bot library takes, from the instance's base URL. grammY, Telegraf
 * and node-telegram-bot-api append `/bot<TOKEN>/<method>` to an API root (the instance root;
 * `…/api/bot/` would become `…/api/bot/bot<TOKEN>/…`, a 404); python-telegram-bot appends
 * `<TOKEN>/<method>` to a base_url that ends in `/bot`.
 */
export function libraryApiRoots(baseUrl: string) {
  const root = baseUrl.replace(/\/+$/, "");
  return {
    apiRoot: root,
    libraries: { grammy: root, telegraf: root, "node-telegram-bot-api": root, "python-telegram-bot": `${root}/bot` },
  };
}
