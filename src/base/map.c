#include "map.h"

#include <string.h>

void fennel_map_init(FennelMap *map)
{
    memset(map, 0, sizeof *map);
}

void fennel_map_clear(FennelMap *map)
{
    g_free(map->entries);
    fennel_map_init(map);
}

static void map_grow(FennelMap *map)
{
    FennelMap old = *map;
    map->capacity = old.capacity ? old.capacity * 2 : 64;
    map->entries = g_new(FennelMapEntry, map->capacity);
    memset(map->entries, 0xff, map->capacity * sizeof *map->entries); /* all FENNEL_MAP_EMPTY */
    map->len = 0;
    for (size_t i = 0; i < old.capacity; i++) {
        const FennelMapEntry *e = &old.entries[i];
        if (e->k1 != FENNEL_MAP_EMPTY)
            *fennel_map_slot(map, e->k1, e->k2, e->value) = e->value;
    }
    g_free(old.entries);
}

void fennel_map_remove(FennelMap *map, uint64_t k1, uint64_t k2)
{
    if (map->capacity == 0)
        return;
    size_t mask = map->capacity - 1, i = fennel_map_probe(map, k1, k2);
    FennelMapEntry *e = map->entries;
    if (e[i].k1 == FENNEL_MAP_EMPTY)
        return;
    /* Backward-shift deletion: move later members of the probe run into the hole. */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; e[j].k1 != FENNEL_MAP_EMPTY; j = (j + 1) & mask) {
        size_t home = fennel_map_mix(e[j].k1 ^ fennel_map_mix(e[j].k2)) & mask;
        /* j may fill the hole if its home is not between the hole and j (cyclically). */
        gboolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
        if (movable) {
            e[hole] = e[j];
            hole = j;
        }
    }
    e[hole].k1 = FENNEL_MAP_EMPTY;
    map->len--;
}

uint64_t *fennel_map_slot(FennelMap *map, uint64_t k1, uint64_t k2, uint64_t initial)
{
    g_assert(k1 != FENNEL_MAP_EMPTY);
    if (2 * (map->len + 1) > map->capacity)
        map_grow(map);
    size_t i = fennel_map_probe(map, k1, k2);
    FennelMapEntry *e = &map->entries[i];
    if (e->k1 == FENNEL_MAP_EMPTY) {
        *e = (FennelMapEntry){k1, k2, initial};
        map->len++;
    }
    return &e->value;
}
