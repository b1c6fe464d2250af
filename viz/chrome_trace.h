/* The run as a Chrome Trace Event / Perfetto JSON file (README, Commands), for ui.perfetto.dev
 * and chrome://tracing.
 *
 * - Each rank is a process ("rank i"), each of its slots a thread ("slot s").
 * - Every task that ran is one complete event ("ph": "X", category = its type) from its
 *   start for as long as it held its slot; args give its ready and completion times,
 *   peer, bytes and noise.
 * - A slot busy for a message outside its task's event is one more complete event on
 *   that slot: a receive overhead (category "receive-overhead"), a sender waiting for a
 *   rendezvous or blocking put ("wait"). NIC gaps (LogP, LogGP) are complete events on
 *   two more threads per rank, "NIC send" and "NIC receive" ("nic-send-gap",
 *   "nic-recv-gap").
 * - Every message is one flow (the "bind_id" / "flow_out" / "flow_in" form, which binds
 *   to the events themselves rather than to whatever runs at a timestamp): it leaves
 *   from the task that sent it (or, for a get's response, from a zero-length "response
 *   of T" event on the target) and ends at a zero-length "arrival of T" event on the
 *   receiving rank's slot 0, category "message".
 * - Times are microseconds, written exactly (picoseconds are six decimals). */
#ifndef FENNEL_CHROME_TRACE_H
#define FENNEL_CHROME_TRACE_H

#include "trace.h"

/* Appends the JSON document of every run in the trace; `about` (or NULL) is stored in
 * the document's otherData as the description of the model. */
void fennel_chrome_trace_write(const FennelTrace *trace, uint32_t n_ranks, uint32_t processes,
                               const char *about, GString *out);

#endif
