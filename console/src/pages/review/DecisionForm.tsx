import { useId, useState, type FormEvent } from 'react';
import { dataOrThrow, describeError, useApi } from '../../app/api';
import { ErrorMessage, TextAreaField } from '../../app/ui';
import { OUTCOME_WORDS, type Job, type Outcome } from './words';

type Answer = 'YES' | 'NO' | 'NOT_APPLICABLE';
const ANSWER_WORDS: Record<Answer, string> = { YES: 'Yes', NO: 'No', NOT_APPLICABLE: 'Not applicable' };
const OUTCOMES = Object.keys(OUTCOME_WORDS) as Outcome[];

/**
 * The decision (POST /v1/review/jobs/{id}/complete): every checklist item of the document type answered, the
 * outcome, a reason (required to reject) and the modifications (required, and only allowed, to approve with
 * modifications). The send button stays disabled, saying what is missing, until the rules are met.
 */
export function DecisionForm(props: {
  job: Job;
  checklist: readonly string[];
  onDecided: (job: Job) => void;
}) {
  const api = useApi();
  const { job, checklist } = props;
  const [answers, setAnswers] = useState<Record<string, Answer>>({});
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [reason, setReason] = useState('');
  const [modifications, setModifications] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const missing: string[] = [];
  const unanswered = checklist.filter((item) => !answers[item]).length;
  if (unanswered)
    missing.push(`answer the ${unanswered} remaining checklist item${unanswered > 1 ? 's' : ''}`);
  if (!outcome) missing.push('choose an outcome');
  if (outcome === 'REJECTED' && !reason.trim()) missing.push('give the reason for rejecting');
  if (outcome === 'APPROVED_WITH_MODIFICATIONS' && !modifications.trim())
    missing.push('describe the modifications');

  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (missing.length || !outcome) return;
    setBusy(true);
    setError(null);
    try {
      const decided = dataOrThrow(
        await api.POST('/v1/review/jobs/{id}/complete', {
          params: { path: { id: job.id }, header: { 'Idempotency-Key': crypto.randomUUID() } },
          body: {
            outcome,
            outcomeReason: reason.trim() || null,
            ...(outcome === 'APPROVED_WITH_MODIFICATIONS' ? { modifications: modifications.trim() } : {}),
            checklist: checklist.map((item) => ({ item, answer: answers[item]! })),
          },
        }),
      );
      props.onDecided(decided);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="decision">
      <h2 id="decision">Decision</h2>
      <form onSubmit={(event) => void send(event)} noValidate>
        <fieldset className="checklist">
          <legend>Checklist</legend>
          {checklist.map((item) => (
            <ChecklistItem
              key={item}
              item={item}
              answer={answers[item]}
              onAnswer={(answer) => setAnswers((current) => ({ ...current, [item]: answer }))}
            />
          ))}
        </fieldset>
        <fieldset className="choices">
          <legend>Outcome</legend>
          {OUTCOMES.map((value) => (
            <label key={value} className="choice">
              <input
                type="radio"
                name="outcome"
                value={value}
                checked={outcome === value}
                onChange={() => setOutcome(value)}
              />{' '}
              {OUTCOME_WORDS[value]}
            </label>
          ))}
        </fieldset>
        <TextAreaField
          label="Reason"
          hint={outcome === 'REJECTED' ? 'Required: why the advice is rejected.' : 'Optional.'}
          value={reason}
          required={outcome === 'REJECTED'}
          maxLength={5000}
          onChange={(event) => setReason(event.target.value)}
        />
        {outcome === 'APPROVED_WITH_MODIFICATIONS' ? (
          <TextAreaField
            label="Modifications"
            hint="Required: the changes the adviser must make, recorded verbatim."
            value={modifications}
            required
            maxLength={20000}
            onChange={(event) => setModifications(event.target.value)}
          />
        ) : null}
        <ErrorMessage error={error} />
        <p className="hint" role="status">
          {missing.length ? `Before sending: ${missing.join('; ')}.` : 'Ready to send.'}
        </p>
        <button type="submit" className="primary" disabled={busy || missing.length > 0}>
          {busy ? 'Sending…' : 'Send decision'}
        </button>
      </form>
    </section>
  );
}

function ChecklistItem(props: {
  item: string;
  answer: Answer | undefined;
  onAnswer: (answer: Answer) => void;
}) {
  const name = useId();
  return (
    <fieldset className="checklist-item">
      <legend>{props.item}</legend>
      {(Object.keys(ANSWER_WORDS) as Answer[]).map((answer) => (
        <label key={answer} className="choice">
          <input
            type="radio"
            name={name}
            value={answer}
            checked={props.answer === answer}
            onChange={() => props.onAnswer(answer)}
          />{' '}
          {ANSWER_WORDS[answer]}
        </label>
      ))}
    </fieldset>
  );
}

/** Escalation to senior sign-off (POST /v1/review/jobs/{id}/escalate), with its required reason. */
export function EscalateForm(props: { job: Job; onEscalated: (job: Job) => void }) {
  const api = useApi();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (!reason.trim()) return setError('Give the reason for escalating.');
    setBusy(true);
    setError(null);
    try {
      props.onEscalated(
        dataOrThrow(
          await api.POST('/v1/review/jobs/{id}/escalate', {
            params: { path: { id: props.job.id } },
            body: { reason: reason.trim() },
          }),
        ),
      );
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-labelledby="escalate">
      <h2 id="escalate">Escalate</h2>
      <form onSubmit={(event) => void send(event)} noValidate>
        <TextAreaField
          label="Reason for escalating"
          hint="The job leaves you and waits for a lead reviewer's sign-off."
          value={reason}
          maxLength={2000}
          onChange={(event) => setReason(event.target.value)}
        />
        <ErrorMessage error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Escalating…' : 'Escalate'}
        </button>
      </form>
    </section>
  );
}
