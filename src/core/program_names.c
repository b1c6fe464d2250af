/* Names for the tasks of a program that has none (program.h, fennel_program_name_tasks):
 * made on the first request, since a run without outputs never needs them and a million
 * names cost a few tens of megabytes. */
#include "program.h"

#include <stdlib.h>
#include <string.h>

/* The role a task plays, for its name: its type, except that a compute inside a stage is
 * the stage builder's reduction and a proxy inside one closes the stage. */
static const char *role(const FennelProgram *p, uint32_t t)
{
    FennelTaskType type = p->type[t];
    if (p->stage_first && type == FENNEL_TASK_COMPUTE)
        return "reduce";
    if (p->stage_first && type == FENNEL_TASK_PROXY)
        return "done";
    return fennel_task_type_name(type);
}

/* The stage of task t: that of the last mark at or before it (tasks before the first
 * mark count as the set-up). */
static uint32_t stage_of(const FennelProgram *p, uint32_t t)
{
    uint32_t lo = 0, hi = p->n_stage_marks;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->stage_first[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? p->stage_number[lo - 1] : 0;
}

static void base_name(const FennelProgram *p, uint32_t t, GString *out)
{
    g_string_truncate(out, 0);
    FennelTaskType type = p->type[t];
    if (type != FENNEL_TASK_START && p->stage_first) {
        g_string_append_c(out, 's');
        fennel_append_uint(out, stage_of(p, t));
        g_string_append_c(out, '.');
    }
    g_string_append(out, role(p, t));
    g_string_append(out, ".r");
    fennel_append_uint(out, p->rank[t]);
    gboolean message = type == FENNEL_TASK_PUT || type == FENNEL_TASK_GET ||
                       type == FENNEL_TASK_SEND || type == FENNEL_TASK_RECV;
    if (message && p->peer[t] == FENNEL_ANY) {
        g_string_append(out, "-any");
    } else if (message && p->peer[t] != FENNEL_NO_RANK) {
        g_string_append(out, "-r");
        fennel_append_uint(out, p->peer[t]);
    }
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Whether every stage mark has a stage number of its own, none of them 0 (the set-up's,
 * which tasks before the first mark get). */
static gboolean marks_distinct(const FennelProgram *p)
{
    if (p->stage_first == NULL || p->n_stage_marks == 0)
        return FALSE;
    uint32_t *n = g_memdup2(p->stage_number, sizeof(uint32_t) * p->n_stage_marks);
    qsort(n, p->n_stage_marks, sizeof(uint32_t), compare_u32);
    gboolean distinct = n[0] != 0;
    for (uint32_t i = 1; i < p->n_stage_marks && distinct; i++)
        distinct = n[i] != n[i - 1];
    g_free(n);
    return distinct;
}

static void name_all(FennelProgram *p)
{
    p->names = g_string_chunk_new(16 * 1024);
    char **names = g_new(char *, MAX(p->n_tasks, 1));
    /* How many times each base name was seen: a repeat gets .2, .3, ... A base name never
     * ends in "." and digits (it ends in a rank, "-any" or a role), so no suffixed name
     * can equal another task's base name. A name inside a stage carries the stage's number,
     * so when every mark has a number of its own, a name can repeat only within its mark:
     * the table is emptied at each mark and holds one stage, not the program (a start
     * carries no stage: starts have a table of their own). */
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
    GHashTable *starts = g_hash_table_new(g_str_hash, g_str_equal);
    gboolean by_stage = marks_distinct(p);
    uint32_t mark = 0;
    GString *name = g_string_new(NULL);
    for (uint32_t t = 0; t < p->n_tasks; t++) {
        for (; by_stage && mark < p->n_stage_marks && p->stage_first[mark] <= t; mark++)
            g_hash_table_remove_all(seen);
        GHashTable *table = p->type[t] == FENNEL_TASK_START ? starts : seen;
        base_name(p, t, name);
        gpointer key, count;
        if (g_hash_table_lookup_extended(table, name->str, &key, &count)) {
            guint k = GPOINTER_TO_UINT(count) + 1;
            g_hash_table_insert(table, key, GUINT_TO_POINTER(k));
            g_string_append_printf(name, ".%u", k);
            names[t] = g_string_chunk_insert(p->names, name->str);
        } else {
            names[t] = g_string_chunk_insert(p->names, name->str);
            g_hash_table_insert(table, names[t], GUINT_TO_POINTER(1));
        }
    }
    g_string_free(name, TRUE);
    g_hash_table_destroy(seen);
    g_hash_table_destroy(starts);
    p->task_name = names;
    p->made_names = TRUE;
}

/* A binary program's names: pointers into its text. */
static void name_from_offsets(FennelProgram *p)
{
    char **names = g_new(char *, MAX(p->n_tasks, 1));
    for (uint32_t t = 0; t < p->n_tasks; t++)
        names[t] = p->name_at[t] == UINT64_MAX ? NULL : (char *)p->name_text + p->name_at[t];
    p->task_name = names;
}

char *const *fennel_program_own_names(const FennelProgram *p)
{
    if (p->name_at || p->name_from_text)
        fennel_program_name_tasks(p);
    return p->names || p->name_at ? p->task_name : NULL;
}

void fennel_program_name_tasks(const FennelProgram *p)
{
    /* The names are a cache of what the program already says, so making them does not
     * change the program: it may be const to its callers. */
    FennelProgram *mutable = (FennelProgram *)p;
    if (g_once_init_enter(&mutable->named)) {
        if (p->task_name == NULL && p->name_at)
            name_from_offsets(mutable);
        else if (p->task_name == NULL && p->name_from_text)
            p->name_from_text(mutable);
        else if (p->task_name == NULL && p->names == NULL)
            name_all(mutable);
        g_once_init_leave(&mutable->named, 1);
    }
}

void fennel_program_detach_text(FennelProgram *p)
{
    if (p->text == NULL)
        return;
    fennel_program_name_tasks(p);
    g_bytes_unref(p->text);
    p->text = NULL;
    p->name_from_text = NULL;
}
