# Records real ALE's trajectories for benchmark/ale_fidelity.ts: run it with ale-py 0.12 in a scratch venv
# (never a project dependency):
#
#   python3 -m venv /tmp/ale-venv && /tmp/ale-venv/bin/pip install "ale-py==0.12.*"
#   /tmp/ale-venv/bin/python benchmark/ale_reference.py --frames 1500 --out /tmp/ale_reference.json [game ...]
#   /tmp/ale-venv/bin/python benchmark/ale_reference.py --steps 400 --frameskip-out tests/fixtures/ale_frameskip.json
#
# For each game (default: every ROM ale-py ships that has a supported-game entry) it runs ALEInterface with
# random_seed 0, repeat_action_probability 0, frame_skip 1, loadROM then reset_game, and the scripted actions of
# tests/ale_fidelity.test.ts (200 NOOPs, 10 FIREs, then the minimal set cycled in 8-frame blocks), calling
# reset_game whenever the game is over. Every frame it records CRC-32s of getRAM() and getScreen(), the reward,
# lives and game_over().
#
# With --frameskip-out it records, per game, what an observation shows where ale-py's AtariEnv and CleanRL's
# MaxAndSkip take one: the screen and RAM right after loadROM + reset_game, then `--steps` steps of 4 frames each
# (step s plays scripted_action(4 s) for all 4 frames) with the screens after frames 3 and 4 (the two MaxAndSkip
# pools; AtariEnv(frameskip=4) shows frame 4), the RAM after frame 4, the step's reward, lives and game_over, and,
# whenever the game is over, reset_game and the screen and RAM it leaves. Kept compact: each trajectory is folded
# into running CRC-32s (see step_digests), written every 50 steps.
import argparse, json, os, subprocess, sys, zlib
import ale_py

