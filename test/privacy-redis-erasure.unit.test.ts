import { describe, expect, it } from 'vitest';
import { eraseInText, mentionPattern } from '../src/privacy/redis-erasure.js';

const person = { cpf: '00123456789', names: ['Ana Souza Lima', 'Zé'], tombstone: 'erased-4' };

describe('the erasure of a person in Redis texts', () => {
  it('recognises the CPF in its forms and the names, never inside a longer number or word', () => {
    const re = mentionPattern(person);
    for (const yes of [
      'x 00123456789',
      '001.234.567-89',
      'n=123456789;',
      'ANA  SOUZA LIMA!',
      'por ana souza lima',
    ])
      expect(`${yes}`.match(re), yes).not.toBeNull();
    for (const no of ['90123456789', '1234567890', 'Mariana Souza Lima', 'Ana Souza Limaaa', 'Zé Carlos'])
      expect(no.match(re), no).toBeNull();
  });

  it('replaces mentions in plain text, and in JSON text keeps it JSON: a CPF sent as a number becomes the tombstone', () => {
    expect(eraseInText('collaborator 00123456789 (Ana Souza Lima) failed', [person])).toBe(
      'collaborator erased-4 (erased-4) failed',
    );
    expect(
      JSON.parse(
        eraseInText(
          JSON.stringify({ cpf: 123456789, note: 'CPF 001.234.567-89', list: ['ana souza lima', 5] }),
          [person],
        ),
      ),
    ).toEqual({
      cpf: 'erased-4',
      note: 'CPF erased-4',
      list: ['erased-4', 5],
    });
    // A JSON text that does not mention the person is left byte for byte.
    const untouched = '{ "a" : 1.50 }';
    expect(eraseInText(untouched, [person])).toBe(untouched);
  });
});
