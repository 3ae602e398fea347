// A local stand-in for the Hugging Face Hub: the endpoints `@huggingface/hub` (whoAmI, createRepo, listFiles,
// commit with LFS "basic" uploads, downloadFile) and the Python huggingface_hub (the same, plus validate-yaml, and
// `hf_hub_download`'s HEAD on resolve/) call,
// answering as the Hub does in the fields those clients read. It runs in a child process, so that a test may block
// its own thread (a checkpoint read waits synchronously for the download child process) while this answers.
// GET /__state returns what it holds and what it was asked; POST /__fail makes matching requests fail.
import { createHash } from "node:crypto";
import http from "node:http";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const TOKEN = "hf_standintoken";
export const USER = "tester";

export interface StandInState {
  repos: Record<string, { files: Record<string, { size: number; sha256: string; lfs: boolean }>; commits: Commit[] }>;
  requests: { method: string; path: string; authorized: boolean }[];
}
interface Commit {
  oid: string;
  title: string;
  deleted: string[];
  added: string[];
}

export interface StandIn {
  url: string;
  state(): Promise<StandInState>;
  /** Requests whose "METHOD path" matches `pattern` get HTTP `status` from now on (null: none fail). */
  fail(pattern: string | null, status?: number): Promise<void>;
  /** The bytes of a file in a repo. */
  file(repo: string, path: string): Promise<Buffer>;
  stop(): Promise<void>;
}

