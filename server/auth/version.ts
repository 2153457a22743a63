/** API version negotiation (CONTRACT §3): v<major>.<yyyymmdd>, majors 4–8, not newer than ours. */
import { API_VERSION } from '../client/sign';
import { Problem } from '../http/problem';

const VERSION = /^v(\d+)\.(\d{8})$/;
const [, CURRENT_MAJOR, CURRENT_DATE] = VERSION.exec(API_VERSION)!;

export function checkApiVersion(value: string | undefined): void {
  if (!value) throw new Problem('invalid-auth-params', 'X-Svc-Version header is missing.');
  const match = VERSION.exec(value.trim());
  const major = match ? Number(match[1]) : NaN;
  const supported =
    match !== null &&
    major >= 4 &&
    major <= Number(CURRENT_MAJOR) &&
    (major < Number(CURRENT_MAJOR) || match[2] <= CURRENT_DATE);
  if (!supported) throw new Problem('generic-bad-request', 'Unsupported API version.');
}
