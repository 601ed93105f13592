import { dataOrThrow, useApi } from '../../app/api';
import { useLoad } from '../../app/use-load';
import { ErrorMessage, Loading } from '../../app/ui';
import { fileName, type Job } from './words';

/**
 * The document itself, from a 5-minute URL of its immutable copy (GET /v1/review/jobs/{id}/document): a PDF
 * shown in the page, anything else as a link. A fresh URL is one click away once it has expired.
 */
export function DocumentView(props: { job: Job }) {
  const api = useApi();
  const { job } = props;
  const link = useLoad(
    async () =>
      dataOrThrow(await api.GET('/v1/review/jobs/{id}/document', { params: { path: { id: job.id } } })),
    [api, job.id],
  );
  const name = fileName(job);
  return (
    <section className="card" aria-labelledby="document">
      <h2 id="document">Document</h2>
      <ErrorMessage error={link.error} onRetry={link.reload} />
      {link.loading ? (
        // The frame's room is kept while the URL loads, so the page below does not jump when it appears.
        <div className="document-frame">
          <Loading label="Fetching the document…" />
        </div>
      ) : null}
      {link.data && !link.loading ? (
        <>
          {link.data.contentType === 'application/pdf' ? (
            <iframe className="document-frame" title={`The document, ${name}`} src={link.data.url} />
          ) : null}
          <p>
            <a href={link.data.url} target="_blank" rel="noopener noreferrer">
              Open the document ({name})
            </a>{' '}
            <span className="hint">
              The link works until {new Date(link.data.expiresAt).toLocaleTimeString()}.{' '}
              <button type="button" onClick={link.reload}>
                Get a fresh link
              </button>
            </span>
          </p>
          <p className="hint">
            SHA-256 of the document: <code>{job.documentHash}</code>
          </p>
        </>
      ) : null}
    </section>
  );
}