/** Starts the stand-in in a child process. */
export async function startStandIn(): Promise<StandIn> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "serve"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the Hub stand-in exited (${code})`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    state: async () => (await fetch(`${url}/__state`)).json() as Promise<StandInState>,
    fail: async (pattern, status = 500) => {
      await fetch(`${url}/__fail`, { method: "POST", body: JSON.stringify({ pattern, status }) });
    },
    file: async (repo, path) => Buffer.from(await (await fetch(`${url}/__file/${repo}/${path}`)).arrayBuffer()),
    stop: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill();
      await exited;
    },
  };
}

// ---- the server (in the worker) ----

interface Repo {
  files: Map<string, Buffer>;
  lfs: Set<string>;
  commits: Commit[];
}

function serve(): void {
  const repos = new Map<string, Repo>();
  const uploads = new Map<string, Buffer>();
  const requests: StandInState["requests"] = [];
  let failing: { pattern: RegExp; status: number } | null = null;
  const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
  // git's blob id, the ETag the Hub gives a file kept in git (not LFS)
  const gitSha1 = (b: Buffer) => createHash("sha1").update(`blob ${b.length}\0`).update(b).digest("hex");
  const head = (r: Repo) => r.commits[r.commits.length - 1]?.oid ?? "0".repeat(40);

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? "/", "http://stand-in");
    const route = `${req.method} ${url.pathname}`;
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "Content-Type": "application/json", ...headers });
      res.end(JSON.stringify(value));
    };
    if (url.pathname === "/__state") {
      const out: StandInState = { repos: {}, requests };
      for (const [id, r] of repos)
        out.repos[id] = {
          files: Object.fromEntries(
            [...r.files].map(([p, b]) => [p, { size: b.length, sha256: sha256(b), lfs: r.lfs.has(p) }]),
          ),
          commits: r.commits,
        };
      return json(200, out);
    }
    if (url.pathname === "/__fail") {
      const { pattern, status } = JSON.parse(body.toString());
      failing = pattern === null ? null : { pattern: new RegExp(pattern), status };
      return json(200, {});
    }
    if (url.pathname.startsWith("/__file/")) {
      const [, , org, name, ...rest] = url.pathname.split("/");
      const b = repos.get(`${org}/${name}`)?.files.get(rest.join("/"));
      res.writeHead(b ? 200 : 404);
      return res.end(b);
    }
    const authorized = req.headers.authorization === `Bearer ${TOKEN}`;
    requests.push({ method: req.method ?? "", path: url.pathname, authorized });
    if (failing?.pattern.test(route)) return json(failing.status, { error: `stand-in refuses ${route}` });

    let m: RegExpMatchArray | null;
    if (route === "GET /api/whoami-v2") {
      if (!authorized) return json(401, { error: "Invalid credentials in Authorization header" });
      return json(200, { type: "user", name: USER, auth: { type: "access_token" } });
    }
    if (route === "POST /api/repos/create") {
      if (!authorized) return json(401, { error: "Invalid credentials in Authorization header" });
      const { name, organization } = JSON.parse(body.toString());
      const id = `${organization ?? USER}/${name}`;
      if (repos.has(id))
        return json(409, { error: "You already created this model repo", url: `http://${req.headers.host}/${id}` });
      repos.set(id, {
        files: new Map([[".gitattributes", Buffer.from("*.safetensors filter=lfs\n")]]),
        lfs: new Set(),
        commits: [],
      });
      repos.get(id)!.commits.push({
        oid: createHash("sha1").update(id).digest("hex"),
        title: "initial commit",
        deleted: [],
        added: [".gitattributes"],
      });
      return json(200, { url: `http://${req.headers.host}/${id}`, id });
    }
    // huggingface_hub checks a README.md's metadata before committing it; the stand-in takes any.
    if (route === "POST /api/validate-yaml") return json(200, { errors: [], warnings: [] });
    if ((m = route.match(/^GET \/api\/models\/([^/]+\/[^/]+)\/tree\/([^/]+)$/))) {
      const r = repos.get(m[1]);
      if (!r) return json(404, { error: "Repository not found" }, { "X-Error-Code": "RepoNotFound" });
      return json(
        200,
        [...r.files].map(([p, b]) => ({ type: "file", path: p, size: b.length, oid: gitSha1(b) })),
      );
    }
    if ((m = route.match(/^POST \/api\/models\/([^/]+\/[^/]+)\/preupload\/([^/]+)$/))) {
      if (!authorized) return json(401, { error: "Invalid credentials" });
      const { files } = JSON.parse(body.toString()) as { files: { path: string; size: number; sample: string }[] };
      // The Hub's rule, in short: binary content (a NUL byte in the first 512) or a large file goes to LFS.
      return json(200, {
        files: files.map((f) => ({
          path: f.path,
          uploadMode: Buffer.from(f.sample, "base64").includes(0) || f.size > 10_000_000 ? "lfs" : "regular",
          shouldIgnore: false,
        })),
      });
    }
    if ((m = route.match(/^POST \/([^/]+\/[^/]+)\.git\/info\/lfs\/objects\/batch$/))) {
      if (!authorized) return json(401, { error: "Invalid credentials" });
      const { objects } = JSON.parse(body.toString()) as { objects: { oid: string; size: number }[] };
      const base = `http://${req.headers.host}`;
      return json(200, {
        transfer: "basic",
        objects: objects.map((o) => ({
          oid: o.oid,
          size: o.size,
          actions: { upload: { href: `${base}/__lfs/${o.oid}` } },
        })),
      });
    }
    if ((m = route.match(/^PUT \/__lfs\/([0-9a-f]{64})$/))) {
      if (sha256(body) !== m[1]) return json(400, { error: "sha256 mismatch" });
      uploads.set(m[1], body);
      res.writeHead(200);
      return res.end();
    }
    if ((m = route.match(/^POST \/api\/models\/([^/]+\/[^/]+)\/commit\/([^/]+)$/))) {
      if (!authorized) return json(401, { error: "Invalid credentials" });
      const r = repos.get(m[1]);
      if (!r) return json(404, { error: "Repository not found" });
      const lines = body
        .toString()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const commit: Commit = { oid: "", title: "", deleted: [], added: [] };
      const files = new Map(r.files);
      const lfs = new Set(r.lfs);
      for (const { key, value } of lines) {
        if (key === "header") commit.title = value.summary;
        else if (key === "deletedFile") {
          files.delete(value.path);
          lfs.delete(value.path);
          commit.deleted.push(value.path);
        } else if (key === "file") {
          files.set(value.path, Buffer.from(value.content, value.encoding === "base64" ? "base64" : "utf8"));
          lfs.delete(value.path);
          commit.added.push(value.path);
        } else if (key === "lfsFile") {
          const b = uploads.get(value.oid);
          if (!b) return json(400, { error: `LFS object ${value.oid} was never uploaded` });
          files.set(value.path, b);
          lfs.add(value.path);
          commit.added.push(value.path);
        } else return json(400, { error: `unknown commit line ${key}` });
      }
      commit.oid = createHash("sha1")
        .update(`${head(r)}${body}`)
        .digest("hex");
      r.files = files;
      r.lfs = lfs;
      r.commits.push(commit);
      return json(200, { commitOid: commit.oid, commitUrl: `http://${req.headers.host}/${m[1]}/commit/${commit.oid}` });
    }
    if (
      (m = url.pathname.match(/^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/)) &&
      (req.method === "GET" || req.method === "HEAD")
    ) {
      const r = repos.get(m[1]);
      if (!r) return json(404, { error: "Repository not found" }, { "X-Error-Code": "RepoNotFound" });
      const revision = decodeURIComponent(m[2]);
      if (revision !== "main" && !r.commits.some((c) => c.oid === revision))
        return json(404, { error: "Revision not found" }, { "X-Error-Code": "RevisionNotFound" });
      const p = decodeURIComponent(m[3]);
      const b = r.files.get(p);
      if (!b) return json(404, { error: "Entry not found" }, { "X-Error-Code": "EntryNotFound" });
      const etag = r.lfs.has(p) ? sha256(b) : gitSha1(b);
      const headers: Record<string, string> = {
        "X-Repo-Commit": head(r),
        ETag: `"${etag}"`,
        ...(r.lfs.has(p) ? { "X-Linked-Etag": `"${etag}"`, "X-Linked-Size": String(b.length) } : {}),
        "Accept-Ranges": "bytes",
        "Content-Type": "application/octet-stream",
      };
      const range = req.headers.range?.match(/^bytes=(\d+)-(\d+)$/);
      if (range) {
        const [from, to] = [Number(range[1]), Math.min(Number(range[2]), b.length - 1)];
        res.writeHead(206, {
          ...headers,
          "Content-Range": `bytes ${from}-${to}/${b.length}`,
          "Content-Length": String(to - from + 1),
        });
        return res.end(req.method === "HEAD" ? undefined : b.subarray(from, to + 1));
      }
      res.writeHead(200, { ...headers, "Content-Length": String(b.length) });
      return res.end(req.method === "HEAD" ? undefined : b);
    }
    json(404, { error: `the stand-in does not answer ${route}` });
  });
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    console.log(typeof address === "object" && address ? address.port : 0);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === "serve") serve();
