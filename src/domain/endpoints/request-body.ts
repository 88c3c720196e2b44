// The body of a public endpoint request as its target's code sees it.

const JSON_TYPE = /json/i;

/** Whether a content type says the body is JSON (any type naming json, as clients vary). */
export const isJsonType = (contentType: string | undefined): boolean => contentType !== undefined && JSON_TYPE.test(contentType);

/** The text parsed as JSON when the content type says JSON; otherwise, or when it is not JSON after all, the text. */
export function jsonOrText(text: string, contentType: string | undefined): unknown {
  if (text === "" || !isJsonType(contentType)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
