// Drives the C++ original of procgen through gym3's libenv C interface (libenv_make / libenv_set_buffers /
// libenv_act / libenv_observe) with the options procgen's env.py passes, so that benchmark/procgen_fidelity.ts can
// compare envs/procgen/ against it. Built by benchmark/procgen_reference_build.sh outside the repository.
//
//   procgen_reference record GAME MODE RAND_SEED NUM_ENVS STEPS RESOURCE_ROOT OUT_FILE [--generated-assets]
//                            [--render-human]
//   procgen_reference bench  GAME MODE RAND_SEED NUM_ENVS STEPS RESOURCE_ROOT [--generated-assets]
//
// MODE is procgen's distribution_mode number (easy 0, hard 1, extreme 2, memory 10). Every other option is
// ProcgenGym3Env's default: num_levels 0, start_level 0, center_agent, backgrounds, no monochrome/restricted/
// generated assets, no vel info, no sequential levels, debug_mode 0; `--generated-assets` sets
// use_generated_assets, `--render-human` sets render_human (each observe also draws the 512x512 antialiased frame
// into info "rgb"; `record` then also writes OUT_FILE.hires: per frame and env, 512*512*3 bytes). num_threads is
// 0 (libenv then steps every env on the calling thread), which changes nothing in the results and makes `bench`
// single-threaded like ours.
//
// Actions: the same seeded-random sequence benchmark/procgen_fidelity.ts replays: a std::mt19937 seeded with
// RAND_SEED, one draw per env per step (env 0 first), action = draw mod 15.
//
// `record` writes OUT_FILE: "PGR1", int32 num_envs, int32 steps, then (steps + 1) frames of num_envs records, the
// first frame being the observation libenv produces before any action. Record (little-endian, 12308 bytes): int32
// action (-1 in frame 0), float32 reward, int32 level_seed, int32 prev_level_seed, uint8 first, uint8
// prev_level_complete, 2 zero bytes, 64*64*3 observation bytes (row 0 at the top, RGB).
// `bench` prints the steps per second of NUM_ENVS envs over STEPS vector steps (one act + observe each), per second
// of wall time and per second of this process's CPU time (the figure that holds on a machine shared with other work).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "libenv.h"

namespace {

const int OBS_BYTES = 64 * 64 * 3;
const int NUM_ACTIONS = 15;

struct Options {
    std::vector<libenv_option> items;
    std::vector<std::vector<char>> storage;

    void add(const char *name, libenv_dtype dtype, const void *data, int count, int bytes) {
        storage.emplace_back(static_cast<const char *>(data), static_cast<const char *>(data) + bytes);
        libenv_option o{};
        std::snprintf(o.name, sizeof(o.name), "%s", name);
        o.dtype = dtype;
        o.count = count;
        items.push_back(o);
    }
    void str(const char *name, const std::string &v) { add(name, LIBENV_DTYPE_UINT8, v.data(), (int)v.size(), (int)v.size()); }
    void i32(const char *name, int32_t v) { add(name, LIBENV_DTYPE_INT32, &v, 1, 4); }
    void flag(const char *name, bool v) {
        uint8_t b = v ? 1 : 0;
        add(name, LIBENV_DTYPE_UINT8, &b, 1, 1);
    }
    libenv_options finish() {
        for (size_t i = 0; i < items.size(); i++) items[i].data = storage[i].data();
        return libenv_options{items.data(), (int)items.size()};
    }
};

double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void die(const char *msg) {
    std::fprintf(stderr, "error: %s\n", msg);
    std::exit(1);
}

}  // namespace

