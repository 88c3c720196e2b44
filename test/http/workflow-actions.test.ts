// Published actions as workflow steps, with real `@pipedream/*` npm packages (devDependencies,
// served to the app by a loopback npm registry from this project's node_modules): a package
// holding only actions records in the registry; GET /components/registry?type=action lists
// them with their props; steps {action, version?, props} run them with their app file, npm
// dependencies and @pipedream/platform's axios($, …); return values are
// steps.<name>.$return_value, $.export and $summary are the step's exports; and an action whose
// app reads its connected account's $auth (GitLab: base_api_url and its OAuth token) reaches a
// loopback HTTPS server.
import assert from "node:assert/strict";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DIALECTS } from "../helpers/dialects.js";
import { request } from "../helpers/http-client.js";
import { publishInstalled } from "../helpers/installed-packages.js";
import { startNpmRegistry, type NpmRegistry } from "../helpers/npm-registry.js";
import { ADMIN_TOKEN, startTestApp, type Account, type TestApp } from "../helpers/test-app.js";
import { certificate } from "../helpers/tls-certificate.js";
import { waitFor } from "../helpers/wait-for.js";

const HELPERS = "@pipedream/helper_functions";
const GITLAB = "@pipedream/gitlab";

const listen = (server: Server) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));

/** A step that emits what the earlier steps gave, so the test reads it from the workflow's events. */
const REPORT = `import fs from "fs";
export default {
  async run({ steps, $ }) {
    const { trigger, ...rest } = steps;
    const file = rest.download ? fs.readFileSync(rest.download.$return_value[1], "utf8") : undefined;
    $.send.emit({ steps: rest, file });
  },
};`;

