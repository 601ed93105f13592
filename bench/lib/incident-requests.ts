/**
 * The request every append bench sends: `POST /v1/incidents` with a firm's API key (an INCIDENT_LOGGED append),
 * and the same request at its floor (a body validation refuses after authentication and the firm's write limit:
 * what any append costs before its own work, nothing written).
 */

/** An incident the benches log, numbered `index`. */
export function incidentBody(index: number): Record<string, unknown> {
  return {
    title: `Bench incident ${index}`,
    description: 'A suitability report went out with a stale risk profile.',
    severity: 'LOW',
    category: 'OPERATIONAL',
  };
}

/** A body refused by validation (400) once the request is authenticated and within its limit. */
export const FLOOR_BODY = { title: '' };

/** Sends `POST /v1/incidents` with `body`, reads the whole answer, and returns its status. */
export async function postIncident(baseUrl: string, apiKey: string, body: unknown): Promise<number> {
  const response = await fetch(`${baseUrl}/v1/incidents`, {
    method: 'POST',
    headers: { 'X-Service-Key': apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Sends `POST /v1/incidents` with `body`; its status and, on 201, the new incident's id. */
export async function postIncidentForId(
  baseUrl: string,
  apiKey: string,
  body: unknown,
): Promise<{ status: number; incidentId?: string }> {
  const response = await fetch(`${baseUrl}/v1/incidents`, {
    method: 'POST',
    headers: { 'X-Service-Key': apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201) return { status: response.status };
  const id = (JSON.parse(text) as { id?: string; data?: { id?: string } }).id;
  return { status: response.status, ...(id ? { incidentId: id } : {}) };
}
