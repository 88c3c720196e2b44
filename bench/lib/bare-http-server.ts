// The baseline: reads the request body and answers a small JSON document, nothing else.
import { createServer } from "node:http";

const server = createServer((request, response) => {
  request.on("data", () => undefined);
  request.on("end", () => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end('{"ok":true}');
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address && typeof address === "object") console.log(`listening http://127.0.0.1:${address.port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
