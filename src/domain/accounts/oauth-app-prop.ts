// An app prop of a source whose connected account's credentials take part in OAuth refresh
// (oauth-refresh.ts): the runnable source remembers these, so a run checks only them.
export interface OAuthAppProp {
  prop: string;
  accountId: string;
}
