import { actorOf, type Principal } from '../domain/auth/principal.js';
import { actorSummary, userIdOf } from '../domain/governance/actors.js';
import {
  canSupersede,
  canTransition,
  defaultOutcomes,
  isImmutable,
  latestApproval,
  mayApprove,
  mergeOutcomes,
  modelPairProblem,
  OUTCOME_AREAS,
  TEMPLATE_VERSION,
  withApproval,
  withoutApproval,
  type IaStatus,
  type Outcomes,
  type OutcomesPatch,
} from '../domain/governance/impact-assessments.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { isId, newId } from '../ids.js';
import { appendUnlessRaced } from '../ledger-writer/append.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import {
  assessmentUpdateItem,
  getAssessment,
  getModelIndex,
  assessmentListQuery,
  assessmentOf,
  modelIndexWriteItem,
  putNewAssessment,
  updateAssessment,
  type AssessmentChange,
  type ImpactAssessmentItem,
} from '../store/impact-assessment-store.js';
import { writeConditionally, type TransactItem } from '../store/conditional-write.js';
import { LOST_RACE, retryOnLostRace, type LostRace } from '../store/lost-race.js';
import { readArraySlice, type ArraySlice } from './pages.js';

export type PublicAssessment = Omit<ImpactAssessmentItem, 'version'>;

export function presentAssessment(item: ImpactAssessmentItem): PublicAssessment {
  const { version: _version, ...rest } = item;
  // DynamoDB returns map members in any order: show the areas in the template's order.
  const outcomes = Object.fromEntries(OUTCOME_AREAS.map((area) => [area, item.outcomes[area]])) as Outcomes;
  return { ...rest, outcomes };
}

export interface NewAssessmentInput {
  useCase: string;
  description: string;
  modelProvider?: string | null | undefined;
  modelVersion?: string | null | undefined;
  outcomes?: OutcomesPatch | undefined;
}

function checkModelPair(provider: string | null, version: string | null): void {
  const problem = modelPairProblem(provider, version);
  if (problem)
    throw new ValidationError(problem, [
      { path: provider === null ? 'body.modelProvider' : 'body.modelVersion', message: problem },
    ]);
}

/** A new DRAFT assessment of template 1; omitted outcome areas are empty and rated LOW. */
export async function createAssessment(
  deps: Deps,
  principal: Principal,
  input: NewAssessmentInput,
): Promise<PublicAssessment> {
  const modelProvider = input.modelProvider ?? null;
  const modelVersion = input.modelVersion ?? null;
  checkModelPair(modelProvider, modelVersion);
  const now = isoNow(deps.clock);
  const item: ImpactAssessmentItem = {
    id: newId('impactAssessment'),
    firmId: principal.firmId,
    useCase: input.useCase,
    description: input.description,
    modelProvider,
    modelVersion,
    templateVersion: TEMPLATE_VERSION,
    outcomes: mergeOutcomes(defaultOutcomes(), input.outcomes),
    status: 'DRAFT',
    createdById: userIdOf(principal),
    createdBy: actorSummary(principal),
    signedOffById: null,
    signedOffBy: null,
    signedOffAt: null,
    createdAt: now,
    updatedAt: now,
    ledgerRecordId: null,
    certificateId: null,
    version: 1,
  };
  await putNewAssessment(deps, item);
  return presentAssessment(item);
}

async function load(deps: Deps, firmId: string, id: string): Promise<ImpactAssessmentItem> {
  const item = isId('impactAssessment', id) ? await getAssessment(deps, firmId, id) : null;
  if (!item) throw new NotFoundError('Impact assessment not found');
  return item;
}

export async function getFirmAssessment(deps: Deps, firmId: string, id: string): Promise<PublicAssessment> {
  return presentAssessment(await load(deps, firmId, id));
}

/** Up to `limit` of the firm's assessments, newest first (createdAt, then id), from the request's cursor. */
export async function listFirmAssessments(
  deps: Deps,
  firmId: string,
  request: { limit: number; cursor?: string | undefined },
): Promise<ArraySlice<PublicAssessment>> {
  const scope = { firmId, query: { list: 'assessments' } };
  return readArraySlice(deps, scope, request, assessmentListQuery(deps, firmId), (item) =>
    presentAssessment(assessmentOf(item)),
  );
}

export interface AssessmentUpdate extends Partial<NewAssessmentInput> {
  status?: IaStatus | undefined;
}

const ATTEMPTS = 5;
const changedConcurrently = () => new ConflictError('The impact assessment was changed concurrently; retry');

/**
 * Edits fields and/or moves the status. Checks, in order: approval by anyone but a signed-in LEAD_REVIEWER or
 * FIRM_ADMIN (403), unknown id (404), an APPROVED or SUPERSEDED assessment (409), a move the graph does not
 * allow (409), provider without version or the reverse (400). Approval stamps the signer, writes
 * IMPACT_ASSESSMENT_APPROVED, sets ledgerRecordId and adds the assessment to its model's approved index, all in
 * one transaction. Concurrent changes are serialised by the assessment's version.
 */
