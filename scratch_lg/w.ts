import http from "node:http";
import { initTracking, SummaryWriter } from "../envs/logging.ts";
const mode = process.argv[2] ?? "ok";
const got: any[] = [];
const server = http.createServer((req, res) => {
  let body = ""; req.on("data", (c) => (body += c)); req.on("end", () => {
    got.push({ url: req.url, body: body.slice(0, 300) });
    res.setHeader("content-type", "application/json");
    if (req.url === "/graphql") {
      const q = JSON.parse(body);
      if (q.query.includes("upsertBucket")) {
        if (mode === "upsert403") { res.statusCode = 403; res.end("{}"); return; }
        res.end(JSON.stringify({ data: { upsertBucket: { bucket: { id: "b", name: q.variables.name, displayName: q.variables.displayName, project: { id: "p", name: q.variables.project, entity: { id: "e", name: "tester" } } }, inserted: true } } }));
      } else res.end(JSON.stringify({ data: { viewer: { id: "1", entity: "tester", flags: "", teams: { edges: [] } } } }));
    } else res.end("{}");
  });
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const port = (server.address() as any).port;
process.env.WANDB_BASE_URL = `http://127.0.0.1:${port}`;
process.env.WANDB_API_KEY = "k".repeat(40);
const t0 = Date.now();
const tracker = await initTracking({ project: "p", entity: null, name: "run1", config: { lr: 3e-4 }, timeoutMs: 5000 });
console.log("init took", Date.now() - t0, "tracker", !!tracker);
const w = new SummaryWriter("/tmp/lgsmoke/run2", { tracker });
w.addScalar("a", 1, 10); w.addScalar("b", 2, 10); w.addScalar("a", 3, 20);
w.close();
const t1 = Date.now();
await tracker?.finish();
console.log("finish took", Date.now() - t1);
server.close();
for (const g of got) console.log(g.url, g.body.slice(0, 200));
