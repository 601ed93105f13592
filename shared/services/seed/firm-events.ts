import type { ActorSummary } from '../../domain/governance/actors.js';
import {
  INCIDENT_CATEGORIES,
  INCIDENT_SEVERITIES,
  incidentMetadata,
} from '../../domain/governance/incidents.js';
import { ID_PREFIX } from '../../ids.js';
import type { LedgerEventType } from '../../ledger/event-types.js';
import type { IncidentItem } from '../../store/incident-store.js';
import type { OtherCounts, SeedInput } from './history.js';
import { SEED_MODELS } from './history.js';
import { actorOfUser, type Timeline } from './timeline.js';

const HOUR = 3_600_000;

/**
 * The firm's records besides its jobs' (issue 14, part 4; shared/services/seed/history.ts plans the jobs):
 * incidents (with their items), impact-assessment approvals, assurance reviews, settings changes,
 * verifications, and AI generations for whatever the record count leaves. Returns the incidents.
 */
export function addFirmEvents(
  timeline: Timeline,
  input: SeedInput,
  counts: OtherCounts | null,
  pick: <T>(values: readonly T[]) => T,
): IncidentItem[] {
  const { firmId, random } = input;
  const at = timeline.at;
  const ulidAt = timeline.ulidAt;
  const span = Math.max(1, input.to - input.from);
  const admin = actorOfUser(input.admin);
  const anywhere = () => input.from + random() * span;
  const incidents: IncidentItem[] = [];
  const reporter: ActorSummary = {
    id: input.admin.id,
    type: 'USER',
    name: input.admin.name,
    email: input.admin.email,
    role: input.admin.role,
  };
  for (let i = 0; i < (counts?.incidents ?? 0); i++) {
    const reportedAt = input.from + random() * span * 0.9;
    const resolved = i % 3 !== 2;
    const incident: IncidentItem = {
      id: '',
      firmId,
      title: `Seeded incident ${i + 1}`,
      description: 'An AI-generated recommendation needed correction after review.',
      severity: pick(INCIDENT_SEVERITIES),
      category: pick(INCIDENT_CATEGORIES),
      status: resolved ? 'RESOLVED' : pick(['OPEN', 'INVESTIGATING'] as const),
      reportedAt: '',
      reportedById: input.admin.id,
      reportedBy: reporter,
      resolvedAt: null,
      rootCause: resolved ? 'Prompt template omitted a risk warning' : null,
      affectedReviewJobIds: [],
      affectedLedgerRecordIds: [],
      metadata: {},
      version: resolved ? 1 : 0,
    };
    incidents.push(incident);
    const summary = () => incidentMetadata(incident);
    at(reportedAt, (_id, _i, ts) => {
      incident.id = `${ID_PREFIX.incident}_${ulidAt(Date.parse(ts))}`;
      incident.reportedAt = ts;
      return {
        eventType: 'INCIDENT_LOGGED',
        actor: admin,
        documentHash: '',
        documentMetadata: summary(),
        reviewJobId: null,
      };
    });
    if (resolved)
      at(reportedAt + (1 + random() * 14) * 24 * HOUR, (_id, _i, ts) => {
        incident.resolvedAt = ts;
        return {
          eventType: 'INCIDENT_RESOLVED',
          actor: admin,
          documentHash: '',
          documentMetadata: {
            ...summary(),
            status: 'RESOLVED',
            rootCause: incident.rootCause,
            resolvedAt: ts,
          },
          reviewJobId: null,
        };
      });
  }
  const simple = (
    eventType: LedgerEventType,
    metadata: (ts: string) => Record<string, unknown>,
    time = anywhere(),
  ) =>
    at(time, (_id, _i, ts) => ({
      eventType,
      actor: admin,
      documentHash: '',
      documentMetadata: metadata(ts),
      reviewJobId: null,
    }));
  SEED_MODELS.slice(0, counts?.assessments ?? 0).forEach((model, i) =>
    simple(
      'IMPACT_ASSESSMENT_APPROVED',
      () => ({
        assessmentId: `${ID_PREFIX.impactAssessment}_${ulidAt(input.from + i)}`,
        modelProvider: model.provider,
        modelVersion: model.version,
      }),
      input.from + i,
    ),
  );
  for (let i = 0; i < (counts?.assurance ?? 0); i++)
    simple('ASSURANCE_REVIEW_SIGNED', () => ({
      reviewPeriod: `Q${1 + (i % 4)}`,
      sampleSize: 25,
      findings: 'No material issues',
    }));
  for (let i = 0; i < (counts?.settings ?? 0); i++)
    simple('FIRM_SETTINGS_UPDATED', () => ({
      actorType: 'USER',
      actorId: admin.id,
      actorName: admin.name,
      changes: { slaHours: { from: null, to: 48 } },
    }));
  for (let i = 0; i < (counts?.verifications ?? 0); i++)
    simple('CHAIN_VERIFIED', () => ({
      mode: 'SCHEDULED',
      valid: true,
      brokenCount: 0,
      brokenSequenceNumbers: [],
    }));
  // Whatever is left: AI generations, the records clients write most.
  const remaining = input.records - timeline.size;
  if (remaining < 0)
    throw new RangeError(
      `--records ${input.records} cannot hold the ${timeline.size} records these incidents and other kinds need`,
    );
  for (let i = 0; i < remaining; i++)
    simple('GENERATION_RECORDED', () => {
      const model = pick(SEED_MODELS);
      return {
        model: `${model.provider}/${model.version}`,
        promptTokens: 500 + Math.floor(random() * 3000),
        outputTokens: 200 + Math.floor(random() * 1500),
      };
    });

  return incidents;
}
