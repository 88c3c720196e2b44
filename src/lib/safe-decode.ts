// Percent-decoding of a URL part that a client may have escaped badly.

/** decodeURIComponent, or undefined for a malformed escape. */
export function safeDecode(text: string): string | undefined {
  if (!text.includes("%")) return text; // the usual key: nothing to decode, nothing to throw
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
