/** The filesystem connector's `'path'`: a local path, or a `file:` URI as Flink's paths are often written (`file:///data/out/`). */
import { fileURLToPath } from 'node:url';
import { WeirError } from '../../common/errors.js';

/** The local path `text` names; throws INVALID_OPTION naming `'path'` for another scheme or a malformed `file:` URI. */
export function localPath(text: string): string {
  if (/^file:/i.test(text)) {
    try {
      return fileURLToPath(text);
    } catch (error) {
      throw new WeirError('INVALID_OPTION', `filesystem option 'path' is not a valid file URI: '${text}' (${(error as Error).message})`);
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    throw new WeirError('INVALID_OPTION', `filesystem option 'path' must be a local path or a file:// URI, got '${text}'`);
  }
  return text;
}
