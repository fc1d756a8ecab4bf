/**
 * CPF and CNPJ (spec 1.2): digit strings whose leading zeros matter, with the
 * check digits of the Brazilian registries.
 */

/** spec 4.2: the photo upload fills leading zeros up to 11 characters; we pad the same way. */
export function padCpf(value: string): string {
  const digits = value.replace(/\D/g, '');
  return digits.padStart(11, '0');
}

/** Keeps digits only ("123.456.789-09" → "12345678909"), leading zeros kept. */
export function digitsOnly(value: string): string {
  return value.replace(/\D/g, '');
}

function checkDigit(digits: readonly number[], weights: readonly number[]): number {
  const sum = digits.reduce((acc, d, i) => acc + d * weights[i]!, 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

const CPF_W1 = [10, 9, 8, 7, 6, 5, 4, 3, 2];
const CPF_W2 = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_W1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_W2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

/** Completes 9 base digits into an 11-digit CPF with its two check digits. */
export function makeCpf(base9: string): string {
  if (!/^\d{9}$/.test(base9)) throw new RangeError(`CPF base must be 9 digits: ${base9}`);
  const d = [...base9].map(Number);
  d.push(checkDigit(d, CPF_W1));
  d.push(checkDigit(d, CPF_W2));
  return d.join('');
}

/** Completes 12 base digits into a 14-digit CNPJ with its two check digits. */
export function makeCnpj(base12: string): string {
  if (!/^\d{12}$/.test(base12)) throw new RangeError(`CNPJ base must be 12 digits: ${base12}`);
  const d = [...base12].map(Number);
  d.push(checkDigit(d, CNPJ_W1));
  d.push(checkDigit(d, CNPJ_W2));
  return d.join('');
}

/** True for an 11-digit CPF whose check digits hold and which is not one repeated digit. */
export function isValidCpf(value: string): boolean {
  return /^\d{11}$/.test(value) && !/^(\d)\1{10}$/.test(value) && makeCpf(value.slice(0, 9)) === value;
}

/** True for a 14-digit CNPJ whose check digits hold and which is not one repeated digit. */
export function isValidCnpj(value: string): boolean {
  return /^\d{14}$/.test(value) && !/^(\d)\1{13}$/.test(value) && makeCnpj(value.slice(0, 12)) === value;
}
