/** Keeps secrets out of anything printed: passwords in connection URLs become `***`. */

const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@'"]*:)[^\s@'"/]+@/gi;

/** The text with the password of every `scheme://user:password@host` URL replaced by `***`. */
export function maskSecrets(text: string): string {
  return text.replace(URL_PASSWORD, '$1***@');
}
