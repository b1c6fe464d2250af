/* Wait lists: tasks and messages that find their rank's slots or NIC busy wait here, not
 * in the event queue (engine rule 3, docs/SEMANTICS.md).
 *
 * Re-queueing a waiting entry at the time its resources are free costs O(b^2) events when
 * b entries wait for one resource at once (each is popped and re-queued again every time
 * another takes the resource first). Instead, the entries that need the same resources
 * of a rank (a "class": all its slots, its earliest free slot, one pinned slot, each with
 * or without its NIC; a message's receiving slot and NIC, or the NIC alone) wait in that
 * class's list, ordered as the queue orders them, and only the first stands in the queue,
 * at the time the resources were last known to be free. When the stand-in is popped it
 * starts or waits again, and the next member takes its place at the time the resources
 * are free after it: O(1) events per entry however many wait.
 *
 * The starts are the same as re-queueing gives, in the same order. A rank's slot and NIC
 * times only grow, and the members of a class need the same resources, so at the time an
 * entry would have been popped again the resources are free for every member or for none:
 * for none, re-queueing would only have pushed it on; for all, the queue would have popped
 * the first member in queue order first, which is the stand-in, at that same time and in
 * the same place among the other entries of that time (its key is its own). A member that
 * joins a list before the stand-in in queue order takes its place; the displaced entry
 * stays in the queue and is skipped when popped (see fennel__wait_take). */
#include "engine_private.h"

/* A list keeps its members as a run of consecutive keys while they come so (a rank's
 * fan-out made ready at once: its tasks are consecutive in program order), in an array
 * otherwise. The array is sorted while they come in queue order, so that joining and
 * leaving cost O(1); a member out of order turns the array into a binary min-heap (a sorted
 * array is one already) until the list is empty again. */
static void list_push_array(WaitList *w, uint64_t id);

/* The run ends: its members go to the array, in order, before `id` joins. Each member is
 * copied at most once, so joining stays O(1) on average. */
static __attribute__((noinline)) void list_leave_run(WaitList *w, uint64_t id)
{
    if (w->capacity < w->len + 1) {
        w->capacity = MAX(2 * (w->len + 1), 8u);
        g_free(w->id);
        w->id = g_new(uint64_t, w->capacity);
    }
    for (uint32_t i = 0; i < w->len; i++)
        w->id[i] = w->first + i;
    w->head = 0;
    w->run = FALSE;
    list_push_array(w, id);
}

static inline void list_push(WaitList *w, uint64_t id)
{
    if (G_LIKELY(w->run)) {
        if (w->len == 0) {
            w->first = id;
            w->len = 1;
            return;
        }
        if (G_LIKELY(id == w->first + w->len)) {
            w->len++;
            return;
        }
        list_leave_run(w, id);
        return;
    }
    list_push_array(w, id);
}

static void list_push_array(WaitList *w, uint64_t id)
{
    if (w->head + w->len == w->capacity) {
        if (w->head > 0) {
            memmove(w->id, w->id + w->head, w->len * sizeof *w->id);
            w->head = 0;
        }
        if (w->len == w->capacity) {
            w->capacity = w->capacity ? 2 * w->capacity : 8;
            w->id = g_renew(uint64_t, w->id, w->capacity);
        }
    }
    if (w->sorted) {
        if (w->len == 0 || w->id[w->head + w->len - 1] < id) {
            w->id[w->head + w->len++] = id;
            return;
        }
        memmove(w->id, w->id + w->head, w->len * sizeof *w->id);
        w->head = 0;
        w->sorted = FALSE;
    }
    uint32_t i = w->len++;
    while (i > 0 && w->id[(i - 1) / 2] > id) {
        w->id[i] = w->id[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    w->id[i] = id;
}

/* An empty list starts a run again with its next member. */
void fennel__wait_pop_array(WaitList *w)
{
    if (w->sorted) {
        w->head++;
        if (--w->len == 0) {
            w->head = 0;
            w->run = TRUE;
        }
        return;
    }
    uint64_t last = w->id[--w->len];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= w->len)
            break;
        if (c + 1 < w->len && w->id[c + 1] < w->id[c])
            c++;
        if (w->id[c] >= last)
            break;
        w->id[i] = w->id[c];
        i = c;
    }
    if (w->len) {
        w->id[i] = last;
    } else {
        w->sorted = TRUE;
        w->run = TRUE;
    }
}

/* The rank's lists, allocated on its first wait. Out of line: it runs once per rank. */
WaitList *fennel__wait_lists_new(Run *run, uint32_t rank)
{
    if (run->waits == NULL) {
        run->waits = g_new0(WaitList *, run->m->ranks);
        run->waiting = g_new0(uint32_t, run->m->ranks);
    }
    WaitList *lists = run->waits[rank];
    if (lists == NULL) {
        lists = run->waits[rank] = g_new0(WaitList, run->wait_classes);
        for (uint32_t c = 0; c < run->wait_classes; c++) {
            lists[c].rep = NO_KEY;
            lists[c].sorted = TRUE;
            lists[c].run = TRUE;
        }
    }
    return lists;
}

