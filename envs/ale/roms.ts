// Finding ROM images. ROMs are never shipped with this project: like ale-py, we look them up on the user's machine
// and identify each image by its MD5, using ALE's list of supported images (the checksum map that AutoROM and ale-py
// install by). A file is matched by name first (`breakout.bin`), but only its MD5 decides that it is the game.
//
// Places searched, in order: the `romDir` option (the variants' `--rom-dir`), the ALE_ROMS_DIR environment variable,
// then the `roms/` folder of an installed Python `ale-py` package (asked from `python3` only if the others fail).

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** ALE's supported ROM images: MD5 -> ROM id (the file name AutoROM gives them, without `.bin`). */
export const ROM_MD5S: Readonly<Record<string, string>> = {
  "4b27f5397c442d25f0c418ccdacf1926": "adventure",
  "35be55426c1fec32dfb503b4f0651572": "air_raid",
  f1a0a23e6464d954e3a9579c4ccd01c8: "alien",
  acb7750b4d0c4bd34969802a7deb2990: "amidar",
  de78b3a064d374390ac0710f95edde92: "assault",
  "89a68746eff7f266bbf08de2483abe55": "asterix",
  ccbd36746ed4525821a8083b0d6d2c2c: "asteroids",
  "826481f6fc53ea47c9f272f7050eedf7": "atlantis2",
  "9ad36e699ef6f45d9eb6c4cf90475c9f": "atlantis",
  "8556b42aa05f94bc29ff39c39b11bff4": "backgammon",
  "00ce0bdd43aed84a983bef38fe7f5ee3": "bank_heist",
  "819aeeb9a2e11deb54e6de334f843894": "basic_math",
  "41f252a66c6301f1e8ab3612c19bc5d4": "battle_zone",
  "79ab4123a83dc11d468fb2108ea09e2e": "beam_rider",
  "136f75c4dd02c29283752b7e5799f978": "berzerk",
  "0a981c03204ac2b278ba392674682560": "blackjack",
  c9b7afad3bfd922e006a6bfc1d4f3fe7: "bowling",
  c3ef5c4653212088eda54dc91d787870: "boxing",
  f34f08e5eb96e500e851a80be3277a56: "breakout",
  "028024fb8e5e5f18ea586652f9799c96": "carnival",
  b816296311019ab69a21cb9e9e235d12: "casino",
  "91c2098e88a6b13f977af8c003e0bca5": "centipede",
  c1cb228470a87beb5f36e90ac745da26: "chopper_command",
  "0ef64cdbecccb7049752a3de0b7ade14": "combat",
  "55ef7b65066428367844342ed59f956c": "crazy_climber",
  "8cd26dcf249456fe4aeb8db42d49df74": "crossbow",
  "106855474c69d08c8ffa308d47337269": "darkchambers",
  "0f643c34e40e3f1daafd9c524d3ffe64": "defender",
  f0e0addc07971561ab80d9abe1b8d333: "demon_attack",
  "36b20c427975760cb9cf4a47e41369e4": "donkey_kong",
  "368d88a6c071caba60b4f778615aae94": "double_dunk",
  "5aea9974b975a6a844e6df10d2b861c4": "earthworld",
  "71f8bacfbdca019113f3f0801849057e": "elevator_action",
  "94b92a882f6dbaa6993a46e2dcc58402": "enduro",
  "6b683be69f92958abe0e2a9945157ad5": "entombed",
  "615a3bf251a38eb6638cdc7ffbde5480": "et",
  b8865f05676e64f3bec72b9defdacfa7: "fishing_derby",
  "30512e0e83903fc05541d2f6a6a62654": "flag_capture",
  "8e0ab801b1705a740b476b7f588c6d16": "freeway",
  "081e2c114c9c20b61acf25fc95c71bf4": "frogger",
  "4ca73eb959299471788f0b685c3ba0b5": "frostbite",
  "211774f4c5739042618be8ff67351177": "galaxian",
  c16c79aad6272baffb8aae9a7fff0864: "gopher",
  "8ac18076d01a6b63acf6e2cab4968940": "gravitar",
  f16c709df0a6c52f47ff52b9d95b7d8d: "hangman",
  f0a6e99f5875891246c3dbecbf2d2cea: "haunted_house",
  fca4a5be1251927027f2c24774a02160: "hero",
  "7972e5101fa548b952d852db24ad6060": "human_cannonball",
  a4c08c4994eb9d24fb78be1793e82e26: "ice_hockey",
  e51030251e440cffaab1ac63438b44ae: "jamesbond",
  "718ae62c70af4e5fd8e932fee216948a": "journey_escape",
  "3276c777cbe97cdd2b4a63ffc16b7151": "joust",
  "5428cdfada281c569c74c7308c7f2c26": "kaboom",
  "4326edb70ff20d0ee5ba58fa5cb09d60": "kangaroo",
  "6c1f3f2e359dbf55df462ccbcdd2f6bf": "keystone_kapers",
  "0dd4c69b5f9a7ae96a7a08329496779a": "king_kong",
  eed9eaf1a0b6a2b9bc4c8032cb43e3fb: "klax",
  "534e23210dd1993c828d944c6ac4d9fb": "koolaid",
  "4baada22435320d185c95b7dd2bcdb24": "krull",
  "5b92a93b23523ff16e2789b820e2a4c5": "kung_fu_master",
  "8e4cd60d93fcde8065c1a2b972a26377": "laser_gates",
  "2d76c5d1aad506442b9e9fb67765e051": "lost_luggage",
  e908611d99890733be31733a979c62d8: "mario_bros",
  ed2218b3075d15eaa34e3356025ccca3: "maze_craze",
  df62a658496ac98a3aa4a6ee5719c251: "miniature_golf",
  "3347a6dd59049b15a38394aa2dafa585": "montezuma_revenge",
  aa7bb54d2c189a31bb1fa20099e42859: "mr_do",
  "87e79cd41ce136fd4f72cc6e2c161bee": "ms_pacman",
  "36306070f0c90a72461551a7a4f3a209": "name_this_game",
  "113cd09c9771ac278544b7e90efe7df2": "othello",
  fc2233fc116faef0d3c31541717ca2db: "pacman",
  "7e52a95074a66640fcfde124fffd491a": "phoenix",
  "6d842c96d5a01967be9680080dd5be54": "pitfall2",
  "3e90cf23106f2e08b2781e41299de556": "pitfall",
  "60e0ea3cbe0913d39803477945e9e5ec": "pong",
  "4799a40b6e889370b7ee55c17ba65141": "pooyan",
  ef3a4f64b6494ba770862768caf04b86: "private_eye",
  "484b0076816a104875e00467d431c2d2": "qbert",
  "393948436d1f4cc3192410bb918f9724": "riverraid",
  ce5cc62608be2cd3ed8abd844efb8919: "road_runner",
  "4f618c2429138e0280969193ed6c107e": "robotank",
  "240bfbac5163af4df5ae713985386f92": "seaquest",
  dd0cbe5351551a538414fb9e37fc56e8: "sir_lancelot",
  b76fbadc8ffb1f83e2ca08b6fb4d6c9f: "skiing",
  e72eb8d4410152bdcb69e7fba327b420: "solaris",
  "72ffbef6504b75e69ee1045af9075f66": "space_invaders",
  b702641d698c60bcdc922dbd8c9dd49c: "space_war",
  a3c1c70024d7aabb41381adbfb6d3b25: "star_gunner",
  a9531c763077464307086ec9a1fd057d: "superman",
  "4d7517ae69f95cfbc053be01312b7dba": "surround",
  "42cdd6a9e42a3639e190722b8ea3fc51": "tennis",
  b0e1ee07fbc73493eac5651a52f90f00: "tetris",
  "0db4f4150fecf77e4ce72ca4d04c052f": "tic_tac_toe_3d",
  fc2104dd2dadf9a6176c1c1c8f87ced9: "time_pilot",
  fb27afe896e7c928089307b32e5642ee: "trondead",
  "7a5463545dfb2dcfdafa6074b2f2c15e": "turmoil",
  "085322bae40d904f53bdcc56df0593fc": "tutankham",
  a499d720e7ee35c62424de882a3351b6: "up_n_down",
  "3e899eba0ca8cd2972da1ae5479b4f0d": "venture",
  "539d26b6e9df0da8e7465f0f5ad863b7": "video_checkers",
  f0b7db930ca0e548c41a97160b9f6275: "video_chess",
  "3f540a30fdee0b20aed7288e4a5ea528": "video_cube",
  "107cc025334211e6d29da0b6be46aec7": "video_pinball",
  cbe5a166550a8129a5e6d374901dffad: "warlords",
  "7e8aa18bc9502eb57daaf5e7c1e94da7": "wizard_of_wor",
  ec3beb6d8b5689e867bafb5d5f507491: "word_zapper",
  c5930d0e8cdae3e037349bfa08e871be: "yars_revenge",
  eea0da9b987d661264cce69a7c13c3bd: "zaxxon",
};

