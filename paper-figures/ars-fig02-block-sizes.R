# ARS Fig. 2 (§III): fragments and cold sequential-read time of a file written once at
# random offsets with one block size per run, each write fsync'd, under each scheme. The
# read time is modeled (the read's block trace replayed through ftl-sim on the device
# profile); the wall time is shown beside it, labelled with where it was measured.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
runs <- read_table(args$tables[[1]])
if (nrow(runs) == 0) stop("no runs in ", args$tables[[1]])
runs$scheme <- ars_scheme_factor(runs$scheme)
runs$kib <- runs$block_size / 1024
runs <- repetition_medians(runs, c("fragments", "modeled_ms", "wall_ms"), c("scheme", "kib"))
measures <- c(
  "fragments", "sequential read, modeled (ms)", sprintf("sequential read, %s (ms)", wall_series())
)
long <- rbind(
  data.frame(runs[c("scheme", "kib")], measure = measures[[1]], value = runs$fragments),
  data.frame(runs[c("scheme", "kib")], measure = measures[[2]], value = runs$modeled_ms),
  data.frame(runs[c("scheme", "kib")], measure = measures[[3]], value = runs$wall_ms)
)
long$measure <- factor(long$measure, levels = measures)

plot <- ggplot(long, aes(kib, value, colour = scheme, shape = scheme)) +
  geom_line() +
  geom_point(size = 2) +
  facet_wrap(~measure, scales = "free_y") +
  scale_x_continuous(trans = "log2", breaks = sort(unique(runs$kib))) +
  scale_y_log10() +
  scale_colour_manual(values = palette_for(nlevels(runs$scheme))) +
  labs(x = "write block size (KiB)", y = NULL, colour = "scheme", shape = "scheme") +
  theme_mobifrag()

save_figure(plot, args, width = 9)
