import {
  useId,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';

interface FieldFrame {
  label: string;
  /** A hint under the label, tied to the control by aria-describedby. */
  hint?: ReactNode;
  /** A problem with the value, in words; marks the control invalid. */
  error?: string | null;
}

function frame(id: string, props: FieldFrame, control: ReactNode) {
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.hint ? (
        <p className="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {control}
      {props.error ? (
        <p className="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

function described(id: string, props: FieldFrame) {
  const ids = [props.hint ? `${id}-hint` : null, props.error ? `${id}-error` : null].filter(Boolean);
  return {
    id,
    'aria-describedby': ids.length ? ids.join(' ') : undefined,
    'aria-invalid': props.error ? true : undefined,
  };
}

/** A labelled input. */
export function Field(props: FieldFrame & InputHTMLAttributes<HTMLInputElement>) {
  const { label: _l, hint: _h, error: _e, ...input } = props;
  const id = useId();
  return frame(id, props, <input {...input} {...described(id, props)} />);
}

/** A labelled multi-line input. */
export function TextAreaField(props: FieldFrame & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const { label: _l, hint: _h, error: _e, ...input } = props;
  const id = useId();
  return frame(id, props, <textarea rows={4} {...input} {...described(id, props)} />);
}

/** A labelled select of `options` (value and words). */
export function SelectField(
  props: FieldFrame &
    SelectHTMLAttributes<HTMLSelectElement> & { options: readonly { value: string; label: string }[] },
) {
  const { label: _l, hint: _h, error: _e, options, ...select } = props;
  const id = useId();
  return frame(
    id,
    props,
    <select {...select} {...described(id, props)}>
      {options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </select>,
  );
}
