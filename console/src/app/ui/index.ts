export { DataTable, type Column } from './DataTable';
export { ErrorMessage } from './ErrorMessage';
export { Field, SelectField, TextAreaField } from './Field';
export { Loading } from './Loading';
export { Page } from './Page';
