/**
 * Flink's legacy table options (`'connector.type' = 'filesystem'`, `'connector.path'`,
 * `'format.type' = 'csv'`, from before FLIP-122), as some published queries still declare them,
 * translated into the current options of the same connector. Only what has a counterpart is
 * translated; any other legacy key, and legacy connector types weir does not have, are refused
 * with the key named, never dropped silently (the version markers, which carry no meaning, excepted).
 */
import type { WrittenOption } from '../common/connector-descriptor.js';
import { WeirError } from '../common/errors.js';

/** Legacy keys and the current key each becomes. */
const RENAMED: Readonly<Record<string, string>> = {
  'connector.type': 'connector',
  'connector.path': 'path',
  'format.type': 'format',
  'format.field-delimiter': 'csv.field-delimiter',
  'format.quote-character': 'csv.quote-character',
  'format.allow-comments': 'csv.allow-comments',
  'format.null-literal': 'csv.null-literal',
  'format.ignore-parse-errors': 'format.ignore-parse-errors',
  'format.fail-on-missing-field': 'json.fail-on-missing-field',
};

/** Legacy keys without meaning today (schema derivation is always on; versions of the descriptor format). */
const IGNORED = new Set(['connector.property-version', 'format.property-version', 'format.derive-schema']);

/** Legacy connector types weir can translate. */
const CONNECTOR_TYPES = new Set(['filesystem']);

/** Legacy format types weir can translate (the same names as the current formats). */
const FORMAT_TYPES = new Set(['csv', 'json']);

/**
 * The current options for a legacy option set (each keeps the span of the option it came from);
 * keys that are not legacy (`csv.*`, `lookup.*`, ...) pass through. Throws INVALID_OPTION, at the
 * span of the first option that cannot be translated.
 */
export function translateLegacyOptions(options: readonly WrittenOption[]): WrittenOption[] {
  const translated: WrittenOption[] = [];
  for (const option of options) {
    const { key, value, span } = option;
    if (IGNORED.has(key)) continue;
    const renamed = RENAMED[key];
    if (renamed === undefined && (key.startsWith('connector.') || key.startsWith('format.'))) {
      throw new WeirError('INVALID_OPTION', `legacy option '${key}' has no counterpart in weir`, {
        hint: `write the table with current options ('connector' = ..., 'path', 'format'); legacy keys weir translates: ${Object.keys(RENAMED).join(', ')}`,
        span,
      });
    }
    if (key === 'connector.type' && !CONNECTOR_TYPES.has(value)) {
      throw new WeirError('INVALID_OPTION', `legacy connector type '${value}' is not supported`, {
        hint: `declare the table with 'connector' = '...' and that connector's current options; legacy connector types weir translates: ${[...CONNECTOR_TYPES].join(', ')}`,
        span,
      });
    }
    if (key === 'format.type' && !FORMAT_TYPES.has(value)) {
      throw new WeirError('INVALID_OPTION', `legacy format type '${value}' is not supported; legacy format types weir translates: ${[...FORMAT_TYPES].join(', ')}`, { span });
    }
    translated.push({ ...option, key: renamed ?? key });
  }
  return translated;
}
