/** Access and secret keys in the forms of CONTRACT §0: `AK` + 18 of [A-Z0-9], and 40 of [A-Za-z0-9]. */
import { randomInt } from 'node:crypto';

const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomString(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

export function generateAccessKey(): string {
  return 'AK' + randomString(UPPER_DIGITS, 18);
}

export function generateSecretKey(): string {
  return randomString(ALNUM, 40);
}

export function generatePassword(): string {
  return randomString(ALNUM, 20);
}
