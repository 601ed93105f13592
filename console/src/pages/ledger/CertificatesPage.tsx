/** Certificates issued to the firm: what each attests, its public verification page and its PDF. */
import { Link } from 'react-router-dom';
import type { components } from '../../../../clients/typescript/index';
import { useApi } from '../../app/api';
import { DataTable, ErrorMessage, Loading, Page } from '../../app/ui';
import { dateTime, useApiLoad } from '../common';

type Certificate = components['schemas']['Certificate'];

export function CertificatesPage() {
  const api = useApi();
  const certificates = useApiLoad(() => api.GET('/v1/ledger/certificates'), [api]);
  return (
    <Page title="Certificates">
      <p>
        <Link to="/ledger">Back to the ledger</Link>
      </p>
      {certificates.loading && !certificates.data ? (
        <Loading label="Loading certificates" />
      ) : certificates.error || !certificates.data ? (
        <ErrorMessage error={certificates.error} />
      ) : certificates.data.length === 0 ? (
        <p>No certificate issued yet.</p>
      ) : (
        <DataTable<Certificate>
          caption="Certificates"
          rowKey={(row) => row.id}
          rows={certificates.data}
          columns={[
            { header: 'Attests', cell: (c) => c.metadata.eventLabel },
            { header: 'Status', cell: (c) => c.metadata.statusPill?.label ?? '—' },
            { header: 'Issued', cell: (c) => dateTime(c.issuedAt) },
            {
              header: 'Record',
              cell: (c) => <Link to={`/ledger/records/${c.ledgerRecordId}`}>Record and details</Link>,
            },
            {
              header: 'Download',
              cell: (c) => (
                <a href={c.pdfUrl} download target="_blank" rel="noreferrer">
                  PDF <span className="visually-hidden">of certificate {c.id}</span>
                </a>
              ),
            },
            {
              header: 'Verify',
              cell: (c) => (
                <a href={c.verificationUrl} target="_blank" rel="noreferrer">
                  Public check <span className="visually-hidden">of certificate {c.id}</span>
                </a>
              ),
            },
          ]}
        />
      )}
    </Page>
  );
}
