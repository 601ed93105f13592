import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A page: the main landmark and its one h1. Sets the document title and moves focus to the heading when the
 * page opens, so a screen reader announces where a navigation led.
 */
export function Page(props: { title: string; children: ReactNode; actions?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Governance Ledger`;
    heading.current?.focus();
  }, [props.title]);
  return (
    <main id="main" className="page">
      <div className="page-head">
        <h1 ref={heading} tabIndex={-1}>
          {props.title}
        </h1>
        {props.actions ? <div className="page-actions">{props.actions}</div> : null}
      </div>
      {props.children}
    </main>
  );
}
