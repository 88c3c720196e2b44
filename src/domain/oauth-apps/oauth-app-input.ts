// What an operator may configure as an OAuth 2 app, checked before it is stored: a plain app
// name (what connected accounts and app props call the app), absolute http(s) endpoints
// without credentials in them, and scopes as the tokens RFC 6749 §3.3 allows.
import { invalid } from "../../lib/errors.js";

export interface OAuthAppInput {
  app: string;
  client_id: string;
  client_secret?: string | null;
  authorize_url: string;
  token_url: string;
  scopes?: string[];
}

export const APP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,256}$/;
const MAX_SCOPES = 100;

export function checkOAuthApp(input: OAuthAppInput): Required<OAuthAppInput> & { client_secret: string } {
  const app = input.app.trim();
  if (!APP_NAME.test(app)) throw invalid("app must be letters, digits, '_', '.' or '-' (e.g. github or google_sheets)");
  const clientId = input.client_id.trim();
  if (clientId === "") throw invalid("client_id is required");
  const scopes = input.scopes ?? [];
  if (scopes.length > MAX_SCOPES) throw invalid(`scopes: at most ${MAX_SCOPES}`);
  for (const scope of scopes) if (!SCOPE.test(scope)) throw invalid(`scopes: "${scope.slice(0, 64)}" is not a scope (no spaces or quotes)`);
  return {
    app,
    client_id: clientId,
    client_secret: input.client_secret ?? "",
    authorize_url: endpoint(input.authorize_url, "authorize_url"),
    token_url: endpoint(input.token_url, "token_url"),
    scopes: [...new Set(scopes)],
  };
}

function endpoint(text: string, field: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw invalid(`${field} must be an absolute URL like https://provider.example/oauth/authorize`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw invalid(`${field} must use https (or http)`);
  if (url.username || url.password) throw invalid(`${field} must not hold a user name or password`);
  if (url.hash) throw invalid(`${field} must not have a #fragment`);
  return url.toString();
}
