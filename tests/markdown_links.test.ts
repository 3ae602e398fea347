// Every relative link and #anchor in the repository's Markdown files resolves: the file or folder exists, and an
// anchor names a heading of the target file under GitHub's slug rules (github-slugger: the heading's rendered text
// lower-cased, every character that is not a letter, digit, mark, connector, space or hyphen dropped, each space
// turned into a hyphen, and a repeated slug suffixed -1, -2, ...).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// Folders that hold no documentation of ours: dependencies, run outputs, caches (the same as .gitignore's).
const SKIP = new Set(["node_modules", "runs", "videos", "wandb", "results", "shared"]);

function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...markdownFiles(path));
    else if (entry.name.endsWith(".md")) out.push(path);
  }
  return out;
}

/** The Markdown outside fenced code blocks, one string per line (fences and their contents become ""). */
function proseLines(text: string): string[] {
  let fence: string | null = null;
  return text.split("\n").map((line) => {
    const m = /^\s*(```+|~~~+)/.exec(line);
    if (m) {
      if (fence === null) fence = m[1][0];
      else if (m[1][0] === fence) fence = null;
      return "";
    }
    return fence === null ? line : "";
  });
}

/** The rendered text of a heading: links become their text, code spans and emphasis markers go. */
function headingText(raw: string): string {
  return raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .replace(/(\*\*|__|\*)/g, "")
    .trim();
}

function githubSlug(heading: string): string {
  return headingText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(readFileSync(file, "utf8"))) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = githubSlug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Relative link targets in a file: [text](target) and ![alt](target), outside code, without a URL scheme. */
function relativeLinks(file: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = [];
  proseLines(readFileSync(file, "utf8")).forEach((line, i) => {
    const prose = line.replace(/`[^`]*`/g, "");
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
      links.push({ line: i + 1, target });
    }
  });
  return links;
}

test("github slugs follow github-slugger's rules", () => {
  assert.equal(githubSlug("`ppo.ts`"), "ppots");
  assert.equal(
    githubSlug("Native TensorFlow against CleanRL's PyTorch (CPU)"),
    "native-tensorflow-against-cleanrls-pytorch-cpu",
  );
  assert.equal(githubSlug("`ppo_atari_lstm.ts`: MemoryCue-v0"), "ppo_atari_lstmts-memorycue-v0");
  assert.equal(githubSlug("Procgen images: credits and licences"), "procgen-images-credits-and-licences");
  assert.equal(githubSlug("Emulator (ALE)"), "emulator-ale");
  assert.equal(githubSlug("Data-parallel → 16 cores"), "data-parallel--16-cores");
});

test("every relative link and anchor in the Markdown files resolves", () => {
  const files = markdownFiles(root);
  assert.ok(
    files.some((f) => relative(root, f) === "README.md"),
    "README.md not found",
  );
  const anchorCache = new Map<string, Set<string>>();
  const broken: string[] = [];
  for (const file of files) {
    for (const { line, target } of relativeLinks(file)) {
      const [pathPart, anchor] = target.split("#", 2);
      const path = pathPart === "" ? file : resolve(dirname(file), decodeURIComponent(pathPart));
      const where = `${relative(root, file)}:${line}: ${target}`;
      if (!existsSync(path)) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (anchor === undefined || anchor === "") continue;
      if (!path.endsWith(".md") || statSync(path).isDirectory()) {
        broken.push(`${where} (an anchor into a file that is not Markdown)`);
        continue;
      }
      if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(path));
      if (!anchorCache.get(path)!.has(decodeURIComponent(anchor)))
        broken.push(`${where} (no heading with that anchor)`);
    }
  }
  assert.deepEqual(broken, [], `broken links:\n${broken.join("\n")}`);
});
