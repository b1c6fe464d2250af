/* A hash map from a 128-bit key (two words) to a 64-bit value: open addressing with
 * linear probing and backward-shift deletion, flat arrays, no allocation per entry. The
 * engine keys message queues and per-pair channels with it; readers may key labels. */
#ifndef FENNEL_MAP_H
#define FENNEL_MAP_H

#include <glib.h>
#include <stdint.h>

/* An entry holds its key and value together, so that a lookup touches one cache line
 * (keys, values and marks in three arrays cost three misses on a large map). k1 ==
 * FENNEL_MAP_EMPTY marks a free entry, so that value may not be used as a key's k1. */
#define FENNEL_MAP_EMPTY UINT64_MAX
typedef struct {
    uint64_t k1, k2, value;
} FennelMapEntry;

typedef struct {
    FennelMapEntry *entries;
    size_t capacity, len; /* capacity: 0 or a power of two */
} FennelMap;

void fennel_map_init(FennelMap *map);
void fennel_map_clear(FennelMap *map);
/* The value slot for (k1, k2), inserted as `initial` if absent. k1 != FENNEL_MAP_EMPTY. */
uint64_t *fennel_map_slot(FennelMap *map, uint64_t k1, uint64_t k2, uint64_t initial);
/* Removes (k1, k2) if present. */
void fennel_map_remove(FennelMap *map, uint64_t k1, uint64_t k2);

/* splitmix64's finaliser: cheap and good enough to spread structured keys. */
static inline uint64_t fennel_map_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* The index where (k1, k2) is, or the empty index where it would go (capacity > 0). */
static inline size_t fennel_map_probe(const FennelMap *map, uint64_t k1, uint64_t k2)
{
    size_t mask = map->capacity - 1, i = fennel_map_mix(k1 ^ fennel_map_mix(k2)) & mask;
    const FennelMapEntry *e = map->entries;
    while (e[i].k1 != FENNEL_MAP_EMPTY && (e[i].k1 != k1 || e[i].k2 != k2))
        i = (i + 1) & mask;
    return i;
}

/* The value slot for (k1, k2), or NULL. Inline: the engine looks up on every message. */
static inline uint64_t *fennel_map_find(const FennelMap *map, uint64_t k1, uint64_t k2)
{
    if (map->capacity == 0)
        return NULL;
    size_t i = fennel_map_probe(map, k1, k2);
    return map->entries[i].k1 != FENNEL_MAP_EMPTY ? &map->entries[i].value : NULL;
}

#endif