export async function changeAssessment(
  deps: Deps,
  principal: Principal,
  id: string,
  update: AssessmentUpdate,
): Promise<PublicAssessment> {
  if (update.status === 'APPROVED' && !mayApprove(principal))
    throw new ForbiddenError(
      'Approving an impact assessment requires a signed-in LEAD_REVIEWER or FIRM_ADMIN (API keys cannot approve)',
    );
  return retryOnLostRace(
    async () => {
      const current = await load(deps, principal.firmId, id);
      if (isImmutable(current.status))
        throw new ConflictError(`A ${current.status} impact assessment is immutable`);
      const target = update.status ?? current.status;
      if (!canTransition(current.status, target))
        throw new ConflictError(`An impact assessment cannot move from ${current.status} to ${target}`);

      const next = {
        useCase: update.useCase ?? current.useCase,
        description: update.description ?? current.description,
        modelProvider: update.modelProvider === undefined ? current.modelProvider : update.modelProvider,
        modelVersion: update.modelVersion === undefined ? current.modelVersion : update.modelVersion,
        outcomes: mergeOutcomes(current.outcomes, update.outcomes),
        status: target,
      };
      checkModelPair(next.modelProvider, next.modelVersion);
      const change: AssessmentChange = Object.fromEntries(
        Object.entries(next).filter(
          ([field, value]) =>
            JSON.stringify(value) !== JSON.stringify(current[field as keyof ImpactAssessmentItem]),
        ),
      );
      if (Object.keys(change).length === 0) return presentAssessment(current);
      const now = isoNow(deps.clock);
      change.updatedAt = now;

      if (target === 'APPROVED') {
        const approved = await approve(deps, principal, current, change, now);
        return approved === LOST_RACE ? LOST_RACE : presentAssessment(approved);
      }
      if (!(await updateAssessment(deps, current, change))) return LOST_RACE;
      return presentAssessment({ ...current, ...change, version: current.version + 1 });
    },
    { attempts: ATTEMPTS, exhausted: changedConcurrently },
  );
}

async function approve(
  deps: Deps,
  principal: Principal,
  current: ImpactAssessmentItem,
  change: AssessmentChange,
  now: string,
): Promise<ImpactAssessmentItem | LostRace> {
  if (principal.kind !== 'user') throw new ForbiddenError('API keys cannot approve impact assessments');
  const approved: ImpactAssessmentItem = {
    ...current,
    ...change,
    signedOffAt: now,
    signedOffById: principal.userId,
    signedOffBy: actorSummary(principal),
    version: current.version + 1,
  };
  const model =
    approved.modelProvider !== null && approved.modelVersion !== null
      ? { provider: approved.modelProvider, version: approved.modelVersion }
      : null;
  const index = model ? await getModelIndex(deps, current.firmId, model.provider, model.version) : null;
  const extra: TransactItem[] = [];
  if (model && index) {
    const set = withApproval(index.approved, approved.id, now);
    extra.push(modelIndexWriteItem(deps, current.firmId, model, index, set, latestApproval(set)));
  }
  // LOST_RACE: the assessment's version or its model's index moved (re-read and decide again).
  const record = await appendUnlessRaced(
    deps,
    {
      firmId: current.firmId,
      eventType: 'IMPACT_ASSESSMENT_APPROVED',
      actor: actorOf(principal),
      documentMetadata: {
        assessmentId: approved.id,
        useCase: approved.useCase,
        description: approved.description,
        modelProvider: approved.modelProvider,
        modelVersion: approved.modelVersion,
        templateVersion: approved.templateVersion,
        outcomes: approved.outcomes,
        signer: {
          id: principal.userId,
          name: principal.name,
          role: principal.role,
          fcaRef: principal.fcaRef,
        },
        signedOffAt: now,
      },
    },
    (sealed) => [
      assessmentUpdateItem(deps, current, {
        ...change,
        signedOffAt: now,
        signedOffById: approved.signedOffById,
        signedOffBy: approved.signedOffBy,
        ledgerRecordId: sealed.id,
      }),
      ...extra,
    ],
  );
  return record === LOST_RACE ? LOST_RACE : { ...approved, ledgerRecordId: record.id };
}

/**
 * APPROVED to SUPERSEDED: the assessment stays for audit but no longer counts toward the gate. Its model's
 * index loses it in the same transaction; when another APPROVED assessment still covers the model, the index
 * names that one instead, so superseding an older approval never closes the gate a newer one opened.
 */
export async function supersedeAssessment(
  deps: Deps,
  principal: Principal,
  id: string,
): Promise<PublicAssessment> {
  return retryOnLostRace(
    async () => {
      const current = await load(deps, principal.firmId, id);
      if (!canSupersede(current.status))
        throw new ConflictError(
          `Only an APPROVED impact assessment can be superseded (this one is ${current.status})`,
        );
      const change: AssessmentChange = { status: 'SUPERSEDED', updatedAt: isoNow(deps.clock) };
      const items = [assessmentUpdateItem(deps, current, change)];
      if (current.modelProvider !== null && current.modelVersion !== null) {
        const model = { provider: current.modelProvider, version: current.modelVersion };
        const index = await getModelIndex(deps, current.firmId, model.provider, model.version);
        if (current.id in index.approved) {
          const set = withoutApproval(index.approved, current.id);
          items.push(modelIndexWriteItem(deps, current.firmId, model, index, set, latestApproval(set)));
        }
      }
      if ((await writeConditionally(deps, items)).status !== 'committed') return LOST_RACE;
      return presentAssessment({ ...current, ...change, version: current.version + 1 });
    },
    { attempts: ATTEMPTS, exhausted: changedConcurrently },
  );
}
