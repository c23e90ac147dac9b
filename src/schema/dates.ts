import { z } from 'zod';

/**
 * The dates a backup line or a replica's push may carry, and an autopilot line: what the service
 * itself would have written (ISO 8601 in UTC with milliseconds, spelled as `toISOString()` spells
 * it) within a window of plausible clocks. A date past year 9999 cannot be written in that form,
 * and every later PUT would be stamped after it: one such date made an account's own backup
 * unreadable and its replicas' sync fail for good.
 */
export const EARLIEST_DATE = '2000-01-01T00:00:00.000Z';
export const LATEST_DATE = '2100-01-01T00:00:00.000Z';

const earliest = Date.parse(EARLIEST_DATE);
const latest = Date.parse(LATEST_DATE);

const DATE_HINT = `a date must be a real instant from ${EARLIEST_DATE} to before ${LATEST_DATE}, written as "2026-01-31T12:00:00.000Z"`;

export const storedDateSchema = z.iso.datetime({ precision: 3, error: DATE_HINT }).refine(
  (date) => {
    const instant = Date.parse(date);
    return instant >= earliest && instant < latest && new Date(instant).toISOString() === date;
  },
  { error: DATE_HINT },
);

/** Whether the date `a` is a later instant than `b`: dates compare as instants, never as text. */
export const laterThan = (a: string, b: string) => Date.parse(a) > Date.parse(b);
