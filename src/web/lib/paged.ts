import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { describeError } from "./api";

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * A cursor-paged list (feeds, comments, followers): the first page on mount and whenever
 * KEY changes, `more()` for the next, `reload()` from the top, `setItems` for local edits.
 */
export function usePagedList<T extends { id: string }>(key: string, load: (cursor: string | null) => Promise<Page<T>>) {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const generation = useRef(0);
  const busy = useRef(false);

  const fetchPage = useCallback(
    async (from: string | null, replace: boolean) => {
      const gen = generation.current;
      busy.current = true;
      setLoading(true);
      setError(null);
      try {
        const page = await load(from);
        if (gen !== generation.current) return;
        setItems((prev) => {
          if (replace) return page.items;
          const seen = new Set(prev.map((i) => i.id));
          return [...prev, ...page.items.filter((i) => !seen.has(i.id))];
        });
        setCursor(page.nextCursor);
        setDone(!page.nextCursor);
      } catch (err) {
        if (gen === generation.current) setError(describeError(err));
      } finally {
        if (gen === generation.current) {
          busy.current = false;
          setLoading(false);
        }
      }
    },
    [load],
  );

  const reload = useCallback(() => {
    generation.current++;
    setDone(false);
    return fetchPage(null, true);
  }, [fetchPage]);

  useEffect(() => {
    setItems([]);
    void reload();
  }, [key]);

  const more = useCallback(() => {
    if (busy.current || done || !cursor) return;
    void fetchPage(cursor, false);
  }, [cursor, done, fetchPage]);

  return { items, setItems, loading, error, done, more, reload };
}

/**
 * Calls ONVISIBLE whenever the returned sentinel element comes into view (infinite scroll).
 * It observes anew whenever GENERATION changes (pass the item count): an observer only
 * reports changes, and a sentinel still in view after a short page would never report again.
 */
export function useOnVisible(onVisible: () => void, generation: number) {
  const ref = useRef<HTMLDivElement>(null);
  const cb = useRef(onVisible);
  cb.current = onVisible;
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && cb.current(), {
      rootMargin: "600px 0px",
    });
    io.observe(el);
    return () => io.disconnect();
  }, [generation]);
  return ref;
}