async function addPackage(app: TestApp, name: string) {
  const res = await request(app.baseUrl, "POST", "/admin/registry/packages", { key: ADMIN_TOKEN, json: { name } });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function reported(account: Account, workflowId: string): Promise<any> {
  const page = await waitFor(
    async () => {
      const res = await account.api.get(`/workflows/${workflowId}/event_summaries`);
      if (res.body.data.length > 0) return res.body.data[0].event;
      const errors = await account.api.get(`/workflows/${workflowId}/event_summaries`, { event_name: "$errors", expand: "event" });
      if (errors.body.data.length > 0) throw new Error(`the run failed: ${JSON.stringify(errors.body.data[0].event.error)}`);
      return undefined;
    },
    { what: "the report step's event", timeoutMs: 60_000 },
  );
  return page;
}

for (const dialect of DIALECTS) {
  describe(`published actions as workflow steps [${dialect}]`, () => {
    let registry: NpmRegistry;
    let app: TestApp;
    let account: Account;
    let files: Server;
    let gitlab: Server | undefined;
    let gitlabPort = 0;
    let filesPort = 0;
    const gitlabRequests: Array<{ url: string; authorization: string | undefined }> = [];
    const dir = mkdtempSync(join(tmpdir(), "sluice-actions-"));
    const tls = certificate(dir);

    before(async () => {
      registry = await startNpmRegistry();
      publishInstalled(registry, [HELPERS, GITLAB]);
      files = createHttpServer((req, res) => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(`file at ${req.url}`);
      });
      filesPort = await listen(files);
      if (tls) {
        gitlab = createHttpsServer({ key: tls.key, cert: tls.cert }, (req, res) => {
          gitlabRequests.push({ url: req.url ?? "", authorization: req.headers.authorization });
          const found = req.url === "/api/v4/projects/7/issues/3";
          res.writeHead(found ? 200 : 404, { "content-type": "application/json" });
          res.end(JSON.stringify(found ? { iid: 3, title: "Pipes leak" } : { message: "404 Not found" }));
        });
        gitlabPort = await listen(gitlab);
      }
      app = await startTestApp(dialect, {
        npmRegistry: registry.url,
        allowPrivateEgress: true,
        runTimeoutSeconds: 30,
        ...(tls ? { extraCaCertsFile: tls.certFile } : {}),
      });
      account = await app.newAccount({ plan: "paid" });
    });
    after(async () => {
      await app?.close();
      await registry?.close();
      files?.close();
      gitlab?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("a package that holds only actions records in the registry; the registry lists actions with their props, by type", async () => {
      const added = await addPackage(app, HELPERS);
      assert.ok(added.keys.includes("helper_functions-base64-decode-string"), JSON.stringify(added));
      assert.ok(added.keys.includes("helper_functions-download-file-to-tmp"));

      const actions = await account.api.get("/components/registry", { type: "action", limit: 100 });
      assert.equal(actions.status, 200, actions.text);
      const decode = actions.body.data.find((item: any) => item.key === "helper_functions-base64-decode-string");
      assert.ok(decode, "the action is listed");
      assert.equal(decode.type, "action");
      assert.equal(decode.package.name, HELPERS);
      assert.deepEqual(
        decode.configurable_props.map((prop: any) => [prop.name, prop.type]),
        [
          ["helper_functions", "app"],
          ["data", "string"],
        ],
      );
      assert.ok(actions.body.data.every((item: any) => item.type === "action"));

      const sources = await account.api.get("/components/registry", { type: "source", limit: 100 });
      assert.equal(sources.status, 200, sources.text);
      assert.ok(sources.body.data.every((item: any) => item.type === "source"));
      assert.ok(!sources.body.data.some((item: any) => String(item.key).startsWith("helper_functions-")));
      assert.equal((await account.api.get("/components/registry", { type: "trigger" })).status, 400);
    });

    it("runs published actions as steps: props, return values, exports and $summary, axios($, …) to a loopback server", async () => {
      const created = await account.api.post("/workflows", {
        name: "helpers",
        steps: [
          {
            name: "decode",
            action: "helper_functions-base64-decode-string",
            props: { data: Buffer.from("hello sluice").toString("base64") },
          },
          { name: "xml", action: "helper_functions-xml-to-json", props: { input: "<a><b>1</b></a>" } },
          {
            name: "download",
            action: "helper_functions-download-file-to-tmp",
            props: { url: `http://127.0.0.1:${filesPort}/report.txt`, filename: "report.txt" },
          },
          { name: "report", code: REPORT },
        ],
      });
      assert.equal(created.status, 200, created.text);
      const [decode, xml] = created.body.data.steps;
      assert.equal(decode.type, "action");
      assert.equal(decode.action, "helper_functions-base64-decode-string");
      assert.equal(decode.version, "0.1.1", "the newest recorded version is kept");
      assert.deepEqual(decode.props, { data: Buffer.from("hello sluice").toString("base64") });
      assert.equal(decode.code, undefined);
      assert.equal(xml.version, "0.2.2");
      assert.equal(created.body.data.steps[3].type, "code");

      const res = await request(created.body.data.endpoint_url, "POST", "", { json: {} });
      assert.equal(res.status, 200);
      const event = await reported(account, created.body.data.id);
      assert.equal(event.steps.decode.data, "hello sluice", "$.export of the action");
      assert.deepEqual(event.steps.xml.$return_value, { a: { b: { _text: "1" } } });
      assert.equal(event.steps.xml.$summary, "Successfully converted XML to JSON");
      assert.deepEqual(event.steps.download.$return_value, ["report.txt", "/tmp/report.txt"]);
      assert.equal(event.file, "file at /report.txt");
    });

    it("an action's ConfigurationError (@pipedream/platform) ends the run on $errors, naming the step", async () => {
      const created = await account.api.post("/workflows", {
        steps: [{ name: "pick", action: "helper_functions-random-item-from-list", props: { list: ["only"], quantity: 2 } }],
      });
      assert.equal(created.status, 200, created.text);
      await request(created.body.data.endpoint_url, "POST", "", { json: {} });
      const error = await waitFor(
        async () => {
          const res = await account.api.get(`/workflows/${created.body.data.id}/event_summaries`, {
            event_name: "$errors",
            expand: "event",
          });
          return res.body.data[0]?.event.error;
        },
        { what: "the run's error", timeoutMs: 30_000 },
      );
      assert.equal(error.code, "ConfigurationError");
      assert.equal(error.cellId, created.body.data.steps[0].id);
      assert.match(error.stack, /Quantity must be smaller than the list size/);
    });

    it("refuses an unknown action, an unknown version and bad props with a 400 naming the step and the prop", async () => {
      const cases: Array<[unknown, RegExp]> = [
        [{ action: "helper_functions-nope" }, /step "s".*no published action "helper_functions-nope"/],
        [{ action: "helper_functions-base64-decode-string", version: "9.9.9" }, /at version 9\.9\.9/],
        [{ action: "helper_functions-base64-decode-string" }, /step "s": props\.data is required/],
        [{ action: "helper_functions-base64-decode-string", props: { data: 5 } }, /step "s": props\.data must be a string/],
        [{ action: "helper_functions-xml-to-json", props: { input: "<a/>", spaces: "two" } }, /step "s": props\.spaces must be an integer/],
        [
          { action: "helper_functions-random-item-from-list", props: { list: "a,b" } },
          /step "s": props\.list must be an array of string values/,
        ],
        [{ action: "helper_functions-xml-to-json", code: "x" }, /exactly one of code, action or component_id/],
      ];
      for (const [step, message] of cases) {
        const res = await account.api.post("/workflows", { steps: [{ name: "s", ...(step as object) }] });
        assert.equal(res.status, 400, `${JSON.stringify(step)} → ${res.text}`);
        assert.match(res.body.error, message);
      }
    });

    it(
      "an action reads its connected account's $auth (GitLab's base_api_url and token); credentials are never shown",
      { skip: !tls && "openssl is not available" },
      async () => {
        await addPackage(app, GITLAB);
        const created = await account.api.post("/workflows", {
          steps: [
            {
              name: "issue",
              action: "gitlab-get-issue",
              props: {
                gitlab: { $auth: { base_api_url: `localhost:${gitlabPort}`, oauth_access_token: "secret-gitlab-token" } },
                projectId: 7,
                issueIid: "3",
              },
            },
            { name: "report", code: REPORT },
          ],
        });
        assert.equal(created.status, 200, created.text);
        assert.ok(!created.text.includes("secret-gitlab-token"), "credentials are never echoed");
        const step = created.body.data.steps[0];
        assert.match(step.props.gitlab.authProvisionId, /^apn_/);
        assert.deepEqual(Object.keys(step.props.gitlab), ["authProvisionId"]);
        const read = await account.api.get(`/workflows/${created.body.data.id}`);
        assert.ok(!read.text.includes("secret-gitlab-token"));
        const accounts = await account.api.get("/users/me/accounts");
        assert.ok(accounts.body.data.some((a: any) => a.id === step.props.gitlab.authProvisionId && a.app === "gitlab"));

        await request(created.body.data.endpoint_url, "POST", "", { json: {} });
        const event = await reported(account, created.body.data.id);
        assert.deepEqual(event.steps.issue.$return_value, { iid: 3, title: "Pipes leak" });
        assert.equal(event.steps.issue.$summary, "Retrieved issue Pipes leak");
        assert.deepEqual(gitlabRequests.at(-1), { url: "/api/v4/projects/7/issues/3", authorization: "Bearer secret-gitlab-token" });
      },
    );
  });
}
