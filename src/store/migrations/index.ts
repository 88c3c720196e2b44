// Versioned migrations, applied in name order at start. Each later issue adds a file here.
import type { Migration } from "kysely";
import * as foundation from "./001-foundation.js";
import * as components from "./002-components.js";
import * as sourcesEvents from "./003-sources-events.js";
import * as delivery from "./004-delivery.js";
import * as workflows from "./005-workflows.js";
import * as jobsByKey from "./006-jobs-by-key.js";
import * as roomForUpdates from "./007-room-for-updates.js";
import * as apiKeyLifecycle from "./008-api-key-lifecycle.js";
import * as storageAccounting from "./009-storage-accounting.js";
import * as componentFiles from "./010-component-files.js";
import * as connectedAccounts from "./011-connected-accounts.js";
import * as apphooks from "./012-apphooks.js";
import * as oauthRefreshLease from "./013-oauth-refresh-lease.js";
import * as inboundEmail from "./014-inbound-email.js";
import * as registryPackages from "./015-registry-packages.js";
import * as deadJobs from "./016-dead-jobs.js";
import * as workflowRuns from "./017-workflow-runs.js";
import * as dataStores from "./018-data-stores.js";
import * as workflowTriggers from "./019-workflow-triggers.js";
import * as oauthApps from "./021-oauth-apps.js";
import * as dynamicProps from "./022-dynamic-props.js";

export const migrations: Record<string, Migration> = {
  "001-foundation": foundation,
  "002-components": components,
  "003-sources-events": sourcesEvents,
  "004-delivery": delivery,
  "005-workflows": workflows,
  "006-jobs-by-key": jobsByKey,
  "007-room-for-updates": roomForUpdates,
  "008-api-key-lifecycle": apiKeyLifecycle,
  "009-storage-accounting": storageAccounting,
  "010-component-files": componentFiles,
  "011-connected-accounts": connectedAccounts,
  "012-apphooks": apphooks,
  "013-oauth-refresh-lease": oauthRefreshLease,
  "014-inbound-email": inboundEmail,
  "015-registry-packages": registryPackages,
  "016-dead-jobs": deadJobs,
  "017-workflow-runs": workflowRuns,
  "018-data-stores": dataStores,
  "019-workflow-triggers": workflowTriggers,
  "021-oauth-apps": oauthApps,
  "022-dynamic-props": dynamicProps,
};
