import { FormError } from "./field";
import { Loading } from "./page";
import { useOnVisible, type usePagedList } from "../lib/paged";
import { t } from "../lib/i18n";

/**
 * The end of a cursor-paged list: the empty state, the error with a retry, a loading note,
 * and more items as the end scrolls into view (or by the button, for keyboards).
 * NOUN names the items in the button and the loading note ("notifications"; in Russian the
 * accusative plural, "уведомления", "людей").
 */
export function ListFooter({
  list,
  noun,
  empty,
}: {
  list: Pick<
    ReturnType<typeof usePagedList<{ id: string }>>,
    "items" | "loading" | "done" | "error" | "more" | "reload"
  >;
  noun: string;
  empty: string;
}) {
  const sentinel = useOnVisible(list.more, list.items.length);
  return (
    <>
      {!list.loading && list.done && list.items.length === 0 && !list.error && <p class="empty">{empty}</p>}
      <FormError message={list.error} />
      {list.loading && <Loading label={t("common.list.loading", { noun })} />}
      <div ref={sentinel} class="sentinel" />
      {!list.done && !list.loading && !list.error && list.items.length > 0 && (
        <button type="button" class="load-more" onClick={list.more}>
          {t("common.list.more", { noun })}
        </button>
      )}
      {list.error && (
        <button type="button" onClick={list.items.length ? list.more : list.reload}>
          {t("common.tryAgain")}
        </button>
      )}
    </>
  );
}
