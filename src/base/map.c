#include "map.h"

#include <string.h>

void fennel_map_init(FennelMap *map)
{
    memset(map, 0, sizeof *map);
}

void fennel_map_clear(FennelMap *map)
{
    g_free(map->keys);
    g_free(map->values);
    g_free(map->used);
    fennel_map_init(map);
}

static void map_grow(FennelMap *map)
{
    FennelMap old = *map;
    map->capacity = old.capacity ? old.capacity * 2 : 64;
    map->keys = g_new(FennelMapKey, map->capacity);
    map->values = g_new(uint64_t, map->capacity);
    map->used = g_new0(uint8_t, map->capacity);
    map->len = 0;
    for (size_t i = 0; i < old.capacity; i++) {
        if (old.used[i])
            *fennel_map_slot(map, old.keys[i].k1, old.keys[i].k2, old.values[i]) = old.values[i];
    }
    g_free(old.keys);
    g_free(old.values);
    g_free(old.used);
}

void fennel_map_remove(FennelMap *map, uint64_t k1, uint64_t k2)
{
    if (map->capacity == 0)
        return;
    size_t mask = map->capacity - 1, i = fennel_map_probe(map, k1, k2);
    if (!map->used[i])
        return;
    /* Backward-shift deletion: move later members of the probe run into the hole. */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; map->used[j]; j = (j + 1) & mask) {
        size_t home = fennel_map_mix(map->keys[j].k1 ^ fennel_map_mix(map->keys[j].k2)) & mask;
        /* j may fill the hole if its home is not between the hole and j (cyclically). */
        gboolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
        if (movable) {
            map->keys[hole] = map->keys[j];
            map->values[hole] = map->values[j];
            hole = j;
        }
    }
    map->used[hole] = 0;
    map->len--;
}

uint64_t *fennel_map_slot(FennelMap *map, uint64_t k1, uint64_t k2, uint64_t initial)
{
    if (2 * (map->len + 1) > map->capacity)
        map_grow(map);
    size_t i = fennel_map_probe(map, k1, k2);
    if (!map->used[i]) {
        map->used[i] = 1;
        map->keys[i].k1 = k1;
        map->keys[i].k2 = k2;
        map->values[i] = initial;
        map->len++;
    }
    return &map->values[i];
}
