# ARS Fig. 6 (§V.B): SQLite transactions per second (2 threads, TRUNCATE journal, one row
# per transaction) for insert, update and delete at Moderate, per scheme. Modeled: each
# trace's block requests replayed through ftl-sim on the device profile (judged on an
# emulator); the wall time is drawn below it, labelled with where it was measured. Each
# bar is the median of the repetitions.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
runs <- read_table(args$tables[[1]])
if (nrow(runs) == 0) stop("no runs in ", args$tables[[1]])
# Repeated runs: the median of the repetitions.
runs <- repetition_medians(
  with_repetitions(runs), c("modeled_tps", "wall_tps"), c("scheme", "kind")
)
series <- c("modeled (device model)", paste(wall_series(), "time"))
runs <- rbind(
  data.frame(runs[c("scheme", "kind")], time = series[[1]], tps = runs$modeled_tps),
  data.frame(runs[c("scheme", "kind")], time = series[[2]], tps = runs$wall_tps)
)
runs$time <- factor(runs$time, levels = series)
runs$scheme <- ars_scheme_factor(runs$scheme)
runs$kind <- factor(runs$kind, levels = c("insert", "update", "delete"))

plot <- plot_ars_bars(runs, "kind", "tps", "transactions per second") +
  facet_wrap(~time, ncol = 1, scales = "free_y")

save_figure(plot, args, height = 6)
