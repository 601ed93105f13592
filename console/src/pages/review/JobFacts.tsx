import { FLAG_WORDS, STATUS_WORDS, when, type JobDetail } from './words';

/** What the reviewer decides on: the job's facts, vulnerability flags, fact find and AI context. */
export function JobFacts(props: { job: JobDetail }) {
  const { job } = props;
  return (
    <>
      <section className="card" aria-labelledby="facts">
        <h2 id="facts">Facts</h2>
        <dl className="facts">
          <dt>Status</dt>
          <dd>{STATUS_WORDS[job.status]}</dd>
          <dt>Document type</dt>
          <dd>{job.documentType}</dd>
          <dt>Document reference</dt>
          <dd>{job.documentReference}</dd>
          <dt>Client reference</dt>
          <dd>{job.clientReference}</dd>
          <dt>Priority</dt>
          <dd>{job.priority === 'URGENT' ? 'Urgent' : 'Standard'}</dd>
          <dt>Submitted</dt>
          <dd>{when(job.submittedAt)}</dd>
          <dt>Decide by</dt>
          <dd>
            {when(job.slaDeadline)}
            {job.slaBreachedAt ? <strong> (SLA breached)</strong> : null}
          </dd>
          <dt>Senior sign-off</dt>
          <dd>{job.requiresSeniorSignOff ? 'Required' : 'Not required'}</dd>
          {Object.entries(job.clientSegments).map(([name, value]) => (
            <FactRow key={`segment-${name}`} name={`Segment: ${name}`} value={value} />
          ))}
        </dl>
      </section>
      <section className="card" aria-labelledby="vulnerability">
        <h2 id="vulnerability">Vulnerability flags</h2>
        {job.vulnerabilityFlags.length ? (
          <>
            <ul className="flags">
              {job.vulnerabilityFlags.map((flag) => (
                <li key={flag} className="tag warn">
                  {FLAG_WORDS[flag]}
                </li>
              ))}
            </ul>
            <p className="hint">
              FG21/1: the client may be vulnerable. The job needs senior sign-off and a specialist reviewer.
            </p>
          </>
        ) : (
          <p>None recorded.</p>
        )}
      </section>
      <section className="card" aria-labelledby="fact-find">
        <h2 id="fact-find">Fact find</h2>
        <JsonFacts value={job.factFindSummary} empty="No fact find summary." />
      </section>
      <section className="card" aria-labelledby="ai">
        <h2 id="ai">AI context</h2>
        {job.aiContext ? (
          <JsonFacts value={job.aiContext as Record<string, unknown>} empty="No AI context." />
        ) : (
          <p>The document was not produced with AI assistance (no AI context).</p>
        )}
      </section>
    </>
  );
}

function FactRow(props: { name: string; value: string }) {
  return (
    <>
      <dt>{props.name}</dt>
      <dd>{props.value}</dd>
    </>
  );
}

/** A JSON object as a definition list: plain values in words, nested ones as formatted JSON. */
function JsonFacts(props: { value: Record<string, unknown>; empty: string }) {
  const entries = Object.entries(props.value);
  if (!entries.length) return <p>{props.empty}</p>;
  return (
    <dl className="facts">
      {entries.map(([name, value]) => (
        <FactRow
          key={name}
          name={name}
          value={typeof value === 'object' && value !== null ? JSON.stringify(value, null, 1) : String(value)}
        />
      ))}
    </dl>
  );
}
