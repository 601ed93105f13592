/** One ledger record: every field of the signed record, and its certificate (download, or ask for one). */
import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { dataOrThrow, useApi } from '../../app/api';
import { useLoad } from '../../app/use-load';
import { ErrorMessage, Loading, Page } from '../../app/ui';
import { dateTime, useAction, useApiLoad, words } from '../common';

export function LedgerRecordPage() {
  const { id = '' } = useParams();
  const api = useApi();
  const record = useApiLoad(
    () => api.GET('/v1/ledger/records/{id}', { params: { path: { id } } }),
    [api, id],
  );
  const r = record.data;
  return (
    <Page title={r ? `Ledger record #${r.sequenceNumber}` : 'Ledger record'}>
      <p>
        <Link to="/ledger">Back to the ledger</Link>
      </p>
      {record.loading && !r ? (
        <Loading label="Loading the record" />
      ) : record.error || !r ? (
        <ErrorMessage error={record.error} />
      ) : (
        <>
          <CertificateOfRecord recordId={r.id} />
          <dl className="facts mono-values">
            <dt>Event</dt>
            <dd>{words(r.eventType)}</dd>
            <dt>Record id</dt>
            <dd className="break">{r.id}</dd>
            <dt>Sequence number</dt>
            <dd>{r.sequenceNumber}</dd>
            <dt>Time</dt>
            <dd>{dateTime(r.timestamp)}</dd>
            <dt>Actor</dt>
            <dd>
              {r.actorName} <span className="break">({r.actorId})</span>
              {r.actorFcaRef ? `, FCA ${r.actorFcaRef}` : ''}
            </dd>
            <dt>Review job</dt>
            <dd className="break">{r.reviewJobId ?? '—'}</dd>
            <dt>Document hash</dt>
            <dd className="break">
              <code>{r.documentHash || '—'}</code>
            </dd>
            <dt>Previous hash</dt>
            <dd className="break">
              <code>{r.previousHash ?? '— (first record)'}</code>
            </dd>
            <dt>Record hash</dt>
            <dd className="break">
              <code>{r.recordHash}</code>
            </dd>
            <dt>Chain hash</dt>
            <dd className="break">
              <code>{r.chainHash}</code>
            </dd>
            <dt>Signature</dt>
            <dd className="break">
              <code>{r.signature}</code>
            </dd>
            <dt>Public key</dt>
            <dd className="break">
              <code>{r.publicKey}</code>
            </dd>
          </dl>
          <h2>Snapshot</h2>
          <pre className="json" tabIndex={0} aria-label="The record's snapshot as JSON">
            {JSON.stringify(r.documentMetadata, null, 2)}
          </pre>
        </>
      )}
    </Page>
  );
}

function CertificateOfRecord({ recordId }: { recordId: string }) {
  const api = useApi();
  // 404: no certificate for this record (yet), which is an answer, not an error.
  const pdf = useLoad(async () => {
    const answer = await api.GET('/v1/ledger/records/{id}/certificate', {
      params: { path: { id: recordId } },
    });
    return answer.response.status === 404 ? null : dataOrThrow(answer);
  }, [api, recordId]);
  const request = useAction();
  const [requested, setRequested] = useState<string | null>(null);

  async function ask() {
    const answer = await request.run(() =>
      api.POST('/v1/ledger/records/{id}/certificate', { params: { path: { id: recordId } } }),
    );
    if (answer) {
      setRequested(
        answer.status === 'existing'
          ? 'The certificate exists.'
          : 'Certificate generation is under way; reload in a few seconds.',
      );
      pdf.reload();
    }
  }

  return (
    <section aria-labelledby="certificate-title" className="panel">
      <h2 id="certificate-title">Certificate</h2>
      {pdf.loading && pdf.data === undefined ? (
        <Loading label="Looking for the certificate" />
      ) : pdf.data ? (
        <p>
          <a href={pdf.data.url} download target="_blank" rel="noreferrer">
            Download the certificate (PDF)
          </a>{' '}
          <span className="hint">certificate {pdf.data.certificateId}; the link is valid for 15 minutes</span>
        </p>
      ) : pdf.data === null ? (
        <>
          <p>No certificate for this record yet.</p>
          <button type="button" onClick={() => void ask()} disabled={request.busy}>
            {request.busy ? 'Requesting…' : 'Issue a certificate'}
          </button>{' '}
          <button type="button" onClick={() => pdf.reload()}>
            Check again
          </button>
        </>
      ) : (
        <ErrorMessage error={pdf.error} />
      )}
      {requested && <p role="status">{requested}</p>}
      <ErrorMessage error={request.error} />
    </section>
  );
}
