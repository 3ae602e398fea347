// Records Multi-Agent ALE trajectories for tests/multi_agent_ale_fidelity.test.ts. Built against Farama's
// Multi-Agent ALE C++ library by benchmark/multi_agent_ale_build.sh (never part of the project's build):
//
//   multi_agent_ale_record <rom.bin> <mode> <frames> <policy> [random_seed] [hash_every]
//   multi_agent_ale_record <rom.bin> <mode> <frames> bench:S [random_seed]
//
// It drives the library the way PettingZoo's ParallelAtariEnv does with `reset(seed=random_seed)`: ALE logger off,
// repeat_action_probability 0, random_seed set, loadROM, setMode(mode), reset_game. Then `frames` times: if the game
// is over, reset_game (PettingZoo's unseeded reset); every player's action index, where a player whose allLives()
// entry is negative sends index 0 (PettingZoo's removed agents); act(vector) with the minimal actions. After every
// frame it records each player's reward, allLives() and game_over(), and CRC-32s of getRAM() and getScreen() (the
// palette bytes) after every `hash_every`-th frame (default 1: all); every 100th frame also the CRC-32 of
// getScreenRGB(). Long runs with sparse checksums exercise the reward and lives rules over whole episodes.
//
// Policies (action indices into the sorted minimal set, n of them; t = frames already played):
//   scripted  player k plays (t div P_k + k) mod n with P = 37, 50, 43, 29 (slow sweeps through every action)
//   random:S  each player draws a uniform index every 4 frames from std::mt19937(S) (A, B, C, D in turn)
// The actions actually played are written into the output (run-length encoded), so a replay needs no policy code.
//
// `bench:S` is the throughput reference of benchmark/multi_agent_ale_throughput.ts: after the reset it times
// `frames` frames of act() (every player a uniform index each frame from std::mt19937(S), reset_game when over),
// records nothing and prints {"frames": n, "seconds": s}.
//
// Output: one JSON object on stdout (see tests/fixtures/multi_agent_ale/README.md for the fields).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>
#include <zlib.h>

#include "ale_interface.hpp"

using namespace ale;

static uint32_t crc(const unsigned char* data, size_t n) {
  return static_cast<uint32_t>(crc32(0L, data, static_cast<uInt>(n)));
}

static std::string hex8(uint32_t v) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

static std::string ints(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); i++) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

