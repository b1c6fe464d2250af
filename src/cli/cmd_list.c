/* fennel list: the models with their parameters, units and defaults. */
#include "cli.h"
#include "formats.h"

#include <stdio.h>

static const char *kind_name(FennelParamKind kind)
{
    switch (kind) {
    case FENNEL_PARAM_DURATION:
        return "duration";
    case FENNEL_PARAM_RATE:
        return "time/byte";
    case FENNEL_PARAM_SIZE:
        return "size";
    }
    return "";
}

static void list_params(GString *out, const FennelParamSpec *specs, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        g_string_append_printf(out, "    %-10s %-10s %-5s default %-8s %s\n", specs[i].name,
                               kind_name(specs[i].kind), fennel_param_unit(specs[i].kind),
                               specs[i].default_text, specs[i].help);
}

/* The generators with the options each accepts (those it needs marked) and the
 * collective `fennel verify --generate` checks it against. */
static void list_generators(GString *out)
{
    g_string_append(out, "generators (fennel run|generate|verify --generate NAME [options]; "
                         "defaults: --ranks 2 --size 8B --root 0 --rounds 1 --width 2 --radix "
                         "2 --partitions 2 --threshold 1 --segment 0)\n");
    for (const FennelGenerator *const *g = fennel_generators; *g; g++) {
        g_string_append_printf(out, "  %-24s %s\n    options:", (*g)->name, (*g)->summary);
        if ((*g)->options == 0)
            g_string_append(out, " none");
        for (int i = 0; i < FENNEL_GEN_N_OPTIONS; i++) {
            unsigned bit = 1u << i;
            if ((*g)->options & bit)
                g_string_append_printf(out, " %s%s", fennel_gen_option_name(bit),
                                       ((*g)->required & bit) ? " (required)" : "");
        }
        if ((*g)->collective)
            g_string_append_printf(out, "; performs %s", (*g)->collective);
        g_string_append_c(out, '\n');
    }
    g_string_append_c(out, '\n');
}

int fennel_cmd_list(int argc, char **argv)
{
    GOptionEntry entries[] = {{NULL, 0, 0, 0, NULL, NULL, NULL}};
    int status = 0;
    if (!fennel_cli_parse("list", "", "Show the generators and models and their options.", entries,
                          &argc, &argv, &status))
        return status;
    if (argc > 1) {
        fennel_cli_error("list: unexpected argument '%s'\n", argv[1]);
        return 2;
    }
    GString *out = g_string_new(NULL);
    list_generators(out);
    g_string_append(out, "network models (model file: network: {model: NAME, ...}; "
                         "command line: --network NAME --set KEY=VALUE)\n");
    for (const FennelNetworkClass *const *c = fennel_network_classes; *c; c++) {
        g_string_append_printf(out, "  %-8s %s\n", (*c)->name, (*c)->description);
        list_params(out, (*c)->params, (*c)->n_params);
    }
    g_string_append(out, "\ncompute models (model file: compute: {model: NAME, ...})\n");
    for (const FennelComputeClass *const *c = fennel_compute_classes; *c; c++) {
        g_string_append_printf(out, "  %-8s %s\n", (*c)->name, (*c)->description);
        list_params(out, (*c)->params, (*c)->n_params);
    }
    g_string_append(
        out, "\nother model values\n"
             "    resolution duration   ns    default 1ps      model durations are "
             "rounded to this; an explicit value truncates\n"
             "    placement.ranks_per_node  count  default none  messages within a node "
             "use the intra section (--set ranks_per_node=K, intra.NAME=VALUE)\n"
             "\nnoise (model file: noise: {network|host|compute: {distribution: NAME, ...}}; "
             "command line: --set noise.STREAM.KEY=VALUE)\n"
             "    network: each message's flight; host: each send overhead; compute: "
             "each compute\n"
             "    constant value | uniform min max | normal mean stddev | lognormal mu "
             "sigma scale |\n"
             "    exponential mean | gamma shape scale | betaprime a b scale | empirical "
             "file (durations in ns or with a unit)\n");
    g_string_append(out,
                    "\ntopologies (model file: topology: {kind: NAME, ...}; command line: --set "
                    "topology.KEY=VALUE; docs/TOPOLOGY.md)\n");
    for (int k = 0; k < FENNEL_TOPOLOGY_N_KINDS; k++)
        g_string_append_printf(out, "  %-10s %s\n", fennel_topology_kind_name(k),
                               fennel_topology_kind_description(k));
    g_string_append(out, "    every kind: bandwidth, latency (default 100Gbit/s, 500ns), and "
                         "LEVEL.bandwidth, LEVEL.latency per level\n");
    g_string_append(out, "\ncontention (model file: contention: LEVEL; command line: --set "
                         "contention=LEVEL; needs a topology)\n");
    for (int c = 0; c < FENNEL_CONTENTION_N_LEVELS; c++)
        g_string_append_printf(out, "  %-10s %s\n", fennel_contention_name(c),
                               fennel_contention_description(c));
    g_string_append(out, "\nprogram formats (read, told by content, by run, verify, validate and "
                         "generate --from FILE; written by generate --format NAME; "
                         "docs/FORMATS.md)\n");
    for (const FennelFormatClass *const *f = fennel_formats; *f; f++) {
        gboolean reads = fennel_format_reads(*f), writes = fennel_format_writes(*f);
        g_string_append_printf(out, "  %-12s %-12s %s\n", (*f)->name,
                               reads && writes ? "read, write"
                               : reads         ? "read"
                                               : "write",
                               (*f)->description);
    }
    fwrite(out->str, 1, out->len, stdout);
    g_string_free(out, TRUE);
    return 0;
}
