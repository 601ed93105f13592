import type { ErrorDetail } from '../../errors.js';

/** Firm settings. Thresholds are fractions in [0, 1]; see docs/architecture.md for their meaning. */
export interface FirmSettings {
  biasWarningThreshold: number;
  biasAlertThreshold: number;
  biasAbsoluteRejectionThreshold: number;
  cdRejectionRateWarningThreshold: number;
  cdRejectionRateAlertThreshold: number;
  cdSlaComplianceWarningThreshold: number;
  cdSlaComplianceAlertThreshold: number;
  cdReadCompletionWarningThreshold: number;
  enforceImpactAssessments: boolean;
}

export type SettingName = keyof FirmSettings;

export const DEFAULT_SETTINGS: Readonly<FirmSettings> = Object.freeze({
  // Bias: absolute difference between a segment's rejection rate and its dimension baseline.
  biasWarningThreshold: 0.1,
  biasAlertThreshold: 0.2,
  // Bias: a segment rejection rate at or above this is rejected outright as unfair.
  biasAbsoluteRejectionThreshold: 0.5,
  // Consumer Duty: share of reviewed documents rejected.
  cdRejectionRateWarningThreshold: 0.15,
  cdRejectionRateAlertThreshold: 0.25,
  // Consumer Duty: share of reviews completed within SLA (lower is worse).
  cdSlaComplianceWarningThreshold: 0.95,
  cdSlaComplianceAlertThreshold: 0.9,
  // Consumer Duty: share of documents read to completion (lower is worse).
  cdReadCompletionWarningThreshold: 0.8,
  enforceImpactAssessments: true,
});

export const THRESHOLD_FIELDS = [
  'biasWarningThreshold',
  'biasAlertThreshold',
  'biasAbsoluteRejectionThreshold',
  'cdRejectionRateWarningThreshold',
  'cdRejectionRateAlertThreshold',
  'cdSlaComplianceWarningThreshold',
  'cdSlaComplianceAlertThreshold',
  'cdReadCompletionWarningThreshold',
] as const satisfies readonly SettingName[];

/** Settings whose change is evidence: changing one writes FIRM_SETTINGS_UPDATED. */
export const COMPLIANCE_RELEVANT_SETTINGS: readonly SettingName[] = ['enforceImpactAssessments'];

export interface SettingChange {
  field: SettingName;
  from: FirmSettings[SettingName];
  to: FirmSettings[SettingName];
}

/** Stored settings completed with defaults for any field a firm has never set. */
export function effectiveSettings(stored: Partial<FirmSettings> | undefined): FirmSettings {
  return { ...DEFAULT_SETTINGS, ...stored };
}

/** Field-level diff in a stable field order; fields whose value is unchanged are omitted. */
export function diffSettings(current: FirmSettings, update: Partial<FirmSettings>): SettingChange[] {
  return (Object.keys(DEFAULT_SETTINGS) as SettingName[])
    .filter((field) => update[field] !== undefined && update[field] !== current[field])
    .map((field) => ({ field, from: current[field], to: update[field] as FirmSettings[SettingName] }));
}

export function isComplianceRelevant(changes: readonly SettingChange[]): boolean {
  return changes.some((c) => COMPLIANCE_RELEVANT_SETTINGS.includes(c.field));
}

/**
 * Rules across fields, checked on the settings as they would be after the update: a warning must come
 * before its alert (higher-is-worse rates: warning <= alert; compliance rates: warning >= alert).
 */
export function crossFieldProblems(settings: FirmSettings): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const pair = (warning: SettingName, alert: SettingName, worseIsHigher: boolean) => {
    const w = settings[warning] as number;
    const a = settings[alert] as number;
    if (worseIsHigher ? w > a : w < a) {
      problems.push({
        path: `body.${warning}`,
        message: `${warning} (${w}) must be ${worseIsHigher ? 'at most' : 'at least'} ${alert} (${a})`,
      });
    }
  };
  pair('biasWarningThreshold', 'biasAlertThreshold', true);
  pair('cdRejectionRateWarningThreshold', 'cdRejectionRateAlertThreshold', true);
  pair('cdSlaComplianceWarningThreshold', 'cdSlaComplianceAlertThreshold', false);
  return problems;
}
