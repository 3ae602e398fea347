// No import cycle among the files of envs/: a static scan of every `import ... from`, `export ... from`, bare
// `import "..."` and literal `import("...")` with a relative specifier (type-only imports included: a cycle of
// types still ties two modules into one), then a depth-first search of the graph for a back edge.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const ENVS = join(ROOT, "envs");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** The relative modules a file imports, as absolute paths (comments stripped first so examples in them do not count). */
function importsOf(file: string): string[] {
  const code = readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
  const specifiers = [
    ...code.matchAll(/^\s*(?:import|export)\b[^'"`;]*?\bfrom\s*["']([^"']+)["']/gm),
    ...code.matchAll(/^\s*import\s*["']([^"']+)["']/gm),
    ...code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
  ].map((m) => m[1]);
  return specifiers.filter((s) => s.startsWith(".")).map((s) => resolve(dirname(file), s));
}

/** Every cycle found by a depth-first search (each reported once, as the path that closes it). */
function findCycles(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue; // outside envs/
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

test("the cycle search finds a cycle and passes a tree", () => {
  assert.deepEqual(
    findCycles(
      new Map([
        ["a", ["b"]],
        ["b", ["c"]],
        ["c", ["a"]],
      ]),
    ),
    [["a", "b", "c", "a"]],
  );
  assert.deepEqual(
    findCycles(
      new Map([
        ["a", ["b", "c"]],
        ["b", ["c"]],
        ["c", []],
      ]),
    ),
    [],
  );
});

test("the envs/ files import each other without a cycle", () => {
  const graph = new Map(sourceFiles(ENVS).map((f) => [f, importsOf(f)]));
  assert.ok(graph.size > 20, `only ${graph.size} files found under envs/`);
  assert.ok(
    [...graph.values()].some((deps) => deps.length > 0),
    "no imports parsed",
  );
  const cycles = findCycles(graph).map((c) => c.map((f) => relative(ROOT, f)).join(" -> "));
  assert.deepEqual(cycles, [], `import cycles:\n${cycles.join("\n")}`);
});
