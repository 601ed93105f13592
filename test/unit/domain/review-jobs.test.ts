import {
  declaredModel,
  documentCopyKey,
  documentUrl,
  jobIdOfUpload,
  requiresSeniorSignOff,
  slaDeadline,
} from '../../../shared/domain/review/jobs.js';
import { parseUploadKey } from '../../../shared/domain/review/uploads.js';

describe('review job rules', () => {
  it('the SLA deadline is submittedAt plus exactly 48 hours', () => {
    expect(slaDeadline('2026-03-28T10:15:00.123Z')).toBe('2026-03-30T10:15:00.123Z');
    // Across a month end and a (UK) DST change: wall-clock irrelevant, 48 h of UTC.
    expect(slaDeadline('2026-03-31T23:00:00.000Z')).toBe('2026-04-02T23:00:00.000Z');
    expect(() => slaDeadline('not a date')).toThrow(RangeError);
  });

  it('any vulnerability flag forces senior sign-off; otherwise the caller decides', () => {
    expect(requiresSeniorSignOff(['health'], false)).toBe(true);
    expect(requiresSeniorSignOff(['capability'], undefined)).toBe(true);
    expect(requiresSeniorSignOff([], true)).toBe(true);
    expect(requiresSeniorSignOff([], false)).toBe(false);
    expect(requiresSeniorSignOff([], undefined)).toBe(false);
  });

  it('reads the declared model only when provider and version are strings', () => {
    expect(declaredModel({ model: { provider: 'p', version: 'v' }, other: 1 })).toEqual({
      provider: 'p',
      version: 'v',
    });
    expect(declaredModel(null)).toBeNull();
    expect(declaredModel(undefined)).toBeNull();
    expect(declaredModel({ confidence: 1 })).toBeNull();
    expect(declaredModel({ model: { provider: 'p' } })).toBeNull();
  });

  it('names the immutable copy documents/<firmId>/<jobId>/<filename>', () => {
    const key = documentCopyKey('firm_1', 'job_2', 'report.pdf');
    expect(key).toBe('documents/firm_1/job_2/report.pdf');
    expect(documentUrl(key)).toBe('immutable://documents/firm_1/job_2/report.pdf');
  });

  it('names the job (and so its copy) after the upload: every attempt to submit it names the same key', () => {
    const upload = parseUploadKey('uploads/firm_1/01JD0000000000000000000000/report.pdf');
    expect(upload).toEqual({
      firmId: 'firm_1',
      uploadId: '01JD0000000000000000000000',
      filename: 'report.pdf',
    });
    expect(jobIdOfUpload(upload!.uploadId)).toBe('job_01JD0000000000000000000000');
    expect(parseUploadKey('uploads/firm_1/not-a-ulid/report.pdf')).toBeNull();
    expect(parseUploadKey('documents/firm_1/01JD0000000000000000000000/report.pdf')).toBeNull();
  });
});
