// The inbound address of an e-mail source: `<key>@<SLUICE_EMAIL_DOMAIN>`. A source has one when
// its component has an e-mail app prop (`{type: "app", app: "email"}`, the prop of Pipedream's
// `email-new-email`). The key is random, made when the source gets the prop and kept across
// updates; it is lower-case and matched without regard to case, because senders and relays
// may change the case of an address's local part.
import type { ConfigurableProp } from "../../runtime/code-runner.js";

const EMAIL_APP = "email";

/** An e-mail prop takes no value and no connected account: the address is the service's. */
export const isEmailProp = (prop: ConfigurableProp): boolean => prop.type === "app" && prop.app === EMAIL_APP;

export const emailAddress = (domain: string, key: string | null): string | null => (key ? `${key}@${domain}` : null);

/** The key an address names on this domain, or undefined for any other address. */
export function emailKeyOf(address: string, domain: string): string | undefined {
  const at = address.lastIndexOf("@");
  if (at <= 0 || address.slice(at + 1).toLowerCase() !== domain) return undefined;
  const local = address.slice(0, at).toLowerCase();
  return /^[a-z0-9]{1,64}$/.test(local) ? local : undefined;
}
