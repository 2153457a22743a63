/**
 * What makes account fields acceptable, checked in the browser before anything is sent (the manager checks the
 * same): one rule each for every form that asks for them (sign-up, expired password, settings, new user).
 */
export const MIN_PASSWORD_LENGTH = 8;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;
const MAX_FIELD_LENGTH = 64;

export const lengthProblem = (value: string): string | undefined => (value.trim().length > MAX_FIELD_LENGTH ? `At most ${MAX_FIELD_LENGTH} characters.` : undefined);

/** `invalid` says what to type, in the form's own words. */
export function emailProblem(email: string, invalid: string): string | undefined {
  return EMAIL_PATTERN.test(email.trim()) ? lengthProblem(email) : invalid;
}

export const passwordLengthProblem = (password: string): string | undefined =>
  password.length < MIN_PASSWORD_LENGTH ? `At least ${MIN_PASSWORD_LENGTH} characters.` : undefined;

/** Messages for a new password typed twice; empty when it may be sent. */
export function newPasswordProblems(next: string, repeat: string, current?: string): { next?: string; repeat?: string } {
  const problems: { next?: string; repeat?: string } = {};
  problems.next = passwordLengthProblem(next) ?? (current !== undefined && next === current ? 'Choose a password different from the expired one.' : undefined);
  if (repeat !== next) problems.repeat = 'The two passwords do not match.';
  return problems;
}
