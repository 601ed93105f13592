import type { ReactNode } from 'react';

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  /** The row's header cell (th scope="row"), usually its name or id. */
  rowHeader?: boolean;
}

/**
 * A table with a caption; on a narrow screen it scrolls sideways inside a focusable region (so a keyboard can
 * scroll it) instead of widening the page.
 */
export function DataTable<T>(props: {
  caption: string;
  columns: readonly Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string;
  empty?: string;
}) {
  if (props.rows.length === 0) return <p className="empty">{props.empty ?? 'Nothing to show yet.'}</p>;
  return (
    <div className="table-scroll" role="region" aria-label={props.caption} tabIndex={0}>
      <table>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th key={c.header} scope="col">
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)}>
              {props.columns.map((c) =>
                c.rowHeader ? (
                  <th key={c.header} scope="row">
                    {c.cell(row)}
                  </th>
                ) : (
                  <td key={c.header}>{c.cell(row)}</td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
