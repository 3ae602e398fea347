// Background groups (procgen's `resources.cpp`): a level's background is `group[randn(group.length)]`, so the
// order of each list is part of level generation. Paths are relative to procgen's `data/assets/`.

const SPACE = [
  "deep_space_01",
  "spacegen_01",
  "milky_way_01",
  "ez_space_lite_01",
  "meyespace_v1_01",
  "eye_nebula_01",
  "deep_sky_01",
  "space_nebula_01",
  "Background-1",
  "Background-2",
  "Background-3",
  "Background-4",
  "parallax-space-backgound", // sic: the file's name in procgen
].map((n) => `space_backgrounds/${n}.png`);

const PLATFORM = [
  ...[
    "alien_bg",
    "another_world_bg",
    "back_cave",
    "caverns",
    "cyberpunk_bg",
    "parallax_forest",
    "scifi_bg",
    "scifi2_bg",
    "living_tissue_bg",
    "airadventurelevel1",
    "airadventurelevel2",
    "airadventurelevel3",
    "airadventurelevel4",
    "cave_background",
    "blue_desert",
    "blue_grass",
    "blue_land",
    "blue_shroom",
    "colored_desert",
    "colored_grass",
    "colored_land",
    "colored_shroom",
    "landscape1",
    "landscape2",
    "landscape3",
    "landscape4",
    ...Array.from({ length: 10 }, (_, i) => `battleback${i + 1}`),
    "sunrise",
  ].map((n) => `platform_backgrounds/${n}.png`),
  ...["beach", "fantasy", "candy"].flatMap((k) => [1, 2, 3, 4].map((i) => `platform_backgrounds_2/${k}${i}.png`)),
  // procgen appends every space background to the platform group.
  ...SPACE,
];

const WATER = ["water1", "water2", "water3", "water4", "underwater1", "underwater2", "underwater3"].map(
  (n) => `water_backgrounds/${n}.png`,
);

export const BACKGROUND_GROUPS = {
  space_backgrounds: SPACE,
  platform_backgrounds: PLATFORM,
  topdown_backgrounds: ["floortiles", ...Array.from({ length: 8 }, (_, i) => `backgrounddetailed${i + 1}`)].map(
    (n) => `topdown_backgrounds/${n}.png`,
  ),
  topdown_simple_backgrounds: ["topdown_backgrounds/floortiles.png"],
  water_backgrounds: WATER,
  water_surface_backgrounds: WATER.slice(0, 4),
} as const satisfies Record<string, readonly string[]>;

export type BackgroundGroup = keyof typeof BACKGROUND_GROUPS;