/* Puts the list's first member in the queue at `at`, unless it has none or one is there. */
static void stand_in(Run *run, WaitList *w, FennelTime at)
{
    if (w->len == 0 || w->rep != NO_KEY)
        return;
    w->rep = wait_first(w);
    w->at = at;
    fennel_queue_push(&run->queue, at, w->rep);
}

gboolean fennel__wait_park(Run *run, uint32_t rank, uint32_t cls, uint64_t key, FennelTime free)
{
    WaitList *w = wait_list(run, rank, cls);
    /* The members of a list are ready by its stand-in's time, not necessarily before: an
     * entry that finds the resources free before it (popped at a time that `any: K`
     * back-dated, or early for a pending list) must not wait behind them, and is queued
     * at `free` by itself, as re-queueing does. From that time on, the resources are busy
     * until `free` for every member, as in any list. */
    if (w->rep != NO_KEY && free < w->at)
        return FALSE;
    w->pending = FALSE;
    list_push(w, key);
    run->waiting[rank]++;
    /* A member before the stand-in in queue order takes its place. */
    if (w->rep != NO_KEY && key < w->rep)
        w->rep = NO_KEY;
    stand_in(run, w, free);
    return TRUE;
}

/* A task that becomes ready at `when` would be popped then and, if its class's resources
 * are busy, join the class's list. It joins at once when that is sure to give the same
 * starts (one event instead of two per member of a fan-out):
 * - the list has a stand-in due at w->at >= when: the resources are busy before w->at
 *   (their times only grow), and at w->at the member is taken in queue order like the
 *   stand-in it would have parked behind; a member before the stand-in replaces it,
 *   queued at its own ready time, where it is popped as it would have been;
 * - the list is empty, but `batch`, of the same class, became ready at the same time in
 *   the same release and is queued: its entry becomes the list's stand-in, and the task
 *   joins behind it. Such a list is pending: nothing is known of its resources, only that
 *   its members are ready at w->at, so a task joins it only when ready at that same time
 *   (one ready earlier would be popped before them, and may start before them; `any`
 *   back-dates ready times), and a task that finds the resources free before w->at does
 *   not wait behind them (fennel__wait_park).
 * Only under the default ordering, whose task keys are fixed by the task. The next of a
 * run joins inline (fennel__wait_join in engine_private.h); here are the other cases. */
gboolean fennel__wait_join_slow(Run *run, uint32_t task, FennelTime when, uint32_t batch,
                                FennelTime batch_at)
{
    const uint32_t rank = run->p->rank[task];
    const uint32_t cls = task_wait_class(run, task);
    WaitList *w = wait_list(run, rank, cls);
    if (w->len == 0) {
        if (batch == FENNEL_NO_TASK || batch_at != when || run->p->rank[batch] != rank ||
            task_state(run, batch) != TASK_WAITING || task_wait_class(run, batch) != cls)
            return FALSE;
        list_push(w, FENNEL_TASK_KEY(batch));
        run->waiting[rank]++;
        w->rep = FENNEL_TASK_KEY(batch);
        w->at = when;
        w->pending = TRUE;
        set_task_state(run, batch, TASK_PARKED);
    }
    if (w->rep == NO_KEY || when > w->at || (w->pending && when != w->at))
        return FALSE;
    const uint64_t key = FENNEL_TASK_KEY(task);
    list_push(w, key);
    run->waiting[rank]++;
    set_task_state(run, task, TASK_PARKED);
    if (key < w->rep) {
        w->rep = key;
        w->at = when;
        fennel_queue_push(&run->queue, when, key);
    }
    return TRUE;
}

void fennel__wait_release(Run *run, uint32_t rank, uint32_t slot, FennelTime until, FennelTime t)
{
    FennelTime *s = &slots_of(run->m, rank)[slot];
    g_assert(*s == FENNEL_TIME_MAX);
    *s = until;
    run->m->makespan = MAX(run->m->makespan, until);
    if (run->waits == NULL || run->waits[rank] == NULL || run->waiting[rank] == 0)
        return; /* no list of the rank has a member */
    /* A slot's time went down, the one exception to times that only grow: every list whose
     * stand-in was queued for the held slot is queued again for its new time (the old entry
     * is then stale). */
    for (uint32_t cls = 0; cls < run->wait_classes; cls++) {
        WaitList *w = &run->waits[rank][cls];
        /* A pending list's time is its members' ready time, not its resources'. */
        if (w->len == 0 || w->rep == NO_KEY || w->pending)
            continue;
        uint32_t free_slot;
        FennelTime earliest = MAX(t, wait_earliest(run, rank, cls, &free_slot));
        if (earliest < w->at) {
            w->rep = NO_KEY;
            stand_in(run, w, earliest);
        }
    }
}

void fennel__wait_clear(Run *run)
{
    if (run->waits == NULL)
        return;
    for (uint32_t r = 0; r < run->m->ranks; r++) {
        if (run->waits[r] == NULL)
            continue;
        for (uint32_t c = 0; c < run->wait_classes; c++)
            g_free(run->waits[r][c].id);
        g_free(run->waits[r]);
    }
    g_free(run->waits);
    g_free(run->waiting);
}
