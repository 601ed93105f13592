/**
 * What the governance, admin and ledger pages share beyond the shell's components: loading an API answer into
 * state (with its error in words), number and date formats, and a chart figure whose data is also a table (the
 * text alternative of every chart).
 */
import { useCallback, useState, type DependencyList, type ReactNode } from 'react';
import { dataOrThrow, describeError } from '../app/api';
import { DataTable, type Column } from '../app/ui';
import { useLoad, type Loaded } from '../app/use-load';
import { hasNextPage, type PageInfo } from './format';
import { nextCursorOf } from './next-link';
import './pages.css';

export { actorName, dateTime, day, hasNextPage, percent, words, type PageInfo } from './format';

/** An openapi-fetch answer: data on success, the error envelope otherwise. */
export interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Loads one API answer into state (the shell's useLoad); its error is in words. */
export function useApiLoad<T>(load: () => Promise<Answer<T>>, deps: DependencyList): Loaded<T> {
  return useLoad(async () => dataOrThrow(await load()), deps);
}

/** One page of a plain-array list: its items, and where it is (the next cursor from its Link header). */
export interface ArrayPage<T> {
  items: T[];
  info: PageInfo;
}

/**
 * Loads one page of a plain-array list (certificates, impact assessments, the reports log, incidents): `load`
 * asks for the page at `paging.cursor` (none for the first); the answer's `Link: <…>; rel="next"` gives the
 * next page's cursor, which the Pager follows, so every item of the list is reachable (issue 33).
 */
export function useArrayPage<T>(
  load: () => Promise<Answer<T[]>>,
  paging: { position: number; cursor: string | undefined },
  deps: DependencyList,
): Loaded<ArrayPage<T>> {
  return useLoad(async () => {
    const answer = await load();
    const items = dataOrThrow(answer);
    const nextCursor = nextCursorOf(answer.response.headers.get('link'), answer.response.url);
    return { items, info: { page: paging.position, total: null, totalPages: null, nextCursor } };
  }, [...deps, paging.position, paging.cursor]);
}

/**
 * Runs one action (a POST, a DELETE) and keeps its error, in words, and whether it is running, for a form's
 * submit button and its message. Resolves to the answer's data (null for a 204), undefined when it failed.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async <T,>(action: () => Promise<Answer<T>>): Promise<T | null | undefined> => {
    setBusy(true);
    setError(null);
    try {
      const answer = await action();
      if (answer.error !== undefined || !answer.response.ok) {
        setError(describeError(answer.error, answer.response.status));
        return undefined;
      }
      return answer.data ?? null;
    } catch (failure) {
      setError(describeError(failure));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(null) };
}

/**
 * A chart with its text alternative: the caption says what it shows, the summary gives the gist in words, and
 * the same numbers are in a table below (collapsed by default, readable by screen readers and keyboard).
 */
export function ChartFigure<T>(props: {
  id: string;
  title: string;
  summary: string;
  rows: readonly T[];
  rowKey: (row: T) => string;
  columns: readonly Column<T>[];
  children: ReactNode;
}) {
  return (
    <figure className="chart" aria-labelledby={`${props.id}-title`} data-chart={props.id}>
      <figcaption>
        <h2 id={`${props.id}-title`}>{props.title}</h2>
        <p className="chart-summary">{props.summary}</p>
      </figcaption>
      {props.rows.length > 0 ? (
        // The drawing repeats the summary and the table for sighted readers; assistive technology reads those.
        <div className="chart-canvas" aria-hidden="true">
          {props.children}
        </div>
      ) : (
        <p>No data for this period.</p>
      )}
      {props.rows.length > 0 && (
        <details>
          <summary>{props.title}: the data as a table</summary>
          <DataTable caption={props.title} rows={props.rows} rowKey={props.rowKey} columns={props.columns} />
        </details>
      )}
    </figure>
  );
}

/** A one-time secret (a new API key, a webhook secret): shown once, selectable, with a copy button. */
export function SecretOnce(props: { label: string; value: string; hint: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret-once" role="status">
      <p>
        <strong>{props.label}</strong> {props.hint}
      </p>
      <code className="secret-value" data-secret>
        {props.value}
      </code>{' '}
      <button
        type="button"
        onClick={() =>
          navigator.clipboard?.writeText(props.value).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        Copy
      </button>
      {copied && <span> Copied.</span>}
    </div>
  );
}

/** Where a paged list is: the first page, or the cursor (or page number) of a later one, and the way back. */
export function usePaging() {
  const [trail, setTrail] = useState<{ page: number; cursor?: string }[]>([{ page: 1 }]);
  const here = trail[trail.length - 1]!;
  return {
    /** The query parameters of the current page: a cursor when there is one, else the page number. */
    query: (here.cursor ? { cursor: here.cursor } : { page: here.page }) as { page?: number },
    /** The cursor of the current page; none on the first (the lists that page by cursor only). */
    cursor: here.cursor,
    position: trail.length,
    first: () => setTrail([{ page: 1 }]),
    previous: () => setTrail((t) => (t.length > 1 ? t.slice(0, -1) : t)),
    next: (info: PageInfo) =>
      setTrail((t) => [
        ...t,
        info.nextCursor ? { page: info.page + 1, cursor: info.nextCursor } : { page: info.page + 1 },
      ]),
  };
}

/** Previous and next page of a paged list. */
export function Pager(props: { info: PageInfo; paging: ReturnType<typeof usePaging> }) {
  const { info, paging } = props;
  const more = hasNextPage(info);
  if (paging.position === 1 && !more) return null;
  return (
    <nav aria-label="Pages" className="pager">
      <button type="button" disabled={paging.position <= 1} onClick={paging.previous}>
        Previous page
      </button>
      <span>
        Page {paging.position}
        {info.totalPages !== null ? ` of ${info.totalPages}` : ''}
      </span>
      <button type="button" disabled={!more} onClick={() => paging.next(info)}>
        Next page
      </button>
    </nav>
  );
}
