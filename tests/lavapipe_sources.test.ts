// .ci/lavapipe.sh takes its Debian mirror from the machine's apt configuration (one-line entries and deb822
// stanzas) and adds only that mirror's bookworm-backports suite. `--sources` prints the private list it would use;
// LAVAPIPE_APT_ETC points it at a made-up configuration here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("../.ci/lavapipe.sh", import.meta.url));

function privateSources(files: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const etc = mkdtempSync(join(tmpdir(), "lavapipe-apt-"));
  try {
    mkdirSync(join(etc, "sources.list.d"));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(etc, name), text);
    const r = spawnSync("bash", [SCRIPT, "--sources"], {
      env: { ...process.env, LAVAPIPE_APT_ETC: etc },
      encoding: "utf8",
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  } finally {
    rmSync(etc, { recursive: true, force: true });
  }
}

test("one-line sources.list: the first deb entry of bookworm, with its signed-by key file", () => {
  const key = fileURLToPath(import.meta.url); // any existing file stands for a keyring
  const r = privateSources({
    "sources.list": [
      "# deb http://commented.invalid/debian bookworm main",
      "deb-src http://source-only.invalid/debian bookworm main",
      "deb http://security.invalid/debian-security bookworm-security main",
      `deb [arch=amd64 signed-by=${key}] http://mirror.invalid/debian bookworm main contrib`,
      "deb http://second.invalid/debian bookworm main",
    ].join("\n"),
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(
    r.stdout,
    `deb [signed-by=${key}] http://mirror.invalid/debian bookworm main\ndeb [signed-by=${key}] http://mirror.invalid/debian bookworm-backports main\n`,
  );
});

test("deb822 .sources: disabled stanzas and deb-src-only stanzas are skipped; a missing key file is not passed on", () => {
  const r = privateSources({
    "sources.list.d/debian.sources": [
      "Types: deb",
      "URIs: http://disabled.invalid/debian",
      "Suites: bookworm",
      "Components: main",
      "Enabled: no",
      "",
      "Types: deb-src",
      "URIs: http://source-only.invalid/debian",
      "Suites: bookworm",
      "Components: main",
      "",
      "Types: deb deb-src",
      "# a comment inside the stanza",
      "URIs: http://mirror.invalid/debian http://second.invalid/debian",
      "Suites: bookworm bookworm-updates",
      "Components: main",
      "Signed-By: /nonexistent/keyring.gpg",
    ].join("\n"),
    "sources.list.d/other.list.disabled": "deb http://ignored.invalid/debian bookworm main\n",
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(
    r.stdout,
    "deb http://mirror.invalid/debian bookworm main\ndeb http://mirror.invalid/debian bookworm-backports main\n",
  );
});

test("no bookworm source: one line on stderr and exit 1", () => {
  const r = privateSources({
    "sources.list.d/security.list": "deb http://security.invalid/debian-security bookworm-security main\n",
  });
  assert.equal(r.status, 1);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /^lavapipe: no Debian bookworm source in .*\n$/);
});
