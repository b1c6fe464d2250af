# CSV reading for the scripts that digest fennel's sweeps (load it with `awk -f` before the
# script's own program). fennel quotes a field when it holds a comma or a quote (schedule
# lists such as "a2,a4" do), so splitting on commas alone would shift the columns.

# Splits one CSV line into f[1..n] (quoted fields may hold commas and doubled quotes);
# returns n.
function csv(line, f,    n, i, c, q, cur) {
    n = 0; cur = ""; q = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) {
            if (c == "\"") {
                if (substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ } else q = 0
            } else cur = cur c
        } else if (c == "\"") q = 1
        else if (c == ",") { f[++n] = cur; cur = "" }
        else cur = cur c
    }
    f[++n] = cur
    return n
}
