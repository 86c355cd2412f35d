/**
 * Text to DATE as Flink reads it (CAST(s AS DATE), TO_DATE(s), a DATE compared with a string):
 * what follows the first space is ignored, so a timestamp's text gives its date
 * (`'2017-09-15 08:00:00'`); the rest is `year[-month[-day]]`, each part digits with optional
 * surrounding spaces, a missing month or day being 1 (`'2017'` is 2017-01-01); the year is in
 * [0, 9999] and the date must exist.
 */
import { dateFromParts } from '../../common/datetime.js';

const DIGITS = /^\d+$/;

/** The day number of the date the text names, or undefined when it names none. */
export function parseDateText(text: string): number | undefined {
  const space = text.indexOf(' ');
  const date = space > 0 ? text.slice(0, space) : text;
  const parts = date.split('-');
  if (parts.length > 3) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    const trimmed = part.trim();
    if (!DIGITS.test(trimmed)) return undefined;
    numbers.push(Number(trimmed));
  }
  const [year, month = 1, day = 1] = numbers as [number, number?, number?];
  if (year > 9999) return undefined;
  return dateFromParts(year, month, day);
}
