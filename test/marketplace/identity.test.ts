import { describe, expect, it } from 'vitest';
import { handleOf } from '../../src/marketplace/identity.js';

/** The rule of a handle, written out: NFKC, runs of white space as one space, trimmed, at most 50 code points, never an e-mail address. */
function handleByRule(id: string, displayName: string | null): string {
  const name = (displayName ?? '').normalize('NFKC').replace(/\s+/g, ' ').trim();
  if (name && !name.includes('@')) return [...name].slice(0, 50).join('');
  return `user-${id.slice(id.indexOf('_') + 1, id.indexOf('_') + 9).toLowerCase()}`;
}

describe('handleOf', () => {
  const names = [
    null,
    '',
    ' ',
    'Ada',
    'Ada Lovelace',
    'Ada  Lovelace',
    ' Ada',
    'Ada ',
    'Ada\tLovelace',
    'Ada\u00a0Lovelace',
    'ada@example.com',
    'Ada @ work',
    'Ｆｕｌｌｗｉｄｔｈ',
    'ﬁne ligature',
    'Zoë',
    'e\u0301cole',
    '李小龍',
    '😀 emoji name',
    'x'.repeat(50),
    'x'.repeat(51),
    `${'y '.repeat(25)}`.trim(),
    `${'😀'.repeat(49)}ab`,
    'line\nbreak',
    '~!#$%^&*()_+{}|:"<>?',
  ];

  it('answers every display name as its rule says, plain ASCII ones included', () => {
    for (const name of names)
      expect(handleOf({ id: 'usr_AbCdEfGhIjK', displayName: name }), JSON.stringify(name)).toBe(handleByRule('usr_AbCdEfGhIjK', name));
  });
});
