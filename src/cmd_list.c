/* fennel list: the models with their parameters, units and defaults. */
#include "cli.h"

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

int fennel_cmd_list(int argc, char **argv)
{
    GOptionEntry entries[] = {{NULL, 0, 0, 0, NULL, NULL, NULL}};
    int status = 0;
    if (!fennel_cli_parse("list", "", "Show the models with their parameters and units.", entries,
                          &argc, &argv, &status))
        return status;
    if (argc > 1) {
        fprintf(stderr, "fennel: list: unexpected argument '%s'\n", argv[1]);
        return 2;
    }
    GString *out = g_string_new("network models (model file: network: {model: NAME, ...}; "
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
    g_string_append(out, "\nother model values\n"
                         "    resolution duration   ns    default 1ps      model durations are "
                         "rounded to this; an explicit value truncates\n");
    fwrite(out->str, 1, out->len, stdout);
    g_string_free(out, TRUE);
    return 0;
}
