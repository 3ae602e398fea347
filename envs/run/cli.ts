// Command-line flags: the shim's stand-in for `tyro.cli(Args)`, which CleanRL uses.
//
// A variant declares its flags as one typed object, in CleanRL's order, with a one-line doc each:
//   const ARGS = { seed: int(1, "seed of the experiment"), envId: str("CartPole-v1", "the id of the environment"), ... };
//   const args = parseArgs(ARGS, "what this script does");
// Keys are camelCase; flags are their kebab-case form (`envId` -> `--env-id`), as tyro turns `env_id` into
// `--env-id`. Booleans take `--flag`, `--no-flag` or `--flag=true|false`. `--help` lists every flag with its
// default. An unknown flag, a missing value or a value of the wrong type is one clear line on stderr and exit 2.
// A number flag may declare the range where it makes sense, next to its default, e.g.
//   learningRate: float(2.5e-4, "the learning rate of the optimizer", { gt: 0 }),
//   gamma: float(0.99, "the discount factor gamma", { ge: 0, le: 1 }),
// A value outside it (and NaN or Infinity, always) is a usage error; `--help` shows the range.
// Every script also takes `--debug` (print the stack trace on an error; envs/run/main.ts reads it).

import minimist from "minimist";

type Kind = "int" | "float" | "str" | "bool";
/** Bounds a number flag must satisfy: greater than (`gt`), at least (`ge`), at most (`le`). */
export interface Range {
  gt?: number;
  ge?: number;
  le?: number;
}
export interface Flag<T> {
  kind: Kind;
  default: T;
  help: string;
  nullable: boolean;
  range?: Range;
}

export function int(def: number, help: string, range?: Range): Flag<number>;
export function int(def: number | null, help: string, range?: Range): Flag<number | null>;
export function int(def: number | null, help: string, range?: Range): Flag<number | null> {
  return { kind: "int", default: def, help, nullable: def === null, range };
}
export function float(def: number, help: string, range?: Range): Flag<number>;
export function float(def: number | null, help: string, range?: Range): Flag<number | null>;
export function float(def: number | null, help: string, range?: Range): Flag<number | null> {
  return { kind: "float", default: def, help, nullable: def === null, range };
}
export function str(def: string, help: string): Flag<string>;
export function str(def: string | null, help: string): Flag<string | null>;
export function str(def: string | null, help: string): Flag<string | null> {
  return { kind: "str", default: def, help, nullable: def === null };
}
export function bool(def: boolean, help: string): Flag<boolean> {
  return { kind: "bool", default: def, help, nullable: false };
}

export type ArgValues<S extends Record<string, Flag<unknown>>> = { [K in keyof S]: S[K]["default"] };

/** `envId` -> `env-id`. */
export function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Thrown for bad command lines; `runMain` (envs/run/main.ts) turns it into one `error:` line on stderr and exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * Throws a UsageError: for checks a script makes after parsing (e.g. divisibility). Under `runMain` that is one
 * `error:` line and exit 2; a test calling `main()` directly gets the exception instead of a dead test runner.
 */
export function usageError(message: string): never {
  throw new UsageError(message);
}

/**
 * Parses `argv` against `spec`. Throws UsageError for a bad command line (tests use this); returns the values,
 * or `"help"` when `--help`/`-h` was given. `parseArgs` is the wrapper scripts call.
 */
