import { useEffect, useState } from 'react';
import { dataOrThrow, describeError, useApi } from '../../app/api';
import { useSession } from '../../app/session';
import { ErrorMessage, Loading } from '../../app/ui';
import { STATUS_WORDS, when, type Job } from './words';

type Certificate = { url: string; certificateId: string };

/**
 * After the decision: the outcome as recorded on the ledger, and its certificate (issued in the background
 * moments after the decision: polled until it exists), with its public verification page.
 */
export function OutcomeRecord(props: { job: Job }) {
  const { job } = props;
  return (
    <section className="card outcome" aria-labelledby="outcome">
      <h2 id="outcome">Outcome</h2>
      <dl className="facts">
        <dt>Decision</dt>
        <dd>{STATUS_WORDS[job.status]}</dd>
        <dt>Decided</dt>
        <dd>{when(job.completedAt)}</dd>
        {job.outcomeReason ? (
          <>
            <dt>Reason</dt>
            <dd>{job.outcomeReason}</dd>
          </>
        ) : null}
        {job.modifications ? (
          <>
            <dt>Modifications</dt>
            <dd className="prewrap">{job.modifications}</dd>
          </>
        ) : null}
        <dt>Ledger record</dt>
        <dd>
          <code>{job.ledgerRecordId ?? '—'}</code>
        </dd>
      </dl>
      {job.ledgerRecordId ? <CertificateLink recordId={job.ledgerRecordId} /> : null}
    </section>
  );
}

const POLL_MS = 1500;
const POLL_TRIES = 40;

function CertificateLink(props: { recordId: string }) {
  const api = useApi();
  const { apiBaseUrl } = useSession();
  const [certificate, setCertificate] = useState<Certificate | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setError(null);
    // Outcome records are certified automatically, moments after the decision. Asking for the certificate is
    // idempotent (it enqueues nothing once one exists or is on its way) and never a 404 while it is pending.
    const attempt = async (tries: number) => {
      try {
        const request = await api.POST('/v1/ledger/records/{id}/certificate', {
          params: { path: { id: props.recordId } },
        });
        if (!live) return;
        const { certificateId } = dataOrThrow(request);
        if (certificateId) {
          const pdf = dataOrThrow(
            await api.GET('/v1/ledger/records/{id}/certificate', {
              params: { path: { id: props.recordId } },
            }),
          );
          if (live) setCertificate(pdf);
          return;
        }
        if (tries <= 1) return setError('The certificate is not issued yet: try again in a moment.');
        timer = setTimeout(() => void attempt(tries - 1), POLL_MS);
      } catch (failure) {
        if (live) setError(describeError(failure));
      }
    };
    void attempt(POLL_TRIES);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, props.recordId, round]);
  if (error) return <ErrorMessage error={error} onRetry={() => setRound((n) => n + 1)} />;
  if (!certificate) return <Loading label="Issuing the certificate…" />;
  return (
    <p className="certificate">
      <a href={certificate.url} target="_blank" rel="noopener noreferrer">
        Certificate (PDF)
      </a>{' '}
      ·{' '}
      <a
        href={`${apiBaseUrl}/verify/${encodeURIComponent(certificate.certificateId)}`}
        target="_blank"
        rel="noopener noreferrer"
      >
        Verify certificate {certificate.certificateId}
      </a>
    </p>
  );
}
