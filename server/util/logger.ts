/** Berth's logger (pino: JSON lines on stdout), one spelling for every thread of the process. */
import pino, { type Logger } from 'pino';

export function createLogger(level: string): Logger {
  // Never log credentials, even by accident.
  return pino({ level, redact: ['req.headers.authorization', '*.secret_key', '*.password', '*.secretKey'] });
}
