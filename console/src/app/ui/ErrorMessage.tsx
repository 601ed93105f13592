/** An error in words (describeError's output), announced to screen readers as it appears. */
export function ErrorMessage(props: { error: string | null | undefined; onRetry?: () => void }) {
  if (!props.error) return null;
  return (
    <div className="error" role="alert">
      <p>{props.error}</p>
      {props.onRetry ? (
        <button type="button" onClick={props.onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