def scripted_action(t, minimal):
    if t < 200:
        return 0
    if t < 210:
        return 1
    return minimal[((t - 210) // 8 * 5 + 3) % len(minimal)]

def make_ale(rom_path):
    """ALE as the fixtures run it: seed 0, no sticky actions, every frame, after reset_game; and its minimal actions."""
    ale = ale_py.ALEInterface()
    ale.setLoggerMode(ale_py.LoggerMode.Error)
    ale.setInt("random_seed", 0)
    ale.setFloat("repeat_action_probability", 0.0)
    ale.setInt("frame_skip", 1)
    ale.loadROM(rom_path)
    ale.reset_game()
    return ale, [a.value if hasattr(a, "value") else int(a) for a in ale.getMinimalActionSet()]

def run(rom_path, frames):
    ale, minimal = make_ale(rom_path)
    out = {"minimal": minimal, "ram": [], "screen": [], "reward": [], "lives": [], "over": []}
    for t in range(frames):
        if ale.game_over():
            ale.reset_game()
        out["reward"].append(int(ale.act(ale_py.Action(scripted_action(t, minimal)))))
        out["ram"].append(zlib.crc32(ale.getRAM().tobytes()))
        out["screen"].append(zlib.crc32(ale.getScreen().tobytes()))
        out["lives"].append(int(ale.lives()))
        out["over"].append(bool(ale.game_over()))
    return out

CHECKPOINT = 50

ATARI_57 = """alien amidar assault asterix asteroids atlantis bank_heist battle_zone beam_rider berzerk bowling boxing breakout
centipede chopper_command crazy_climber defender demon_attack double_dunk enduro fishing_derby freeway frostbite gopher
gravitar hero ice_hockey jamesbond kangaroo krull kung_fu_master montezuma_revenge ms_pacman name_this_game phoenix
pitfall pong private_eye qbert riverraid road_runner robotank seaquest skiing solaris space_invaders star_gunner
surround tennis time_pilot tutankham up_n_down venture video_pinball wizard_of_wor yars_revenge zaxxon""".split()

def fold(digest, values):
    """The running digest: CRC-32 of the values as little-endian uint32s, continuing from `digest`."""
    return zlib.crc32(b"".join((v & 0xFFFFFFFF).to_bytes(4, "little") for v in values), digest)

def crc_screen(ale):
    return zlib.crc32(ale.getScreen().tobytes())

def crc_ram(ale):
    return zlib.crc32(ale.getRAM().tobytes())

def step_digests(rom_path, steps):
    """Two running digests: `last` over what AtariEnv(frameskip=4).step observes (the screen after its 4 frames,
    frames after game over emulating nothing), `pooled` over what MaxAndSkip(skip=4) observes (the screens after
    frames 3 and 4, each only if the game was not over before that frame: MaxAndSkip stops stepping there, 0 in
    its place). Both fold in, per step, [screen(s)..., ram, reward, lives, over, reset_screen, reset_ram], the reset
    pair 0 when the step did not end the game."""
    ale, minimal = make_ale(rom_path)
    out = {"reset": [crc_screen(ale), crc_ram(ale)], "last": [], "pooled": [], "reward": 0, "resets": 0}
    last = pooled = 0
    for s in range(steps):
        action = ale_py.Action(scripted_action(4 * s, minimal))
        reward = 0
        seen = []
        for frame in range(4):
            observed = frame >= 2 and not ale.game_over()
            reward += ale.act(action)
            if frame >= 2:
                seen.append(crc_screen(ale) if observed else 0)
        screen4, ram, lives, over = crc_screen(ale), crc_ram(ale), ale.lives(), ale.game_over()
        reset = [0, 0]
        if over:
            ale.reset_game()
            reset = [crc_screen(ale), crc_ram(ale)]
            out["resets"] += 1
        tail = [ram, reward, lives, int(over)] + reset
        last = fold(last, [screen4] + tail)
        pooled = fold(pooled, seen + tail)
        out["reward"] += reward
        if (s + 1) % CHECKPOINT == 0:
            out["last"].append(f"{last:08x}")
            out["pooled"].append(f"{pooled:08x}")
    out["reset"] = [f"{v:08x}" for v in out["reset"]]
    return out

def loads(rom_path):
    """Whether ALE accepts the ROM. For one it cannot wrap (multi-player-only ROMs such as combat) loadROM ends the
    process rather than raising, so it is tried in a child process."""
    probe = f"import ale_py; a = ale_py.ALEInterface(); a.setLoggerMode(ale_py.LoggerMode.Error); a.loadROM({rom_path!r})"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=1500)
    parser.add_argument("--out")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--frameskip-out")
    parser.add_argument("games", nargs="*")
    args = parser.parse_args()
    if not args.out and not args.frameskip_out:
        parser.error("give --out, --frameskip-out or both")
    rom_dir = os.path.join(os.path.dirname(ale_py.__file__), "roms")
    games = args.games or sorted(f[:-4] for f in os.listdir(rom_dir) if f.endswith(".bin"))
    if args.frameskip_out and not args.games:
        # Only the Atari-57 set has an entry in our game table; the others would be dead weight in the fixture.
        games = [g for g in games if g in ATARI_57]
    result = {"ale_py": ale_py.__version__, "frames": args.frames, "games": {}}
    stepped = {"ale_py": ale_py.__version__, "steps": args.steps, "checkpoint": CHECKPOINT, "games": {}}
    for game in games:
        path = os.path.join(rom_dir, game + ".bin")
        if not loads(path):
            print(f"skip {game}: ALE has no single-player entry for it")
            continue
        if args.out:
            result["games"][game] = run(path, args.frames)
        if args.frameskip_out:
            stepped["games"][game] = step_digests(path, args.steps)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f)
    if args.frameskip_out:
        with open(args.frameskip_out, "w") as f:
            f.write("{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in stepped.items() if k != "games"))
            f.write(',\n  "games": {\n' + ",\n".join(f"    {json.dumps(g)}: {json.dumps(v)}" for g, v in stepped["games"].items()))
            f.write("\n  }\n}\n")

if __name__ == "__main__":
    main()
