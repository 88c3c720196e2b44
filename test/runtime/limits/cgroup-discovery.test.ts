// Finding this process's cgroup folders from /proc/self/cgroup and /proc/self/mountinfo, in
// the layouts a service meets: hybrid v1 with an empty v2 mount, pure v2 on a host, a
// container whose mount shows only its own part of the hierarchy.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findCgroupPlaces } from "../../../src/runtime/limits/cgroup-discovery.js";

const mount = (id: number, root: string, point: string, type: string, superOptions: string) =>
  `${id} 31 0:${id} ${root} ${point} rw,relatime shared:${id} - ${type} ${type} ${superOptions}`;

describe("cgroup discovery", () => {
  it("hybrid: v1 controllers mounted apart (some co-mounted), cgroup2 without controllers", () => {
    const mountinfo = [
      "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
      mount(32, "/", "/sys/fs/cgroup/cpu,cpuacct", "cgroup", "rw,cpu,cpuacct"),
      mount(35, "/", "/sys/fs/cgroup/memory", "cgroup", "rw,memory"),
      mount(39, "/", "/sys/fs/cgroup/pids", "cgroup", "rw,pids"),
      mount(41, "/", "/sys/fs/cgroup/unified", "cgroup2", "rw"),
    ].join("\n");
    const self = ["8:pids:/", "4:memory:/process_api/abc", "2:cpu,cpuacct:/", "1:name=systemd:/", "0::/"].join("\n");
    const places = findCgroupPlaces(self, mountinfo);
    assert.equal(places.v2, "/sys/fs/cgroup/unified");
    assert.equal(places.v1.get("memory"), "/sys/fs/cgroup/memory/process_api/abc");
    assert.equal(places.v1.get("pids"), "/sys/fs/cgroup/pids");
    assert.equal(places.v1.get("cpuacct"), "/sys/fs/cgroup/cpu,cpuacct");
    assert.equal(places.v1.get("cpu"), "/sys/fs/cgroup/cpu,cpuacct");
  });

  it("pure v2 on a host: the service's unit cgroup", () => {
    const places = findCgroupPlaces(
      "0::/system.slice/sluice.service\n",
      mount(30, "/", "/sys/fs/cgroup", "cgroup2", "rw,nsdelegate,memory_recursiveprot"),
    );
    assert.equal(places.v2, "/sys/fs/cgroup/system.slice/sluice.service");
    assert.equal(places.v1.size, 0);
  });

  it("a container: the mount shows its own part only; a cgroup outside it is not reachable", () => {
    const mountinfo = mount(30, "/docker/abc", "/sys/fs/cgroup", "cgroup2", "rw");
    assert.equal(findCgroupPlaces("0::/docker/abc\n", mountinfo).v2, "/sys/fs/cgroup");
    assert.equal(findCgroupPlaces("0::/docker/abc/runner\n", mountinfo).v2, "/sys/fs/cgroup/runner");
    assert.equal(findCgroupPlaces("0::/system.slice\n", mountinfo).v2, undefined);
  });

  it("mount points with spaces, escaped in mountinfo", () => {
    const places = findCgroupPlaces("0::/a b\n", mount(30, "/", "/mnt/cgroup\\040two", "cgroup2", "rw"));
    assert.equal(places.v2, "/mnt/cgroup two/a b");
  });
});
