// The runnable sources a context remembers (runnable-source.ts reads and fills it): by id, by
// endpoint key, and the saved components their code comes from.
import type { ComponentMetadata, ConfigurableProp, PackageEntry } from "../../runtime/code-runner.js";
import type { SavedComponent } from "../components/component.js";
import type { OAuthAppProp } from "../accounts/oauth-app-prop.js";

export interface RunnableSource {
  id: string;
  userId: string;
  active: boolean;
  endpointKey: string | null;
  customResponse: boolean;
  code: string;
  codeUrl: string | undefined;
  /** Files the code's relative imports resolve to, when it came with them (component_files). */
  files: Record<string, string> | undefined;
  /** The registry package the code is loaded from, when it came from one. */
  package: PackageEntry | undefined;
  /** The component's metadata with the source's dynamic props (additionalProps()). */
  metadata: ComponentMetadata;
  /** The props additionalProps() added for this source, which the runner sets on `this` like the others. */
  extraProps: ConfigurableProp[];
  props: Record<string, unknown>;
  /** App props whose OAuth tokens are refreshed before a run when due (accounts/oauth-refresh.ts). */
  oauthProps: OAuthAppProp[];
  /** Whether the component has a $.service.db prop (its executions then run one at a time). */
  usesDb: boolean;
  /** Whether the component has a `dir` prop (its files go with each execution; one at a time). */
  usesDir: boolean;
  /**
   * Whether the component has a data store prop: its executions then run one at a time too, so a
   * get-then-set (Pipedream's counter) of one run never loses another run's write.
   */
  usesDataStore: boolean;
  intervalSeconds: number | null;
  loadedAt: number;
}

export class RunnableSourceCache {
  readonly byId = new Map<string, RunnableSource>();
  readonly idByEndpoint = new Map<string, string>();
  /**
   * Saved components never change (new code is a new component), so they need no expiry: a
   * source's periodic reload then reads only its own row.
   */
  readonly components = new Map<string, SavedComponent>();
}
