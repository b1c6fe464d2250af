/* libFuzzer harness: the jobs file reader (fennel_jobs_parse, docs/TOPOLOGY.md, Several
 * jobs). What reads must say what each job runs, once, and name its listed nodes; what does
 * not must fail with one line naming the file. */
#include "fuzz_program.h"

#include "jobs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    FennelJobs jobs;
    GError *error = NULL;
    if (!fennel_jobs_parse("fuzz.jobs.yaml", (const char *)data, size, &jobs, &error)) {
        fuzz_check_message(error, "fuzz.jobs.yaml:");
        g_error_free(error);
        if (jobs.n_jobs || jobs.jobs)
            fuzz_fail("a failed read left %u jobs", jobs.n_jobs);
        return 0;
    }
    if (jobs.n_jobs == 0)
        fuzz_fail("a jobs file read with no job");
    for (uint32_t j = 0; j < jobs.n_jobs; j++) {
        const FennelJob *job = &jobs.jobs[j];
        if (job->name == NULL || (job->program == NULL) == (job->generate == NULL))
            fuzz_fail("job %u has no name, or not exactly one of program and generate", j);
        if (job->placement == FENNEL_PLACE_LIST && job->n_nodes == 0)
            fuzz_fail("job %u lists no node", j);
        if (job->start < 0)
            fuzz_fail("job %u starts before 0", j);
    }
    fennel_jobs_clear(&jobs);
    return 0;
}