const HOW_TO_GET_ROMS =
  'Get the ROMs with `pip install "autorom[accept-rom-license]" && AutoROM --install-dir <dir>` (you must own ' +
  "the cartridges), then pass that folder as --rom-dir / { romDir }, or set ALE_ROMS_DIR.";

export class RomNotFoundError extends Error {
  constructor(
    readonly game: string,
    readonly searched: readonly string[],
    readonly rejected: readonly string[],
  ) {
    const where =
      searched.length > 0
        ? searched.map((s) => `  - ${s}`).join("\n")
        : "  (no place to look: no romDir, no ALE_ROMS_DIR, no ale-py)";
    const wrong =
      rejected.length > 0
        ? `\nFiles named like the game but with another MD5 (not ALE's image):\n${rejected.map((r) => `  - ${r}`).join("\n")}`
        : "";
    super(`ROM for "${game}" not found. Searched:\n${where}${wrong}\n${HOW_TO_GET_ROMS}`);
    this.name = "RomNotFoundError";
  }
}

export interface RomLookupOptions {
  /** Checked first (the variants' --rom-dir). */
  romDir?: string | null;
  /** Defaults to process.env; tests pass their own. */
  env?: Record<string, string | undefined>;
  /** Whether to ask python3 for ale-py's roms folder when nothing else has the ROM (default true). */
  askPython?: boolean;
}

