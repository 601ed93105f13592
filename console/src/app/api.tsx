import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { createLedgerClient, type components, type LedgerClient } from '../../../clients/typescript/index';

/**
 * The typed API client (openapi-fetch over the types generated from /openapi.json, clients/typescript) with the
 * signed-in user's bearer token. Every page calls the API through `useApi()` and nothing else.
 */
const ApiContext = createContext<LedgerClient | null>(null);

export function ApiProvider(props: { baseUrl: string; token: string; children: ReactNode }) {
  const { baseUrl, token } = props;
  const client = useMemo(() => createLedgerClient({ baseUrl, token }), [baseUrl, token]);
  return <ApiContext.Provider value={client}>{props.children}</ApiContext.Provider>;
}

/** The API client of the signed-in user (inside the signed-in part of the console only). */
export function useApi(): LedgerClient {
  const client = useContext(ApiContext);
  if (!client) throw new Error('useApi() is used outside the signed-in console');
  return client;
}

export type ApiErrorBody = components['schemas']['Error'];

const BY_STATUS: Record<number, string> = {
  401: 'Your session has ended: sign in again.',
  403: 'You are not allowed to do this.',
  404: 'Not found: it may have been removed, or belong to another firm.',
  409: 'This conflicts with the current state: reload and try again.',
  429: 'Too many requests: wait a moment and try again.',
  503: 'The service is busy: try again shortly.',
};

/**
 * An API error in words for the user: the envelope's message (DESIGN.md error body), each field problem of a
 * validation error, and the request id to quote to support. Anything else (a network failure, a thrown
 * Error) becomes a sentence too, never a blank page.
 */
export function describeError(error: unknown, status?: number): string {
  if (isErrorBody(error)) {
    const { message, details, requestId } = error.error;
    const fields = (details ?? []).map((d) => `${d.path ? `${d.path}: ` : ''}${d.message}`);
    return [message, ...fields].join(' — ') + ` (request ${requestId})`;
  }
  if (status !== undefined && BY_STATUS[status]) return BY_STATUS[status];
  if (error instanceof TypeError) return 'The service could not be reached: check your connection and retry.';
  if (error instanceof Error) return error.message;
  return status ? `The request failed (HTTP ${status}).` : 'Something went wrong.';
}

function isErrorBody(value: unknown): value is ApiErrorBody {
  return (
    typeof value === 'object' &&
    value !== null &&
    'error' in value &&
    typeof (value as ApiErrorBody).error?.message === 'string'
  );
}

/** Unwraps an openapi-fetch answer: its data, or an Error whose message is the envelope in words. */
export function dataOrThrow<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || (result.data === undefined && result.response.status !== 204)) {
    throw new ApiError(describeError(result.error, result.response.status), result.response.status);
  }
  return result.data as T;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
