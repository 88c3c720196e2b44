// What deploy and update print about a source: where it takes HTTP requests and e-mail.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sourceLines } from "../../src/cli/commands/common.js";

describe("source lines", () => {
  it("show an HTTP source's endpoint and an e-mail source's address", () => {
    assert.equal(
      sourceLines({ id: "dc_1", name: "hook", configured_props: { http: { endpoint_url: "https://sluice.test/e/abc" }, label: "x" } }),
      "id:       dc_1\nname:     hook\nendpoint: https://sluice.test/e/abc\n",
    );
    assert.equal(
      sourceLines({ id: "dc_2", name: "inbox", configured_props: { email: { email_address: "k3y@mail.sluice.test" } }, active: false }),
      "id:       dc_2\nname:     inbox\nemail:    k3y@mail.sluice.test\nactive:   false\n",
    );
  });
});