export function parseArgv<S extends Record<string, Flag<unknown>>>(spec: S, argv: string[]): ArgValues<S> | "help" {
  const byFlag = new Map<string, [string, Flag<unknown>]>();
  for (const [key, flag] of Object.entries(spec)) byFlag.set(kebab(key), [key, flag]);
  const boolFlags = [...byFlag].filter(([, [, f]]) => f.kind === "bool").map(([name]) => name);
  const unknown: string[] = [];
  const parsed = minimist(argv, {
    boolean: [...boolFlags, "help", "debug"],
    string: [...byFlag].filter(([, [, f]]) => f.kind !== "bool").map(([name]) => name),
    alias: { h: "help" },
    unknown: (token) => {
      unknown.push(token);
      return false;
    },
  });
  if (unknown.length > 0) {
    const token = unknown[0];
    if (/^-?\d/.test(token))
      throw new UsageError(`unexpected value ${token}: pass negative numbers as --flag=${token}`);
    const name = token.replace(/^-+/, "").split("=")[0];
    const hint = token.startsWith("-") ? closest(name, [...byFlag.keys()]) : null;
    throw new UsageError(
      token.startsWith("-")
        ? `unknown flag --${name}${hint ? ` (did you mean --${hint}?)` : ""}`
        : `unexpected argument "${token}" (flags take the form --name value)`,
    );
  }
  if (parsed.help) return "help";

  const values: Record<string, unknown> = {};
  for (const [name, [key, flag]] of byFlag) {
    // minimist reports every declared boolean (false when absent), so presence is read from argv itself.
    const given = argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`) || a === `--no-${name}`);
    if (!given) {
      values[key] = flag.default;
      continue;
    }
    const raw: unknown = parsed[name];
    if (Array.isArray(raw)) throw new UsageError(`--${name} given more than once`);
    values[key] = flag.kind === "bool" ? Boolean(raw) : convert(name, flag, String(raw));
  }
  return values as ArgValues<S>;
}

function convert(name: string, flag: Flag<unknown>, raw: string): unknown {
  if (flag.nullable && (raw === "None" || raw === "null")) return null;
  if (raw === "") throw new UsageError(`--${name} expects ${article(flag.kind)} value`);
  if (flag.kind === "str") return raw;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new UsageError(`--${name} expects ${article(flag.kind)} value, got "${raw}"`);
  if (flag.kind === "int" && !Number.isSafeInteger(value))
    throw new UsageError(`--${name} expects an integer, got "${raw}"`);
  if (flag.range && !inRange(value, flag.range))
    throw new UsageError(`--${name} must be ${describeRange(flag.range)}, got ${raw}`);
  return value;
}

function inRange(v: number, r: Range): boolean {
  return (r.gt === undefined || v > r.gt) && (r.ge === undefined || v >= r.ge) && (r.le === undefined || v <= r.le);
}

/** "greater than 0", "at least 1", "between 0 and 1": how an error message and `--help` state a range. */
export function describeRange(r: Range): string {
  if (r.ge !== undefined && r.le !== undefined) return `between ${r.ge} and ${r.le}`;
  const parts: string[] = [];
  if (r.gt !== undefined) parts.push(`greater than ${r.gt}`);
  if (r.ge !== undefined) parts.push(`at least ${r.ge}`);
  if (r.le !== undefined) parts.push(`at most ${r.le}`);
  return parts.join(" and ");
}

function article(kind: Kind): string {
  return { int: "an integer", float: "a number", str: "a string", bool: "a true/false" }[kind];
}

/** The known flag nearest to a mistyped one (edit distance <= 3), for the error message. */
function closest(name: string, known: string[]): string | null {
  let best: string | null = null;
  let bestDistance = 4;
  for (const k of known) {
    const d = editDistance(name, k);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

/** The `--help` text: every flag, its type, its default and its doc line. */
export function helpText<S extends Record<string, Flag<unknown>>>(spec: S, description: string, prog: string): string {
  const rows = Object.entries(spec).map(([key, flag]) => {
    const name =
      flag.kind === "bool" ? `--${kebab(key)}, --no-${kebab(key)}` : `--${kebab(key)} ${flag.kind.toUpperCase()}`;
    const def = flag.default === null ? "None" : String(flag.default);
    const range = flag.range ? `, ${describeRange(flag.range)}` : "";
    return [name, `${flag.help}${range} (default: ${def})`];
  });
  const width = Math.max(...rows.map(([n]) => n.length)) + 2;
  const lines = rows.map(([n, h]) => `  ${n.padEnd(width)}${h}`);
  const builtins = [
    `  ${"-h, --help".padEnd(width)}show this message and exit`,
    `  ${"--debug".padEnd(width)}on an error, print the stack trace too (also DEBUG=1)`,
  ];
  return `usage: npx tsx ${prog} [flags]\n\n${description}\n\nflags:\n${builtins.join("\n")}\n${lines.join("\n")}\n`;
}

/** Splits a command line at `--`: the script's own flags, and what follows (null without a `--`) for child runs. */
export function splitAtDoubleDash(argv: string[]): { own: string[]; rest: string[] | null } {
  const i = argv.indexOf("--");
  return i < 0 ? { own: argv, rest: null } : { own: argv.slice(0, i), rest: argv.slice(i + 1) };
}

/**
 * What a script calls: parses `process.argv`, prints help and exits 0 on `--help`; a bad command line throws a
 * UsageError (one line and exit 2 under `runMain`).
 */
export function parseArgs<S extends Record<string, Flag<unknown>>>(
  spec: S,
  description: string,
  prog: string,
  argv = process.argv.slice(2),
): ArgValues<S> {
  const result = parseArgv(spec, argv);
  if (result === "help") {
    process.stdout.write(helpText(spec, description, prog));
    process.exit(0);
  }
  return result;
}
