import { describe, expect, it } from 'vitest';
import { PERMISSIONS, PERMISSION_WORDS, permissionWords, plainPermissionMessage } from './permissions.ts';

describe('permissions in plain words (issue 42 item 8)', () => {
  it('every permission has words', () => {
    for (const p of PERMISSIONS) expect(PERMISSION_WORDS[p].length).toBeGreaterThan(5);
  });

  it('names a permission by what it lets a person do', () => {
    expect(permissionWords('content.write')).toBe('permission to change ads and landing pages');
    expect(permissionWords('made.up')).toBe('the made.up permission');
  });

  it("rewrites the server's access message, leaving unknown codes alone", () => {
    expect(
      plainPermissionMessage('Access Denied: your role does not have the content.write permission.'),
    ).toBe('Access Denied: your role does not have permission to change ads and landing pages.');
    expect(plainPermissionMessage('needs the made.up permission')).toBe('needs the made.up permission');
  });
});
