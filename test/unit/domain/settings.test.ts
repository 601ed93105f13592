import {
  crossFieldProblems,
  DEFAULT_SETTINGS,
  diffSettings,
  effectiveSettings,
  isComplianceRelevant,
} from '../../../shared/domain/firm/settings.js';

describe('firm settings', () => {
  it('fills unset fields with defaults', () => {
    expect(effectiveSettings({ biasAlertThreshold: 0.3 })).toEqual({
      ...DEFAULT_SETTINGS,
      biasAlertThreshold: 0.3,
    });
    expect(effectiveSettings(undefined)).toEqual(DEFAULT_SETTINGS);
  });

  it('diffs only changed fields, in a stable order', () => {
    const current = effectiveSettings({});
    expect(diffSettings(current, { enforceImpactAssessments: true, biasAlertThreshold: 0.2 })).toEqual([]);
    expect(diffSettings(current, { enforceImpactAssessments: false, biasWarningThreshold: 0.05 })).toEqual([
      { field: 'biasWarningThreshold', from: 0.1, to: 0.05 },
      { field: 'enforceImpactAssessments', from: true, to: false },
    ]);
  });

  it('treats only enforceImpactAssessments as compliance-relevant', () => {
    const current = effectiveSettings({});
    expect(isComplianceRelevant(diffSettings(current, { biasAlertThreshold: 0.4 }))).toBe(false);
    expect(isComplianceRelevant(diffSettings(current, { enforceImpactAssessments: false }))).toBe(true);
  });

  it('requires warnings before alerts', () => {
    expect(crossFieldProblems(DEFAULT_SETTINGS)).toEqual([]);
    const problems = crossFieldProblems({
      ...DEFAULT_SETTINGS,
      biasWarningThreshold: 0.3,
      cdRejectionRateWarningThreshold: 0.3,
      cdSlaComplianceWarningThreshold: 0.8,
    });
    expect(problems.map((p) => p.path)).toEqual([
      'body.biasWarningThreshold',
      'body.cdRejectionRateWarningThreshold',
      'body.cdSlaComplianceWarningThreshold',
    ]);
    // Equal warning and alert levels are allowed.
    expect(crossFieldProblems({ ...DEFAULT_SETTINGS, biasWarningThreshold: 0.2 })).toEqual([]);
  });
});