static const char* DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz";

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s <rom.bin> <mode> <frames> <scripted|random:SEED|bench:SEED> [random_seed] [hash_every]\n", argv[0]);
    return 2;
  }
  const std::string rom = argv[1];
  const int mode = std::atoi(argv[2]);
  const int frames = std::atoi(argv[3]);
  const std::string policy = argv[4];
  const int seed = argc > 5 ? std::atoi(argv[5]) : 1;
  const int hashEvery = argc > 6 ? std::atoi(argv[6]) : 1;
  const bool random = policy.rfind("random:", 0) == 0;
  const bool bench = policy.rfind("bench:", 0) == 0;
  if (!random && !bench && policy != "scripted") {
    std::fprintf(stderr, "error: policy must be scripted, random:SEED or bench:SEED, got %s\n", policy.c_str());
    return 2;
  }

  Logger::setMode(Logger::Error);
  ALEInterface ale;
  ale.setFloat("repeat_action_probability", 0.0f);
  ale.setInt("random_seed", seed);
  ale.loadROM(rom);
  ale.setMode(mode);
  ale.reset_game();
  const int players = ale.numPlayersActive();
  // PettingZoo's action mapping: the minimal set in ALE's enum order.
  ActionVect minimalSet = ale.getMinimalActionSet();
  std::vector<int> minimal(minimalSet.begin(), minimalSet.end());
  std::sort(minimal.begin(), minimal.end());
  const int n = static_cast<int>(minimal.size());

  if (bench) {
    std::mt19937 rng(static_cast<uint32_t>(std::stoul(policy.substr(6))));
    std::vector<Action> act(players);
    const auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < frames; t++) {
      if (ale.game_over()) ale.reset_game();
      for (int k = 0; k < players; k++) act[k] = static_cast<Action>(minimal[rng() % static_cast<uint32_t>(n)]);
      ale.act(act);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("{\"frames\":%d,\"seconds\":%.6f}\n", frames, seconds);
    return 0;
  }

  std::vector<unsigned char> rgb;
  auto screenCrc = [&]() {
    const ALEScreen& s = ale.getScreen();
    return crc(reinterpret_cast<const unsigned char*>(s.getArray()), s.arraySize());
  };
  auto ramCrc = [&]() {
    const ALERAM& r = ale.getRAM();
    return crc(r.array(), r.size());
  };
  auto rgbCrc = [&]() {
    ale.getScreenRGB(rgb);
    return crc(rgb.data(), rgb.size());
  };
  rgb.resize(static_cast<size_t>(ale.getScreen().height()) * ale.getScreen().width() * 3);

  const std::string startRam = hex8(ramCrc()), startScreen = hex8(screenCrc()), startRgb = hex8(rgbCrc());
  const int startEpisodeFrame = ale.getEpisodeFrameNumber();
  std::vector<int> lives = ale.allLives();
  const std::string startLives = ints(lives);
  // The lives events are changes against the last recorded value, across resets too.
  std::vector<int> recordedLives = lives;

  std::mt19937 rng(random ? static_cast<uint32_t>(std::stoul(policy.substr(7))) : 0u);
  std::vector<int> index(players, 0);
  // Per player, runs of the same action index: "<base-36 digit><count>" joined by commas.
  std::vector<std::string> actions(players);
  std::vector<int> runAction(players, -1), runLength(players, 0);
  auto flushRun = [&](int k) {
    if (runLength[k] == 0) return;
    actions[k] += (actions[k].empty() ? "" : ",") + std::string(1, DIGITS[runAction[k]]) + std::to_string(runLength[k]);
  };
  std::string ramHashes, screenHashes, rgbHashes, rewardEvents, livesEvents, overFrames;
  const int P[4] = {37, 50, 43, 29};
  for (int t = 0; t < frames; t++) {
    if (ale.game_over()) {
      ale.reset_game();
      lives = ale.allLives();
    }
    for (int k = 0; k < players; k++) {
      if (random) {
        if (t % 4 == 0) index[k] = static_cast<int>(rng() % static_cast<uint32_t>(n));
      } else {
        index[k] = (t / P[k] + k) % n;
      }
    }
    std::vector<Action> act(players);
    for (int k = 0; k < players; k++) {
      const int played = lives[k] < 0 ? 0 : index[k];
      if (played != runAction[k]) {
        flushRun(k);
        runAction[k] = played;
        runLength[k] = 0;
      }
      runLength[k]++;
      act[k] = static_cast<Action>(minimal[played]);
    }
    std::vector<reward_t> rewards = ale.act(act);
    if ((t + 1) % hashEvery == 0) {
      ramHashes += hex8(ramCrc());
      screenHashes += hex8(screenCrc());
    }
    if (t % 100 == 99) rgbHashes += hex8(rgbCrc());
    bool anyReward = false;
    for (reward_t r : rewards) anyReward = anyReward || r != 0;
    if (anyReward) {
      std::vector<int> event{t};
      event.insert(event.end(), rewards.begin(), rewards.end());
      rewardEvents += (rewardEvents.empty() ? "" : ",") + ints(event);
    }
    lives = ale.allLives();
    if (lives != recordedLives) {
      std::vector<int> event{t};
      event.insert(event.end(), lives.begin(), lives.end());
      livesEvents += (livesEvents.empty() ? "" : ",") + ints(event);
      recordedLives = lives;
    }
    if (ale.game_over()) overFrames += (overFrames.empty() ? "" : ",") + std::to_string(t);
  }

  for (int k = 0; k < players; k++) flushRun(k);
  std::printf("{\"mode\":%d,\"players\":%d,\"seed\":%d,\"policy\":\"%s\",\"frames\":%d,\"hashEvery\":%d,\"minimal\":%s,\n", mode,
              players, seed, policy.c_str(), frames, hashEvery, ints(minimal).c_str());
  std::printf("\"start\":{\"ram\":\"%s\",\"screen\":\"%s\",\"rgb\":\"%s\",\"episodeFrame\":%d,\"lives\":%s},\n",
              startRam.c_str(), startScreen.c_str(), startRgb.c_str(), startEpisodeFrame, startLives.c_str());
  std::printf("\"actions\":[");
  for (int k = 0; k < players; k++) std::printf("%s\"%s\"", k ? "," : "", actions[k].c_str());
  std::printf("],\n\"rewards\":[%s],\n\"lives\":[%s],\n\"gameOver\":[%s],\n", rewardEvents.c_str(), livesEvents.c_str(),
              overFrames.c_str());
  std::printf("\"rgb\":\"%s\",\n\"ram\":\"%s\",\n\"screen\":\"%s\"}\n", rgbHashes.c_str(), ramHashes.c_str(),
              screenHashes.c_str());
  return 0;
}