int main(int argc, char **argv) {
    bool generated_assets = false;
    bool render_human = false;
    {
        int kept = 1;
        for (int i = 1; i < argc; i++) {
            if (std::string(argv[i]) == "--generated-assets") generated_assets = true;
            else if (std::string(argv[i]) == "--render-human") render_human = true;
            else argv[kept++] = argv[i];
        }
        argc = kept;
    }
    if (argc < 8) die("usage: procgen_reference record|bench GAME MODE RAND_SEED NUM_ENVS STEPS RESOURCE_ROOT [OUT_FILE]");
    const std::string cmd = argv[1];
    const std::string game = argv[2];
    const int mode = std::atoi(argv[3]);
    const int32_t rand_seed = (int32_t)std::strtol(argv[4], nullptr, 10);
    const int num_envs = std::atoi(argv[5]);
    const int steps = std::atoi(argv[6]);
    std::string root = argv[7];
    if (!root.empty() && root.back() != '/') root += '/';
    if (cmd != "record" && cmd != "bench") die("command must be record or bench");
    if (cmd == "record" && argc < 9) die("record needs OUT_FILE");

    // The dictionary ProcgenGym3Env builds (env.py), in its order.
    Options opts;
    opts.flag("center_agent", true);
    opts.flag("use_generated_assets", generated_assets);
    opts.flag("use_monochrome_assets", false);
    opts.flag("restrict_themes", false);
    opts.flag("use_backgrounds", true);
    opts.flag("paint_vel_info", false);
    opts.i32("distribution_mode", mode);
    opts.str("env_name", game);
    opts.i32("num_levels", 0);
    opts.i32("start_level", 0);
    opts.i32("num_actions", NUM_ACTIONS);
    opts.flag("use_sequential_levels", false);
    opts.i32("debug_mode", 0);
    opts.i32("rand_seed", rand_seed);
    opts.i32("num_threads", 0);
    opts.flag("render_human", render_human);
    opts.str("resource_root", root);
    libenv_env *env = libenv_make(num_envs, opts.finish());

    // Buffers indexed [space * num_envs + env] (vecgame.cpp's convert_bufs). Info order: prev_level_seed,
    // prev_level_complete, level_seed.
    std::vector<uint8_t> obs((size_t)num_envs * OBS_BYTES);
    std::vector<float> rew(num_envs);
    std::vector<uint8_t> first(num_envs);
    std::vector<int32_t> prev_seed(num_envs), level_seed(num_envs), action(num_envs, 0);
    std::vector<uint8_t> prev_complete(num_envs);
    const size_t hires_bytes = 512 * 512 * 3;
    std::vector<uint8_t> hires(render_human ? (size_t)num_envs * hires_bytes : 0);
    std::vector<void *> ob_ptrs(num_envs), ac_ptrs(num_envs), info_ptrs((render_human ? 4 : 3) * num_envs);
    for (int e = 0; e < num_envs; e++) {
        ob_ptrs[e] = &obs[(size_t)e * OBS_BYTES];
        ac_ptrs[e] = &action[e];
        info_ptrs[e] = &prev_seed[e];
        info_ptrs[num_envs + e] = &prev_complete[e];
        info_ptrs[2 * num_envs + e] = &level_seed[e];
        if (render_human) info_ptrs[3 * num_envs + e] = &hires[(size_t)e * hires_bytes];
    }
    libenv_buffers bufs{ob_ptrs.data(), rew.data(), first.data(), info_ptrs.data(), ac_ptrs.data()};
    libenv_set_buffers(env, &bufs);
    libenv_observe(env);

    std::mt19937 actions((uint32_t)rand_seed);
    if (cmd == "bench") {
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = cpu_seconds();
        for (int t = 0; t < steps; t++) {
            for (int e = 0; e < num_envs; e++) action[e] = (int32_t)(actions() % NUM_ACTIONS);
            libenv_act(env);
            libenv_observe(env);
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double c = cpu_seconds() - c0;
        std::printf("%s mode %d envs %d steps %d seconds %.3f env_steps_per_s %.1f cpu_seconds %.3f env_steps_per_cpu_s %.1f\n",
                    game.c_str(), mode, num_envs, steps, s, (double)steps * num_envs / s, c, (double)steps * num_envs / c);
        libenv_close(env);
        return 0;
    }

    FILE *out = std::fopen(argv[8], "wb");
    if (out == nullptr) die("cannot open OUT_FILE");
    const int32_t header[2] = {num_envs, steps};
    std::fwrite("PGR1", 1, 4, out);
    std::fwrite(header, 4, 2, out);
    FILE *hires_out = nullptr;
    if (render_human) {
        hires_out = std::fopen((std::string(argv[8]) + ".hires").c_str(), "wb");
        if (hires_out == nullptr) die("cannot open OUT_FILE.hires");
    }
    auto write_frame = [&](bool initial) {
        for (int e = 0; e < num_envs; e++) {
            const int32_t a = initial ? -1 : action[e];
            const uint8_t flags[4] = {first[e], prev_complete[e], 0, 0};
            std::fwrite(&a, 4, 1, out);
            std::fwrite(&rew[e], 4, 1, out);
            std::fwrite(&level_seed[e], 4, 1, out);
            std::fwrite(&prev_seed[e], 4, 1, out);
            std::fwrite(flags, 1, 4, out);
            std::fwrite(&obs[(size_t)e * OBS_BYTES], 1, OBS_BYTES, out);
        }
        if (hires_out != nullptr) std::fwrite(hires.data(), 1, hires.size(), hires_out);
    };
    write_frame(true);
    for (int t = 0; t < steps; t++) {
        for (int e = 0; e < num_envs; e++) action[e] = (int32_t)(actions() % NUM_ACTIONS);
        libenv_act(env);
        libenv_observe(env);
        write_frame(false);
    }
    std::fclose(out);
    if (hires_out != nullptr) std::fclose(hires_out);
    libenv_close(env);
    return 0;
}
