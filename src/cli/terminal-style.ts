/**
 * Colours for one output stream: ANSI styles when the stream is a terminal that has colours
 * (`hasColors()`, which also honours FORCE_COLOR and TERM=dumb) and NO_COLOR is not set; plain
 * text otherwise, so piped output never carries escape codes.
 */

/** How text written to one stream is styled. Every method returns its input unchanged when colours are off. */
export interface TerminalStyle {
  readonly colors: boolean;
  /** Errors: red. */
  error(text: string): string;
  /** Informational messages (`[INFO] ...`): dim. */
  dim(text: string): string;
  /** The prompt: bold. */
  bold(text: string): string;
}

/** The style for `stream` under the environment `env`. */
export function styleFor(stream: NodeJS.WritableStream & { isTTY?: boolean; hasColors?: () => boolean }, env: NodeJS.ProcessEnv = process.env): TerminalStyle {
  const colors = stream.isTTY === true && typeof stream.hasColors === 'function' && stream.hasColors() && (env.NO_COLOR ?? '') === '';
  const wrap = (open: string, close: string) => (text: string): string => (colors ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  return { colors, error: wrap('31', '39'), dim: wrap('2', '22'), bold: wrap('1', '22') };
}
