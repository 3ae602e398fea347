# Records real ALE's trajectories for benchmark/ale_fidelity.ts: run it with ale-py 0.12 in a scratch venv
# (never a project dependency):
#
#   python3 -m venv /tmp/ale-venv && /tmp/ale-venv/bin/pip install "ale-py==0.12.*"
#   /tmp/ale-venv/bin/python benchmark/ale_reference.py --frames 1500 --out /tmp/ale_reference.json [game ...]
#
# For each game (default: every ROM ale-py ships that has a supported-game entry) it runs ALEInterface with
# random_seed 0, repeat_action_probability 0, frame_skip 1, loadROM then reset_game, and the scripted actions of
# tests/ale_fidelity.test.ts (200 NOOPs, 10 FIREs, then the minimal set cycled in 8-frame blocks), calling
# reset_game whenever the game is over. Every frame it records CRC-32s of getRAM() and getScreen(), the reward,
# lives and game_over().
import argparse, json, os, subprocess, sys, zlib
import ale_py

def scripted_action(t, minimal):
    if t < 200:
        return 0
    if t < 210:
        return 1
    return minimal[((t - 210) // 8 * 5 + 3) % len(minimal)]

def run(rom_path, frames):
    ale = ale_py.ALEInterface()
    ale.setLoggerMode(ale_py.LoggerMode.Error)
    ale.setInt("random_seed", 0)
    ale.setFloat("repeat_action_probability", 0.0)
    ale.setInt("frame_skip", 1)
    ale.loadROM(rom_path)
    ale.reset_game()
    minimal = [a.value if hasattr(a, "value") else int(a) for a in ale.getMinimalActionSet()]
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

def loads(rom_path):
    """Whether ALE accepts the ROM. For one it cannot wrap (multi-player-only ROMs such as combat) loadROM ends the
    process rather than raising, so it is tried in a child process."""
    probe = f"import ale_py; a = ale_py.ALEInterface(); a.setLoggerMode(ale_py.LoggerMode.Error); a.loadROM({rom_path!r})"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=1500)
    parser.add_argument("--out", required=True)
    parser.add_argument("games", nargs="*")
    args = parser.parse_args()
    rom_dir = os.path.join(os.path.dirname(ale_py.__file__), "roms")
    games = args.games or sorted(f[:-4] for f in os.listdir(rom_dir) if f.endswith(".bin"))
    result = {"ale_py": ale_py.__version__, "frames": args.frames, "games": {}}
    for game in games:
        path = os.path.join(rom_dir, game + ".bin")
        if not loads(path):
            print(f"skip {game}: ALE has no single-player entry for it")
            continue
        result["games"][game] = run(path, args.frames)
    with open(args.out, "w") as f:
        json.dump(result, f)

if __name__ == "__main__":
    main()
