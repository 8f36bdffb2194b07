# ARS Fig. 6 (§V.B): SQLite transactions per second (2 threads, TRUNCATE journal, one row
# per transaction) for insert, update and delete at Moderate, per scheme.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
runs <- read_table(args$tables[[1]])
if (nrow(runs) == 0) stop("no runs in ", args$tables[[1]])
runs$scheme <- ars_scheme_factor(runs$scheme)
runs$kind <- factor(runs$kind, levels = c("insert", "update", "delete"))

plot <- plot_ars_bars(runs, "kind", "tps", "transactions per second")

save_figure(plot, args)
