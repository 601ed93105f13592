/** Certificates issued to the firm: what each attests, its public verification page and its PDF. */
import { Link } from 'react-router-dom';
import type { components } from '../../../../clients/typescript/index';
import { useApi } from '../../app/api';
import { DataTable, ErrorMessage, Loading, Page } from '../../app/ui';
import { dateTime, Pager, useArrayPage, usePaging } from '../common';

type Certificate = components['schemas']['Certificate'];

export function CertificatesPage() {
  const api = useApi();
  const paging = usePaging();
  const certificates = useArrayPage(
    () => api.GET('/v1/ledger/certificates', { params: { query: { cursor: paging.cursor } } }),
    paging,
    [api],
  );
  return (
    <Page title="Certificates">
      <p>
        <Link to="/ledger">Back to the ledger</Link>
      </p>
      {certificates.loading && !certificates.data ? (
        <Loading label="Loading certificates" />
      ) : certificates.error || !certificates.data ? (
        <ErrorMessage error={certificates.error} />
      ) : certificates.data.items.length === 0 && paging.position === 1 ? (
        <p>No certificate issued yet.</p>
      ) : (
        <>
          <DataTable<Certificate>
            caption="Certificates"
            rowKey={(row) => row.id}
            rows={certificates.data.items}
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
          <Pager info={certificates.data.info} paging={paging} />
        </>
      )}
    </Page>
  );
}
