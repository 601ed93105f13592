/** A loading state for long work, announced politely. */
export function Loading(props: { label?: string }) {
  return (
    <p className="loading" role="status">
      {props.label ?? 'Loading…'}
    </p>
  );
}