export interface FoundRom {
  path: string;
  bytes: Uint8Array;
  md5: string;
}

export function md5Hex(bytes: Uint8Array): string {
  return createHash("md5").update(bytes).digest("hex");
}

let alePyRomDirCache: string | null | undefined;

/** `<site-packages>/ale_py/roms`, or null when python3 or ale-py is missing (asked once per process). */
export function alePyRomDir(): string | null {
  if (alePyRomDirCache !== undefined) return alePyRomDirCache;
  alePyRomDirCache = null;
  try {
    const out = execFileSync("python3", ["-c", "import ale_py, os; print(os.path.dirname(ale_py.__file__))"], {
      timeout: 5000,
      stdio: ["ignore", "pipe", "ignore"],
      encoding: "utf8",
    });
    const dir = join(out.trim(), "roms");
    if (out.trim() !== "" && existsSync(dir)) alePyRomDirCache = dir;
  } catch {
    // No python3 or no ale-py: not an error, just one place fewer to look.
  }
  return alePyRomDirCache;
}

/** Looks for `expectedMd5` in `dir`: first the files named after the game, then every other ROM-sized file. */
function searchDir(dir: string, romId: string, expectedMd5: string, rejected: string[]): FoundRom | null {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) return null;
    names = readdirSync(dir);
  } catch {
    return null;
  }
  const wanted = new Set([romId, romId.replace(/_/g, "")].flatMap((n) => [`${n}.bin`, `${n}.a26`]));
  const byName = names.filter((n) => wanted.has(n.toLowerCase()));
  const others = names.filter((n) => !wanted.has(n.toLowerCase()) && /\.(bin|a26)$/i.test(n));
  for (const name of [...byName, ...others]) {
    const path = join(dir, name);
    let bytes: Uint8Array;
    try {
      const st = statSync(path);
      if (!st.isFile() || st.size > 512 * 1024) continue;
      bytes = new Uint8Array(readFileSync(path));
    } catch {
      continue;
    }
    const md5 = md5Hex(bytes);
    if (md5 === expectedMd5) return { path, bytes, md5 };
    if (byName.includes(name)) rejected.push(`${path} (md5 ${md5})`);
  }
  return null;
}

/**
 * Finds the ROM image of `romId` whose MD5 is `expectedMd5`, or throws one RomNotFoundError naming the game, every
 * place searched and how to get the ROMs.
 */
export function findRom(romId: string, expectedMd5: string, options: RomLookupOptions = {}): FoundRom {
  const env = options.env ?? process.env;
  const searched: string[] = [];
  const rejected: string[] = [];
  const places: Array<[string, () => string | null]> = [
    ["romDir option", () => options.romDir ?? null],
    ["ALE_ROMS_DIR", () => env.ALE_ROMS_DIR ?? null],
    ["ale-py roms", () => (options.askPython === false ? null : alePyRomDir())],
  ];
  for (const [label, dirOf] of places) {
    const dir = dirOf();
    if (label === "ale-py roms" && dir === null && options.askPython !== false) {
      searched.push("the roms/ folder of a Python ale-py package (python3 -c 'import ale_py' found none)");
    }
    if (dir === null || dir === "") continue;
    searched.push(`${dir} (${label})`);
    const found = searchDir(dir, romId, expectedMd5, rejected);
    if (found !== null) return found;
  }
  throw new RomNotFoundError(romId, searched, rejected);
}
