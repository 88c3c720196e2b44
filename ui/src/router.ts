// Hash routes (#/sources/<id>): the server serves one page, and nothing in the URL is secret.
let render: () => void = () => {};

export function onRoute(renderer: () => void): void {
  render = renderer;
  window.addEventListener("hashchange", () => render());
}

/** Opens a route; `again` renders it anew even when it is the current one. */
export function go(path: string, again = false): void {
  if (location.hash === `#${path}`) {
    if (again) render();
  } else {
    location.hash = path;
  }
}

export function currentPath(): string[] {
  return location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
}
