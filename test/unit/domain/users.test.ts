import type { Principal } from '../../../shared/domain/auth/principal.js';
import {
  activeAdminsExcept,
  FCA_REF_PATTERN,
  isActiveAdmin,
  mayAssignRoles,
  mayCreateWithRole,
  removesActiveAdmin,
} from '../../../shared/domain/users/user-rules.js';
import { CreateUserBody, UpdateUserBody } from '../../../shared/schemas/users.js';

const apiKey: Principal = { kind: 'apiKey', firmId: 'firm_1', keyId: 'key_1', name: 'ci' };
const userWith = (role: 'FIRM_ADMIN' | 'REVIEWER' | 'LEAD_REVIEWER'): Principal => ({
  kind: 'user',
  firmId: 'firm_1',
  userId: 'usr_1',
  name: 'Someone',
  email: 'someone@firm.test',
  role,
  fcaRef: null,
});

describe('who may assign roles', () => {
  it('lets only a signed-in FIRM_ADMIN change roles', () => {
    expect(mayAssignRoles(userWith('FIRM_ADMIN'))).toBe(true);
    expect(mayAssignRoles(userWith('LEAD_REVIEWER'))).toBe(false);
    expect(mayAssignRoles(userWith('REVIEWER'))).toBe(false);
    expect(mayAssignRoles(apiKey)).toBe(false);
  });

  it('lets an API key create reviewers, and only a signed-in FIRM_ADMIN create other roles', () => {
    expect(mayCreateWithRole(apiKey, 'REVIEWER')).toBe(true);
    expect(mayCreateWithRole(apiKey, 'LEAD_REVIEWER')).toBe(false);
    expect(mayCreateWithRole(apiKey, 'FIRM_ADMIN')).toBe(false);
    expect(mayCreateWithRole(userWith('FIRM_ADMIN'), 'FIRM_ADMIN')).toBe(true);
    expect(mayCreateWithRole(userWith('FIRM_ADMIN'), 'LEAD_REVIEWER')).toBe(true);
  });
});

describe('the last active FIRM_ADMIN', () => {
  const active = { role: 'FIRM_ADMIN' as const, deactivatedAt: null };
  const at = '2026-11-21T10:00:00.000Z';

  it('counts only active admins', () => {
    expect(isActiveAdmin(active)).toBe(true);
    expect(isActiveAdmin({ role: 'FIRM_ADMIN', deactivatedAt: at })).toBe(false);
    expect(isActiveAdmin({ role: 'LEAD_REVIEWER', deactivatedAt: null })).toBe(false);
  });

  it('sees demotions and deactivations of an active admin as removing one', () => {
    expect(removesActiveAdmin(active, { role: 'REVIEWER', deactivatedAt: null })).toBe(true);
    expect(removesActiveAdmin(active, { role: 'FIRM_ADMIN', deactivatedAt: at })).toBe(true);
    expect(removesActiveAdmin(active, active)).toBe(false);
    expect(
      removesActiveAdmin({ role: 'REVIEWER', deactivatedAt: null }, { role: 'REVIEWER', deactivatedAt: at }),
    ).toBe(false);
    expect(
      removesActiveAdmin({ role: 'FIRM_ADMIN', deactivatedAt: at }, { role: 'REVIEWER', deactivatedAt: at }),
    ).toBe(false);
  });

  it('counts the other active admins', () => {
    const users = [
      { id: 'a', ...active },
      { id: 'b', role: 'FIRM_ADMIN' as const, deactivatedAt: at },
      { id: 'c', role: 'REVIEWER' as const, deactivatedAt: null },
      { id: 'd', ...active },
    ];
    expect(activeAdminsExcept(users, 'a')).toBe(1);
    expect(activeAdminsExcept(users, 'c')).toBe(2);
    expect(activeAdminsExcept(users.slice(0, 3), 'a')).toBe(0);
  });
});

describe('user request bodies', () => {
  const valid = { name: 'Rita Reviewer', email: 'rita@firm.test', fcaRef: 'ABC12345' };

  it('accepts FCA individual reference numbers of 3 letters and 5 digits, or null', () => {
    for (const ref of ['ABC12345', 'XYZ00001']) expect(FCA_REF_PATTERN.test(ref)).toBe(true);
    for (const ref of ['abc12345', 'AB123456', 'ABCD1234', 'ABC1234', 'ABC123456', ' ABC12345', '123456'])
      expect([ref, FCA_REF_PATTERN.test(ref)]).toEqual([ref, false]);
    expect(CreateUserBody.safeParse({ ...valid, fcaRef: null }).success).toBe(true);
    expect(CreateUserBody.safeParse({ name: valid.name, email: valid.email }).success).toBe(false);
  });

  it('fills the defaults', () => {
    expect(CreateUserBody.parse(valid)).toEqual({
      ...valid,
      qualifications: [],
      role: 'REVIEWER',
      specialistVulnerability: false,
    });
  });

  it('refuses unknown and repeated qualifications, pointing at the entry', () => {
    const unknown = CreateUserBody.safeParse({ ...valid, qualifications: ['CFP', 'MBA'] });
    expect(unknown.error?.issues.map((i) => i.path.join('.'))).toEqual(['qualifications.1']);
    const repeated = CreateUserBody.safeParse({ ...valid, qualifications: ['CFP', 'CISI', 'CFP'] });
    expect(repeated.error?.issues.map((i) => i.path.join('.'))).toEqual(['qualifications.2']);
    expect(
      CreateUserBody.parse({ ...valid, qualifications: ['CFA', 'CFP', 'DIP_PFS', 'CISI', 'IMC'] }),
    ).toBeTruthy();
  });

  it('needs specialistVulnerability or role in an update, and nothing else', () => {
    expect(UpdateUserBody.safeParse({}).success).toBe(false);
    expect(UpdateUserBody.safeParse({ name: 'x' }).success).toBe(false);
    expect(UpdateUserBody.safeParse({ role: 'OWNER' }).success).toBe(false);
    expect(UpdateUserBody.parse({ specialistVulnerability: true })).toEqual({
      specialistVulnerability: true,
    });
  });
});
