/**
 * CPF and CNPJ (spec 1.2): digit strings whose leading zeros matter, with the
 * check digits of the Brazilian registries.
 */

/** spec 4.2: the photo upload fills leading zeros up to 11 characters; we pad the same way. */
export const padCpf = (value: string): string => digitsOnly(value).padStart(11, '0');

/** Keeps digits only ("123.456.789-09" → "12345678909"), leading zeros kept. */
export const digitsOnly = (value: string): string => value.replace(/\D/g, '');

/** The weights of the first check digit; the second's add the weight before them. */
const WEIGHTS = { CPF: [10, 9, 8, 7, 6, 5, 4, 3, 2], CNPJ: [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] };

/** `base` (9 digits of a CPF, 12 of a CNPJ) completed with its two check digits. */
function withCheckDigits(kind: keyof typeof WEIGHTS, base: string): string {
  const w = WEIGHTS[kind];
  if (base.length !== w.length || !/^\d+$/.test(base)) {
    throw new RangeError(`${kind} base must be ${w.length} digits: ${base}`);
  }
  const d = [...base].map(Number);
  for (const weights of [w, [w[0]! + 1, ...w]]) {
    const rest = d.reduce((acc, x, i) => acc + x * weights[i]!, 0) % 11;
    d.push(rest < 2 ? 0 : 11 - rest);
  }
  return d.join('');
}

/** Completes 9 base digits into an 11-digit CPF with its two check digits. */
export const makeCpf = (base9: string): string => withCheckDigits('CPF', base9);

/** Completes 12 base digits into a 14-digit CNPJ with its two check digits. */
export const makeCnpj = (base12: string): string => withCheckDigits('CNPJ', base12);

/** True for an 11-digit CPF whose check digits hold and which is not one repeated digit. */
export const isValidCpf = (value: string): boolean =>
  /^\d{11}$/.test(value) && !/^(\d)\1{10}$/.test(value) && makeCpf(value.slice(0, 9)) === value;

/** True for a 14-digit CNPJ whose check digits hold and which is not one repeated digit. */
export const isValidCnpj = (value: string): boolean =>
  /^\d{14}$/.test(value) && !/^(\d)\1{13}$/.test(value) && makeCnpj(value.slice(0, 12)) === value;
